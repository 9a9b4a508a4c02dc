// SPDX-License-Identifier: Apache-2.0
// The run: paths to targets; each partition checked (verify's checks), its
// start-up predicted and its repairs priced on a small pool, reported in
// order as they finish; each log dir's root files and inventory after its
// partitions; then the plan and the summary.
#include "tools/ops/doctor/doctor.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "formats/file_names.h"
#include "formats/meta_properties.h"
#include "formats/partition_metadata.h"
#include "lib/cpus.h"
#include "lib/mapped_file.h"
#include "lib/ordered_pool.h"
#include "lib/units.h"
#include "tools/ops/common/ask.h"
#include "tools/ops/common/envelope.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/doctor/explain.h"
#include "tools/ops/doctor/inventory.h"
#include "tools/ops/doctor/plan.h"
#include "tools/ops/doctor/service.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/partition/topic_settings.h"
#include "tools/ops/reindex/reindex.h"
#include "tools/ops/verify/verify_partition.h"
#include "tools/ops/verify/verify_state.h"
#include "tools/ops/write/safe_write.h"

namespace kseg {

namespace fs = std::filesystem;
using namespace doctor;

namespace {

// Kafka's recovery reads a segment once and checks every CRC: 1 GiB of
// segments took its in-process rebuild 0.94-1.36 s from the page cache
// (tests/bench/README.md), so an estimate at 1 GiB/s; a cold disk is slower.
constexpr double kKafkaRecoveryBytesPerSecond = 1024.0 * 1024 * 1024;

struct Work {
  Target target;
  PartitionDoc doc;
  TargetResult verified;  // the log dir's root checks want its range
};

// LogManager.isStrayKraftReplica at the broker's first metadata image: a
// partition with no topic id, or not the id the metadata log gives its
// topic, is renamed -stray and served empty. Judged only where the log dir
// holds the metadata log (the replica assignment is not read).
void check_stray(const TopicSettings& settings, const std::string& log_dir, PartitionDoc& d) {
  auto name = file_names::parse_partition_dir_name(d.name);
  if (!name.ok() || name->topic == "__cluster_metadata" || name->kind != file_names::DirKind::partition) return;
  auto id = settings.topic_id(name->topic, log_dir);
  if (!id.ok() || !id->metadata_log) return;
  const std::string path = d.dir + "/partition.metadata";
  std::error_code ec;
  std::optional<Problem> p;
  if (!fs::exists(path, ec)) {
    p = Problem::of(Code::partition_metadata_stray, path, std::nullopt, "no partition.metadata: no topic id, so Kafka takes the partition for a stray",
                    id->id.value_or("a topic id"), "none");
  } else {
    auto bytes = MappedFile::read_state_file(path);
    if (!bytes.ok()) return;  // verify reports what cannot be read
    auto m = partition_metadata::parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
    if (!m.ok()) return;
    const std::string mine = format_kafka_uuid(m->topic_id);
    if (!id->id)
      p = Problem::of(Code::partition_metadata_stray, path, std::nullopt,
                      fmt::format("the metadata log has no topic {} (deleted): its partitions here are strays", name->topic),
                      "a live topic", mine);
    else if (*id->id != mine)
      p = Problem::of(Code::partition_metadata_stray, path, std::nullopt,
                      fmt::format("topic id differs from the metadata log's for topic {}", name->topic), *id->id, mine);
  }
  if (!p) return;
  d.stray = true;
  ++d.counts[static_cast<size_t>(p->severity)];
  d.findings.push_back(Finding{std::move(*p), {}, {}, false});
}

void diagnose_partition(const LogCheckOptions& lo, const ServiceContext& service, Work& w) {
  const TopicSettings& settings = service.settings;
  PartitionDoc& d = w.doc;
  d.dir = w.target.path;
  d.name = fs::path(d.dir).filename().string();
  TargetResult& r = w.verified;
  r.target = w.target;
  try {
    verify_partition(lo, r);
  } catch (const std::exception& e) {
    r.findings.io_error(d.dir, e.what());
  }
  d.io_errors = r.findings.io_errors;
  d.log_start = r.log_start;
  d.log_end = r.log_end;
  for (const auto& [file, c] : r.findings.suppressed) d.suppressed += c[0] + c[1] + c[2];
  for (const auto& f : r.findings.files)
    if (f.kind == "log") d.bytes += f.size_bytes;
  for (auto& p : r.findings.problems) {
    ++d.counts[static_cast<size_t>(p.severity)];
    d.findings.push_back(Finding{std::move(p), {}, {}, false});
  }
  r.findings.problems.clear();
  auto name = file_names::parse_partition_dir_name(d.name);
  if (name.ok() && name->kind == file_names::DirKind::deleting) {
    // Its data is no longer needed: the inventory names it, its damage does not matter.
    d.findings.clear();
    d.counts = {};
    d.startup_error = "a deleted partition: Kafka loads it without recovery and deletes it";
    explain(d);
    return;
  }
  // Unreadable files are kseg-verify's to report (above): listed, not refused.
  LoadOptions load{Unreadable::list, false, true, service.log_dirs.of(d.dir)};
  if (r.listed) load.listed = &*r.listed;
  if (r.last_segment_end && d.io_errors.empty()) {
    // Read whole by verify with nothing found in its .log or .index: its end as Kafka reads it.
    const auto files_of = [&](file_names::FileKind k) {
      return file_names::segment_file_name(Offset{r.last_segment_end->first}, k);
    };
    const std::string log = files_of(file_names::FileKind::log),
                      index = files_of(file_names::FileKind::index);
    if (std::none_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) {
          const std::string file = fs::path(f.problem.file).filename().string();
          return file == log || file == index;
        }))
      load.active_end = r.last_segment_end;
  }
  auto p = load_partition(d.dir, load);
  if (!p.ok()) {
    d.startup_error = p.error().message;
    explain(d);
    return;
  }
  check_stray(settings, p->log_dir, d);
  recover::Config config;
  config.max_decompressed_bytes = lo.max_decompressed_bytes;
  if (Status st = index_settings(settings, p->topic, p->log_dir, config); !st.ok())
    d.startup_error = fmt::format("index settings: {} (Kafka's defaults assumed)", st.error().message);
  // The segments verify read whole and found nothing in: recovery keeps them as they are.
  std::set<int64_t> clean_logs;
  if (d.io_errors.empty()) {
    for (const auto& seg : p->segments) clean_logs.insert(seg.base);
    for (const auto& f : d.findings)
      if (auto n = file_names::parse_segment_file_name(fs::path(f.problem.file).filename().string());
          n.ok() && n->kind == file_names::FileKind::log)
        clean_logs.erase(n->offset.value);
  }
  auto s = predict_startup(*p, w.target.clean_shutdown, config, name.ok() && name->topic == "__cluster_metadata",
                           clean_logs);
  if (!s.ok()) d.startup_error = s.error().message;
  else d.startup = std::move(*s);
  if (name.ok() && name->kind == file_names::DirKind::partition) in_service(service, *p, r, w.target.clean_shutdown, d);
  bool invalid = d.startup && d.startup->loses();
  for (const auto& f : d.findings)
    invalid = invalid || invalid_bytes(f.problem.code) || offsets_out_of_order(f.problem.code);
  if (invalid) {
    // The two repairs priced as kseg-reindex plans them (nothing written).
    if (auto salvage = plan_partition(d.dir, config, Repair::salvage); salvage.ok() && !salvage->refused)
      d.salvage = salvage->removed;
    if (auto recover = plan_partition(d.dir, config, Repair::recover); recover.ok() && !recover->refused)
      d.recover = recover->removed;
  }
  explain(d);
}

std::string recovery_time(int64_t bytes) {
  const auto ms = static_cast<int64_t>(1000.0 * static_cast<double>(bytes) / kKafkaRecoveryBytesPerSecond);
  return ms < 1000 ? "under a second" : "about " + human_duration(ms);
}

std::string loss_text(int64_t bytes, int64_t offsets) {
  if (bytes == 0 && offsets == 0) return "nothing";
  return fmt::format("{}, {} offset{}", human_bytes(bytes), offsets, offsets == 1 ? "" : "s");
}

nlohmann::ordered_json startup_json(const Startup& s) {
  nlohmann::ordered_json j{{"clean_shutdown", s.clean_shutdown},
                           {"recovery_point", s.recovery_point ? nlohmann::ordered_json(*s.recovery_point) : nullptr},
                           {"fails", s.fails ? nlohmann::ordered_json(*s.fails) : nullptr},
                           {"segments_recovered", s.recovered},
                           {"bytes_to_scan", s.bytes_to_scan},
                           {"log_end_before", s.log_end_before},
                           {"log_end_after", s.log_end_after},
                           {"bytes_lost", s.bytes_lost},
                           {"offsets_lost", s.offsets_lost},
                           {"deletes_all", s.deletes_all}};
  auto& segs = j["segments"] = nlohmann::ordered_json::array();
  for (const auto& f : s.segments) {
    if (f.why == RecoverWhy::none && !f.deleted) continue;
    nlohmann::ordered_json g{{"base_offset", f.base}, {"bytes", f.size}, {"recovered", f.why != RecoverWhy::none}};
    g["why"] = f.why == RecoverWhy::none ? nullptr : nlohmann::ordered_json(recover_why_text(f.why));
    g["unclean_pass"] = f.unclean_pass;
    g["truncated_bytes"] = f.truncated_bytes;
    g["truncated_at"] = f.stop_position >= 0 ? nlohmann::ordered_json(f.stop_position) : nullptr;
    g["stop"] = f.stop_kind.empty() ? nullptr : nlohmann::ordered_json(f.stop_kind);
    g["offsets_cut"] = f.offsets_cut;
    g["deleted"] = f.deleted;
    segs.push_back(std::move(g));
  }
  return j;
}

nlohmann::ordered_json removed_json(const std::optional<Removed>& r) {
  if (!r) return nullptr;
  return {{"bytes", r->bytes}, {"offsets", r->offsets},
          {"first", r->first ? nlohmann::ordered_json(*r->first) : nullptr},
          {"last", r->last ? nlohmann::ordered_json(*r->last) : nullptr}};
}

const char* action_name(Action a) {
  switch (a) {
    case Action::none: return "none";
    case Action::reindex: return "reindex";
    case Action::producer_state: return "producer_state";
    case Action::salvage: return "salvage";
    case Action::by_hand: return "by_hand";
  }
  return "?";
}

nlohmann::ordered_json partition_json(const PartitionDoc& d) {
  nlohmann::ordered_json j{{"dir", d.dir},           {"needs_fix", d.needs_fix()}, {"action", action_name(d.action)},
                           {"stray", d.stray},        {"log_start", d.log_start},   {"log_end", d.log_end}};
  j["startup"] = d.startup ? startup_json(*d.startup) : nullptr;
  j["startup_error"] = d.startup_error.empty() ? nullptr : nlohmann::ordered_json(d.startup_error);
  j["salvage_removes"] = removed_json(d.salvage);
  j["recover_removes"] = removed_json(d.recover);
  auto& fs_ = j["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : d.findings) {
    auto o = problem_json(f.problem);
    o["kafka"] = f.kafka;
    o["kafka_handles"] = f.kafka_handles;
    auto& fixes = o["fixes"] = nlohmann::ordered_json::array();
    for (const auto& x : f.fixes) fixes.push_back({{"command", x.command}, {"loses", x.loses}});
    if (f.fetch && f.fetch->entries > 0)
      o["fetch"] = {{"from", f.fetch->from}, {"served_from", f.fetch->served_from}, {"entries", f.fetch->entries}};
    fs_.push_back(std::move(o));
  }
  j["suppressed"] = d.suppressed;
  j["io_errors"] = d.io_errors;
  return j;
}

// The run's totals and the plan, gathered as partitions are reported (a
// step per partition that needs a command: bounded by partitions, not by
// problems).
struct Totals {
  int64_t partitions = 0, healthy = 0, recovered_segments = 0, bytes_to_scan = 0;
  int64_t kafka_bytes_lost = 0, kafka_offsets_lost = 0, kafka_losing = 0;
  int64_t plan_bytes_lost = 0, plan_offsets_lost = 0;
  std::vector<std::string> fails;  // why the broker (or a log dir) does not start
  std::vector<Step> plan;
  bool problems = false, io = false;
};

class Report {
 public:
  Report(const DoctorOptions& o, Sink& out, Sink& err) : o_(o), out_(out), err_(err) {
    if (o_.json) out_.write(json_envelope_open("kseg-doctor") + "\"targets\":[");
  }

  void partition(const PartitionDoc& d) {
    ++t_.partitions;
    const bool fix = d.needs_fix();
    if (!fix) ++t_.healthy;
    if (d.blocks_recovery()) not_ready_.push_back(d.dir);
    t_.problems = t_.problems || fix;
    t_.io = t_.io || !d.io_errors.empty();
    if (d.startup) {
      const Startup& s = *d.startup;
      t_.recovered_segments += s.recovered;
      t_.bytes_to_scan += s.bytes_to_scan;
      if (s.fails) t_.fails.push_back(fmt::format("{}: {}", d.dir, *s.fails));
      if (s.loses() && !d.stray) {  // a stray loses all of it, below
        ++t_.kafka_losing;
        t_.kafka_bytes_lost += s.bytes_lost;
        t_.kafka_offsets_lost += s.offsets_lost;
      }
    }
    if (d.stray) {  // served empty: all of it seems gone
      ++t_.kafka_losing;
      t_.kafka_bytes_lost += d.bytes;
      t_.kafka_offsets_lost += d.log_end - d.log_start;
    }
    add_steps(d, t_.plan);
    if (d.action == Action::salvage && d.salvage) {
      t_.plan_bytes_lost += d.salvage->bytes;
      t_.plan_offsets_lost += d.salvage->offsets;
    }
    if (o_.json) {
      object(partition_json(d), "partition");
      return;
    }
    for (const auto& e : d.io_errors) err_.print("kseg-doctor: {}\n", e);
    if (!fix && !o_.verbose) return;
    out_.print("\n{}\n", d.dir);
    for (const auto& f : d.findings) {
      if (f.problem.severity == Severity::info && !o_.verbose) continue;
      out_.print("  {}\n", problem_text(f.problem));
      out_.print("    Kafka: {}\n", f.kafka);
      if (f.kafka_handles) out_.print("    fix: none needed, Kafka handles it\n");
      for (size_t i = 0; i < f.fixes.size(); ++i)
        out_.print("    {} {}{}\n", f.kafka_handles ? "now:" : i == 0 ? "fix:" : " or:", f.fixes[i].command,
                   f.fixes[i].loses.empty() ? "" : fmt::format("  (loses {})", f.fixes[i].loses));
    }
    if (d.suppressed > 0) out_.print("  ({} more problems not shown: --max-problems)\n", d.suppressed);
    if (d.startup) {
      const Startup& s = *d.startup;
      if (d.stray) out_.print("  start-up: renamed -stray, the partition served empty ({} offsets, {} not served)\n", d.log_end - d.log_start, human_bytes(d.bytes));
      if (s.fails) out_.print("  start-up: the load fails: {}\n", *s.fails);
      else if (s.deletes_all && s.recovered == 0)
        out_.print("  start-up: deletes every segment ({}): the log end {} falls below the checkpointed log start {}\n",
                   human_bytes(s.bytes_lost), s.log_end_before, s.log_end_after);
      else if (s.recovered > 0)
        out_.print("  start-up: recovers {} segment{} ({} to read); log end {} -> {}; loses {}{}\n", s.recovered,
                   s.recovered == 1 ? "" : "s", human_bytes(s.bytes_to_scan), s.log_end_before, s.log_end_after,
                   loss_text(s.bytes_lost, s.offsets_lost), s.deletes_all ? " (every segment: the log end falls below the log start)" : "");
      else if (!d.stray) out_.print("  start-up: loads as it is (nothing to recover)\n");
    } else if (!d.startup_error.empty()) {
      out_.print("  start-up: not predicted: {}\n", d.startup_error);
    }
  }

  void log_dir(const std::string& path, const LogDirInventory& inv, const Findings& root) {
    for (const auto& e : inv.entries) {
      if (e.stops_broker) t_.fails.push_back(fmt::format("{}/{}: {}", path, e.name, e.kafka));
      // An empty one (a fresh lost+found) is set aside; one holding anything is a person's to move.
      if (e.kind == "bad_name") {
        std::error_code ec;
        const fs::path dir = fs::path(path) / e.name;
        const bool empty = fs::is_directory(fs::symlink_status(dir, ec)) && fs::is_empty(dir, ec) && !ec;
        t_.plan.push_back(set_aside_step(dir.string(), empty ? inv.first_partition : std::string()));
      }
    }
    for (const auto& p : root.problems) {
      const RootKafka k = explain_root(p);
      if (p.severity == Severity::error && !k.handles) t_.problems = true;
      if (k.offline()) t_.fails.push_back(fmt::format("{}: {}: the log dir goes offline at start-up, and every partition in it",
                                                    p.file, code_name(p.code)));
      // A checkpoint Kafka cannot read or will not use as it is: set aside, Kafka starts without it.
      if (p.code == Code::checkpoint_corrupt && !k.handles) t_.plan.push_back(set_aside_step(p.file, inv.first_partition));
    }
    if (!inv.clean_shutdown) unclean_.push_back(path);
    if (inv.cluster_id) clusters_[*inv.cluster_id].push_back(path);
    if (inv.node_id) nodes_[*inv.node_id].push_back(path);
    if (o_.json) {
      nlohmann::ordered_json j{{"log_dir", path}, {"clean_shutdown", inv.clean_shutdown}};
      auto& entries = j["inventory"] = nlohmann::ordered_json::array();
      for (const auto& e : inv.entries)
        entries.push_back({{"name", e.name}, {"kind", e.kind}, {"count", e.count}, {"kafka", e.kafka}, {"stops_broker", e.stops_broker}});
      auto& ps = j["problems"] = nlohmann::ordered_json::array();
      for (const auto& p : root.problems) {
        const RootKafka k = explain_root(p);
        auto o = problem_json(p);
        o["remedy"] = code_info(p.code).remedy;
        o["kafka"] = k.kafka;
        o["kafka_handles"] = k.handles;
        o["kafka_effect"] = k.effect;
        ps.push_back(std::move(o));
      }
      object(j, "log_dir");
      return;
    }
    out_.print("\nlog dir {}: {}\n", path,
               inv.clean_shutdown ? "shut down cleanly (.kafka_cleanshutdown): no partition is recovered"
                                  : "no .kafka_cleanshutdown: Kafka recovers each partition from its recovery point");
    for (const auto& e : inv.entries) {
      if (!o_.verbose && !e.notable) continue;
      out_.print("  {:<34} {}\n", e.count > 1 ? fmt::format("{} x {}", e.count, e.name) : e.name, e.kafka);
    }
    for (const auto& p : root.problems) {
      if (p.severity == Severity::info && !o_.verbose) continue;
      const RootKafka k = explain_root(p);
      out_.print("  {}\n    Kafka: {}\n    fix: {}\n", problem_text(p), k.kafka,
                 k.handles ? "none needed, Kafka handles it" : code_info(p.code).remedy);
    }
  }

  void path_error(const std::string& e) {
    t_.io = true;
    errors_.push_back(e);
    if (!o_.json) err_.print("kseg-doctor: {}\n", e);
  }

  // The plan, in order: after finish().
  const std::vector<Step>& plan() const { return t_.plan; }
  // The partitions with something to fix (bounded by partitions).
  // The partitions --fix may not recover: a finding left that is no broker's to end.
  const std::vector<std::string>& not_ready() const { return not_ready_; }

  int finish() {
    // MetaPropertiesEnsemble.verify: one cluster.id and one node.id across the log dirs.
    auto differ = [&](const char* key, const auto& by) {
      if (by.size() < 2) return;
      std::string seen;
      for (const auto& [value, dirs] : by) seen += fmt::format("{}{} in {}", seen.empty() ? "" : "; ", value, fmt::join(dirs, ", "));
      t_.fails.push_back(fmt::format("meta.properties: {} differs across the log dirs ({}): the broker refuses to start", key, seen));
    };
    differ("cluster.id", clusters_);
    differ("node.id", nodes_);
    std::stable_sort(t_.plan.begin(), t_.plan.end(), [](const Step& a, const Step& b) { return a.order() < b.order(); });
    const bool starts = t_.fails.empty();
    if (o_.json) {
      out_.write("],");
      nlohmann::ordered_json plan = nlohmann::ordered_json::array();
      for (const auto& step : t_.plan)
        plan.push_back({{"command", step.fix.command}, {"loses", step.fix.loses}, {"optional", step.optional},
                        {"by_hand", step.kind == Step::by_hand}});
      nlohmann::ordered_json summary{{"partitions", t_.partitions},
                                     {"needing_fix", t_.partitions - t_.healthy},
                                     {"broker_starts", starts},
                                     {"fails", t_.fails},
                                     {"unclean_log_dirs", unclean_},
                                     {"recovery_segments", t_.recovered_segments},
                                     {"recovery_bytes", t_.bytes_to_scan},
                                     {"kafka_loses", {{"partitions", t_.kafka_losing}, {"bytes", t_.kafka_bytes_lost}, {"offsets", t_.kafka_offsets_lost}}},
                                     {"plan_loses", {{"bytes", t_.plan_bytes_lost}, {"offsets", t_.plan_offsets_lost}}}};
      std::string s = nlohmann::ordered_json{{"plan", plan}, {"summary", summary}, {"errors", errors_}}.dump(
          -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      out_.write(std::string_view(s).substr(1));  // the object's keys, after the report's
      out_.write("\n");
    } else {
      out_.print("\nplan, in the order that loses least:\n");
      if (t_.plan.empty()) out_.print("  nothing to do\n");
      for (size_t i = 0; i < t_.plan.size(); ++i) {
        const Step& step = t_.plan[i];
        out_.print("  {}. {}{}{}\n", i + 1, step.optional ? "(optional) " : "", step.fix.command,
                   step.fix.loses.empty() ? "" : fmt::format("  (loses {})", step.fix.loses));
      }
      out_.print("\nsummary: {} partition{}, {} to fix\n", t_.partitions, t_.partitions == 1 ? "" : "s", t_.partitions - t_.healthy);
      if (starts) out_.print("  the broker starts: yes\n");
      else {
        out_.print("  the broker starts: no\n");
        for (const auto& f : t_.fails) out_.print("    {}\n", f);
      }
      if (!unclean_.empty() || t_.recovered_segments > 0)
        out_.print("  its recovery: {} segment{}, {} to read ({} at 1 GiB/s)\n", t_.recovered_segments,
                   t_.recovered_segments == 1 ? "" : "s", human_bytes(t_.bytes_to_scan), recovery_time(t_.bytes_to_scan));
      else out_.print("  its recovery: none\n");
      out_.print("  Kafka alone loses: {}{}\n", loss_text(t_.kafka_bytes_lost, t_.kafka_offsets_lost),
                 t_.kafka_losing > 0 ? fmt::format(" in {} partition{}", t_.kafka_losing, t_.kafka_losing == 1 ? "" : "s") : "");
      out_.print("  after kseg's plan: loses {}\n", loss_text(t_.plan_bytes_lost, t_.plan_offsets_lost));
    }
    if (t_.io) return kExitIo;
    return t_.problems || !starts ? kExitProblems : kExitOk;
  }

 private:
  void object(const nlohmann::ordered_json& j, const char* type) {
    nlohmann::ordered_json o{{"type", type}};
    o.update(j);
    if (!first_) out_.put(',');
    first_ = false;
    out_.write(o.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));  // file text may not be UTF-8
  }

  const DoctorOptions& o_;
  Sink& out_;
  Sink& err_;
  Totals t_;
  bool first_ = true;
  std::vector<std::string> unclean_, errors_;
  std::map<std::string, std::vector<std::string>> clusters_;
  std::map<int32_t, std::vector<std::string>> nodes_;
  std::vector<std::string> not_ready_;
};

}  // namespace

namespace {

// The paths as targets (log dirs after their partitions, targets.h); what
// cannot be read goes to `report`.
std::vector<Target> expand(const DoctorOptions& opts, Report& report) {
  std::vector<Target> targets;
  std::set<std::string> seen;  // canonical paths: a partition named twice (or in a log dir named too) is one target
  // weakly_canonical resolves every component of the path: once a parent, then only a name that is a link.
  std::map<std::string, std::string> parents;
  const auto canonical_of = [&](const std::string& path) {
    std::error_code ec;
    const fs::path given(path);
    if (!given.has_parent_path() || given.filename() == "." || given.filename() == ".." || fs::is_symlink(given, ec) ||
        ec)
      return fs::weakly_canonical(given, ec).string();
    auto it = parents.find(given.parent_path().string());
    if (it == parents.end())
      it = parents.emplace(given.parent_path().string(), fs::weakly_canonical(given.parent_path(), ec).string()).first;
    return (fs::path(it->second) / given.filename()).string();
  };
  for (std::string path : opts.paths) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      report.path_error(fmt::format("{}: no such file or directory", path));
      continue;
    }
    Targets t = expand_targets({path});
    for (const auto& e : t.errors) report.path_error(e);
    size_t partitions = 0;
    for (auto& target : t.targets) {
      if (target.kind == Target::file) continue;
      // In a log dir, a directory Kafka cannot name is the inventory's (the broker refuses to start on it).
      if (target.kind == Target::partition && fs::path(target.path).parent_path() == fs::path(path) &&
          !file_names::parse_partition_dir_name(fs::path(target.path).filename().string()).ok())
        continue;
      partitions += target.kind == Target::partition;
      if (!seen.insert(canonical_of(target.path)).second) continue;
      targets.push_back(std::move(target));
    }
    // A broker's log dir may hold no partition yet; a directory with none of its files is a mistyped path.
    const LogDirFiles root = log_dir_files(path);
    if (partitions == 0 && root.checkpoints.empty() && !root.meta_properties)
      report.path_error(fmt::format("{}: no partition directory and no log dir file in it", path));
  }
  return targets;
}

// Every target diagnosed on a small pool, reported in order as each is done.
void diagnose(const std::vector<Target>& targets, const DoctorOptions& opts, const TopicSettings& settings,
              Report& report) {
  LogCheckOptions lo{opts.depth, opts.max_decompressed_bytes, INT64_MAX};
  const unsigned hw = opts.threads ? opts.threads : usable_cpus();
  const size_t n = targets.size();
  const size_t workers = std::min<size_t>(hw, std::max<size_t>(1, n));
  lo.segment_threads = static_cast<unsigned>(hw / workers);
  std::map<std::string, std::map<std::string, PartitionRange>> ranges;  // by log dir, until its turn
  std::map<std::string, std::string> log_dirs;  // a partition's parent as given -> its log dir, canonical
  Progress progress("kseg-doctor", Progress::Unit::partitions, static_cast<int64_t>(n), opts.progress);
  Coordinators coordinators;
  LogDirs log_dirs_of;
  const ServiceContext service{settings, coordinators, opts.now_ms, opts.producer_id_expiration_ms, opts.broker_config,
                               log_dirs_of};
  run_ordered<Work>(
      n, workers, 64,
      [&](size_t i) {
        auto w = std::make_unique<Work>();
        w->target = targets[i];
        if (w->target.kind == Target::partition) diagnose_partition(lo, service, *w);
        progress.add(1);
        return w;
      },
      [&](size_t, Work& w) {
        if (w.target.kind == Target::partition) {
          // log_dir_of resolves links component by component: once for each parent as given.
          const std::string parent = fs::path(w.target.path).parent_path().string();
          auto it = log_dirs.find(parent);
          if (it == log_dirs.end()) it = log_dirs.emplace(parent, log_dir_of(w.target.path)).first;
          ranges[it->second][fs::path(w.target.path).filename().string()] =
              PartitionRange{w.verified.log_start, w.verified.log_end};
          report.partition(w.doc);
          return;
        }
        // A log dir comes after its partitions (targets.h).
        Findings root;
        const LogDirFiles files = log_dir_files(w.target.path);
        std::error_code ec;
        const std::string key = fs::weakly_canonical(w.target.path, ec).string();  // as log_dir_of names it
        try {
          for (const auto& cp : files.checkpoints) check_root_checkpoint(cp.path, ranges[key], root);
          if (files.meta_properties) check_meta_properties(*files.meta_properties, root);
        } catch (const std::exception& e) {
          root.io_error(w.target.path, e.what());
        }
        ranges.erase(key);
        for (const auto& e : root.io_errors) report.path_error(e);
        report.log_dir(w.target.path, take_inventory(w.target.path), root);
      });
}

// Each log dir shut down uncleanly: diagnosed as the fix left it (quietly),
// then what Kafka's recovery would read made recovered where nothing is left
// to fix (plan.h). kExitIo when a checkpoint or the marker cannot be written.
// The log dirs shut down uncleanly, and what --fix's pre-recovery may do in each.
struct Unclean {
  std::map<std::string, std::vector<std::string>> partitions;  // log dir -> the partitions Kafka's log manager recovers
  std::set<std::string> whole;          // the log dirs given as paths: all of their partitions are targets
  std::set<std::string> stays_unclean;  // a -stray or -future copy in it
  bool may_mark(const std::string& log_dir) const { return whole.contains(log_dir) && !stays_unclean.contains(log_dir); }
};
Unclean unclean_log_dirs(const std::vector<Target>& targets) {
  Unclean u;
  LogDirs log_dirs;
  for (const auto& t : targets) {
    std::error_code ec;
    if (t.kind == Target::log_dir) u.whole.insert(fs::weakly_canonical(t.path, ec).string());
    if (t.kind != Target::partition || t.clean_shutdown) continue;
    auto name = file_names::parse_partition_dir_name(fs::path(t.path).filename().string());
    if (!name.ok() || name->topic == "__cluster_metadata" || name->kind == file_names::DirKind::deleting) continue;
    // A -stray or -future copy shares its partition's checkpoint line: kseg moves no line for it,
    // and the log dir, which Kafka recovers it in, keeps its unclean state.
    if (name->kind != file_names::DirKind::partition) {
      u.stays_unclean.insert(log_dirs.of(t.path));
      continue;
    }
    u.partitions[log_dirs.of(t.path)].push_back(t.path);
  }
  return u;
}

int pre_recover_all(const std::vector<Target>& targets, const DoctorOptions& opts, const TopicSettings& settings,
                    const std::map<std::string, safe::DirLock>& locks, const std::vector<std::string>* not_ready_now,
                    Sink& out, Sink& err) {
  const Unclean u = unclean_log_dirs(targets);
  if (u.partitions.empty()) return kExitOk;
  std::FILE* null = std::fopen("/dev/null", "w");
  DoctorOptions quiet = opts;
  quiet.json = false;
  quiet.progress = false;
  std::set<std::string> not_ready;
  if (not_ready_now) {  // nothing applied since the diagnosis: it still holds
    not_ready.insert(not_ready_now->begin(), not_ready_now->end());
  } else {
    Sink discard(null);
    Report middle(quiet, discard, discard);
    diagnose(targets, quiet, settings, middle);
    (void)middle.finish();
    not_ready.insert(middle.not_ready().begin(), middle.not_ready().end());
  }
  if (null) std::fclose(null);
  for (const auto& [log_dir, partitions] : u.partitions) {
    const safe::DirLock* lock = nullptr;
    for (const auto& [dir, l] : locks)
      if (l.covers(partitions.front())) lock = &l;
    if (lock == nullptr) continue;
    auto r = pre_recover(log_dir, partitions, u.may_mark(log_dir), not_ready,
                         FixOptions{opts.backup, opts.backup_dir, opts.producer_id_expiration_ms}, settings, *lock, out, err);
    if (!r.ok()) {
      err.print("kseg-doctor: {}: {}\n", log_dir, error_text(r.error()));
      return kExitIo;
    }
  }
  return kExitOk;
}

}  // namespace

int run_doctor(const DoctorOptions& opts, Sink& out, Sink& err) {
  auto settings = TopicSettings::open(SettingsFiles{"", opts.broker_config, {}});
  if (!settings.ok()) return report_failure("kseg-doctor", settings.error(), err);
  for (const auto& path : opts.paths) {  // directories only, as kseg-info: a file is a usage error
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
      err.print("kseg-doctor: {}: not a directory (give log dirs or partition dirs)\n", path);
      return kExitUsage;
    }
  }
  if (!opts.fix) {
    Report report(opts, out, err);
    diagnose(expand(opts, report), opts, **settings, report);
    return report.finish();
  }
  // --fix: every log dir locked before anything is read, held to the end.
  // With JSON, stdout gets one document, the one after the fix; what comes
  // before it goes to stderr as text.
  DoctorOptions text = opts;
  text.json = false;
  Sink& before = opts.json ? err : out;
  Report first(text, before, err);
  const std::vector<Target> targets = expand(opts, first);
  std::vector<std::string> dirs;
  for (const auto& t : targets)
    if (t.kind == Target::partition) dirs.push_back(t.path);
  auto locks = safe::lock_log_dirs(dirs, false, "kseg-doctor", err);
  if (!locks.ok()) return report_failure("kseg-doctor", locks.error(), err);
  safe::install_interrupt_cleanup("kseg-doctor");
  diagnose(targets, opts, **settings, first);
  const int rc = first.finish();
  std::vector<Step> plan = first.plan();
  const size_t steps = static_cast<size_t>(std::count_if(plan.begin(), plan.end(), [](const Step& s) { return s.kind != Step::by_hand; }));
  if (rc == kExitIo) return rc;
  // After an unclean shutdown, the broker's recovery done by kseg: said here, asked with the rest.
  const Unclean u = unclean_log_dirs(targets);
  if (!u.partitions.empty()) before.print("\nand, as the shutdown was unclean, --fix then does the broker's recovery:\n");
  for (const auto& [log_dir, partitions] : u.partitions)
    before.print("  in {}: each of its {} partition{} with nothing left to fix recovered as Kafka's recovery would, "
                 "its recovery point moved to its log end{}\n",
                 log_dir, partitions.size(), partitions.size() == 1 ? "" : "s",
                 u.may_mark(log_dir) ? ", and .kafka_cleanshutdown written if every one holds" : "");
  const size_t to_apply = steps + u.partitions.size();
  int failed = 0;
  bool recovered = true;
  if (to_apply == 0) {
    before.print("\nnothing for --fix to do\n");
    if (!opts.json) return rc;  // JSON: the one document, the diagnosis after (here unchanged)
  } else {
    err.flush();  // the plan above, before the question
    if (!opts.yes && !ask_yes("kseg-doctor", fmt::format("apply the {} step{} above (the originals kept unless "
                                                         "--no-backup)?", to_apply, to_apply == 1 ? "" : "s"))) {
      err.print("kseg-doctor: nothing applied\n");
      return rc;
    }
    before.print("\n");
    failed = apply_steps(plan, FixOptions{opts.backup, opts.backup_dir, opts.producer_id_expiration_ms}, **settings,
                         *locks, before, err);
    if (failed > 0) err.print("kseg-doctor: {} step{} failed (above)\n", failed, failed == 1 ? "" : "s");
    recovered = pre_recover_all(targets, opts, **settings, *locks, steps == 0 ? &first.not_ready() : nullptr,
                                before, err) == kExitOk;
    before.print("\nafter the fix:\n");
  }
  Report after(opts, out, err);
  diagnose(expand(opts, after), opts, **settings, after);  // anew: the fix may have written a marker
  const int after_rc = after.finish();
  if (!recovered) return kExitIo;
  return failed > 0 ? std::max(after_rc, static_cast<int>(kExitProblems)) : after_rc;
}

}  // namespace kseg
