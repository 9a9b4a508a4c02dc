// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/compact/compact.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/checkpoint_file.h"
#include "formats/offset_map.h"
#include "lib/cpus.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/compact/compact_config.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/compact/compact_spill.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/state_files.h"
#include "tools/ops/write/safe_write.h"

namespace kseg {

namespace {

using compact::Input;
using compact::RoundStats;
using compact::Settings;

nlohmann::json round_json(const RoundStats& r) {
  nlohmann::json j{
      {"first_dirty_offset", r.first_dirty},
      {"uncleanable_offset", r.uncleanable},
      {"first_uncleanable_offset", r.first_uncleanable},
      {"stopped_by", r.stopped_by},
      {"last_stable_offset", r.lso},
      {"active_segment", r.active_base},
      {"checkpoint_reset", r.reset_checkpoint},
      {"clean_bytes", r.clean_bytes},
      {"cleanable_bytes", r.cleanable_bytes},
      {"dirty_ratio", r.clean_bytes + r.cleanable_bytes ? double(r.cleanable_bytes) / double(r.clean_bytes + r.cleanable_bytes) : 0.0},
      {"end_offset", r.end_offset},
      {"offset_map", {{"keys", r.map_keys}, {"capacity", r.map_capacity}, {"records", r.map_records}, {"full", r.map_full},
                      {"spill", r.spilled ? nlohmann::json{{"records", r.spill_records}, {"bytes", r.spill_bytes},
                                                           {"dir", r.spill_dir}}
                                          : nlohmann::json(nullptr)}}},
      {"read", {{"batches", r.read.batches}, {"records", r.read.records}, {"bytes", r.read.bytes}}},
      {"kept", {{"batches", r.kept.batches}, {"records", r.kept.records}, {"bytes", r.kept.bytes}}},
      {"bytes_freed", r.read.bytes - r.kept.bytes},
      {"records_removed", {{"superseded", r.records_superseded}, {"without_key", r.records_unkeyed},
                           {"aborted", r.records_aborted}, {"tombstones", r.tombstones_removed}}},
      {"tombstones", {{"kept", r.tombstones_kept}, {"horizon_set", r.tombstones_stamped}, {"removed", r.tombstones_removed}}},
      {"markers", {{"kept", r.markers_kept}, {"horizon_set", r.markers_stamped}, {"removed", r.markers_removed}}},
      {"batches_rebuilt", r.batches_rebuilt},
      {"batches_kept_empty", r.batches_emptied},
      {"open_transactions", r.open_txns},
  };
  j["next_delete_horizon_ms"] = r.next_horizon ? nlohmann::json(*r.next_horizon) : nlohmann::json(nullptr);
  j["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups)
    j["groups"].push_back({{"base_offset", g.bases.front()}, {"segments", g.bases}, {"bytes_in", g.bytes_in}, {"bytes_out", g.bytes_out}});
  return j;
}

// What the rounds of one partition removed, for its summary line.
struct Removed {
  int64_t records = 0, superseded = 0, unkeyed = 0, aborted = 0, tombstones = 0, markers = 0;
  int64_t spilled = 0;  // bytes through the spill files
  std::string spill_dir;
  bool first_round_only = false;  // a dry run plans one round
  void add(const RoundStats& r) {
    records += r.read.records - r.kept.records;
    superseded += r.records_superseded;
    unkeyed += r.records_unkeyed;
    aborted += r.records_aborted;
    tombstones += r.tombstones_removed;
    markers += r.markers_removed;
    spilled += r.spill_bytes;
    if (r.spilled) spill_dir = r.spill_elsewhere ? r.spill_dir : "the partition directory";
  }
  // "; 1.2 GiB spilled ...", or nothing.
  std::string spill_text() const {
    if (spilled == 0) return "";
    return fmt::format("; its keys did not fit --memory: {} went through a spill file in {} (unlinked, nothing left)",
                       human_bytes(spilled), spill_dir);
  }
  // "12 records (8 superseded, 4 tombstones)"
  std::string text() const {
    std::string why;
    for (const auto& [n, what] : {std::pair{superseded, "superseded"}, {unkeyed, "without key"}, {aborted, "aborted"},
                                  {tombstones, "tombstones"}, {markers, "markers"}})
      if (n > 0) why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, what);
    return fmt::format("{} record{}{}", records, records == 1 ? "" : "s", why.empty() ? "" : " (" + why + ")");
  }
};

void round_text(const std::string& dir, int n, const RoundStats& r, bool dry, Sink& out) {
  out.print("{}: round {}: dirty [{}, {}) of segments below {} (stopped by {}); last stable offset {}\n", dir, n,
            r.first_dirty, r.first_uncleanable, r.first_uncleanable, r.stopped_by, r.lso);
  for (const auto& t : r.open_txns) out.print("{}:   open transaction: {}\n", dir, t);
  if (r.groups.empty()) {
    out.print("{}:   nothing to clean\n", dir);
    return;
  }
  if (r.spilled)
    out.print("{}:   offset map: {} keys ({} records), more than its {}: spilled in {} parts that each fit ({} records, "
              "{} written and read back); round ends at {}\n",
              dir, r.map_keys, r.map_records, r.map_capacity, compact::Spill::kBuckets, r.spill_records,
              human_bytes(r.spill_bytes), r.end_offset);
  else
    out.print("{}:   offset map: {} keys of {} ({} records){}; round ends at {}\n", dir, r.map_keys, r.map_capacity,
              r.map_records, r.map_full ? ", full: the next round goes on from there" : "", r.end_offset);
  out.print("{}:   read {} batches, {} records, {} bytes; {} {} batches, {} records, {} bytes ({} bytes freed)\n", dir,
            r.read.batches, r.read.records, r.read.bytes, dry ? "would keep" : "kept", r.kept.batches, r.kept.records,
            r.kept.bytes, r.read.bytes - r.kept.bytes);
  out.print("{}:   removed: {} superseded, {} without key, {} aborted, {} tombstones; {} markers removed\n", dir,
            r.records_superseded, r.records_unkeyed, r.records_aborted, r.tombstones_removed, r.markers_removed);
  out.print("{}:   kept: {} tombstones ({} given a delete horizon), {} markers ({} given one), {} empty batches for producer state\n",
            dir, r.tombstones_kept, r.tombstones_stamped, r.markers_kept, r.markers_stamped, r.batches_emptied);
  if (r.next_horizon)
    out.print("{}:   the next tombstone or marker expires at {} ({})\n", dir, iso_ms(*r.next_horizon), *r.next_horizon);
  for (const auto& g : r.groups)
    out.print("{}:   {:020d}.log <- {} segment{} ({} -> {} bytes)\n", dir, g.bases.front(), g.bases.size(),
              g.bases.size() == 1 ? "" : "s", g.bytes_in, g.bytes_out);
}

// The partition's line in cleaner-offset-checkpoint set to `end`, every
// other line kept; the snapshots Kafka's load deletes go with it.
safe::Plan checkpoint_plan(const Input& p, int64_t end) {
  std::vector<checkpoint::TopicPartitionOffset> entries;
  bool placed = false;
  for (const auto& e : p.cleaner_entries) {
    if (e.topic == p.topic && e.partition == p.number) {
      if (!placed) entries.push_back({p.topic, p.number, end});
      placed = true;
    } else {
      entries.push_back(e);
    }
  }
  if (!placed) entries.push_back({p.topic, p.number, end});
  const std::string text = checkpoint::serialize_offset_checkpoint(entries);
  safe::Plan plan{p.dir, {}};
  plan.actions.push_back(safe::Action::write(root_checkpoint_name(RootCheckpoint::cleaner),
                                             std::vector<uint8_t>(text.begin(), text.end()),
                                             fmt::format("{}-{}: cleaned up to {}", p.topic, p.number, end))
                             .in_log_dir());
  for (const auto& [offset, name] : p.loader_deletes)
    plan.actions.push_back(safe::Action::remove(name, "a producer snapshot Kafka's load deletes"));
  return plan;
}

// The run's total over its partitions.
int compact_partition(const std::string& dir, const CompactOptions& o, int64_t now, const safe::DirLock* lock, Sink& out,
                      Sink& err, nlohmann::json* report, RunTally& tally) {
  nlohmann::json j{{"partition", dir}};
  std::string backup;  // the run's backup directory, once a round has made it
  auto fail = [&](const Error& e) {
    // Read as zeros past a shrink: exit_after_run names the file; the data error would mislead.
    if (!file_shrink()) err.print("kseg-compact: {}\n", error_text(e));
    if (!backup.empty())
      err.print("kseg-compact: {}: what earlier groups replaced is in {}\n", dir, backup);
    if (report) {
      j["status"] = "error";
      j["error"] = e.message;
      if (auto p = problem_of(e)) j["problems"].push_back(nlohmann::json(problem_json(*p)));
      if (!backup.empty()) j["backup"] = backup;
      report->push_back(j);
    }
    return exit_code_for(e.code);
  };
  std::vector<Problem> notes;
  auto first = compact::load(dir, o.dry_run ? nullptr : lock, notes);
  if (!first.ok()) return fail(first.error());
  auto settings = compact::resolve(o, first->topic, first->log_dir);
  if (!settings.ok()) return fail(settings.error());
  if (auto layout = read_partition_layout(dir); layout.ok())
    for (const auto& p : unchanged_state_problems(dir, *layout, true)) {
      if (report) j["problems"].push_back(nlohmann::json(problem_json(p)));
      else err.print("kseg-compact: {}\n", problem_text(p));
    }
  if (report) {
    j["settings"] = settings_json(settings->all);
    j["now_ms"] = now;
    j["log_start_offset"] = first->log_start();
    j["log_end_offset"] = first->log_end;
    j["high_watermark"] = first->hw;
    j["high_watermark_from"] = first->hw_from_checkpoint ? "replication-offset-checkpoint" : "the log end (no checkpoint line)";
    for (const auto& n : notes) j["problems"].push_back(nlohmann::json(problem_json(n)));
  } else {
    for (const auto& n : notes) out.print("{}\n", problem_text(n));
    if (o.verbose) {
      for (const auto& l : compact::describe(*settings)) out.print("{}: {}\n", dir, l);
      out.print("{}: log [{}, {}), high watermark {}{}, now {} ({})\n", dir, first->log_start(), first->log_end,
                first->hw, first->hw_from_checkpoint ? "" : " (no checkpoint line: the log end)", iso_ms(now), now);
    }
  }
  if (!settings->compacts() && !o.force)
    return fail(refusal(Code::refuse_not_compacted, std::nullopt,
                        fmt::format("{}: cleanup.policy is '{}' ({}): the broker never compacts it (--force does)", dir,
                                    settings->cleanup_policy, settings->all["cleanup.policy"].source)));
  compact::RoundOptions ro;
  ro.now_ms = now;
  ro.dry_run = o.dry_run;
  ro.backup = o.backup;
  ro.backup_dir = o.backup_dir;
  ro.backup_into = &backup;
  safe::Space space;
  ro.space = &space;
  ro.held = lock;
  // Without a map size of Kafka's, one round cleans the whole dirty section in --memory.
  ro.one_pass = !settings->map_given;
  if (ro.one_pass) {
    const int64_t memory = o.memory > 0 ? o.memory : default_memory();
    settings->offset_map_bytes = memory_map_bytes(memory);
    ro.spill_buffer_bytes = memory / 2;  // while they fill, the map is empty
  }
  ro.refuse_small_map = o.until_clean && !ro.one_pass;
  if (o.verbose && !report)
    out.print("{}: offset map: {} bytes, {}\n", dir, settings->offset_map_bytes,
              ro.one_pass ? fmt::format("kseg's own within --memory {} (one round; keys beyond it spill)",
                                        human_bytes(o.memory > 0 ? o.memory : default_memory()))
                          : std::string("Kafka's (rounds fall where a broker's with this map would)"));
  if (!o.dry_run && !lock) return fail(Error{Errc::io, std::nullopt, fmt::format("{}: no lock held on its log dir", dir)});
  int changed = 0;
  int64_t freed = 0;
  Removed removed;
  std::optional<Input> p = std::move(*first);
  j["rounds"] = nlohmann::json::array();
  const int rounds = o.until_clean ? INT32_MAX : std::max(1, o.rounds);
  for (int n = 1; n <= rounds; ++n) {
    if (n > 1) {
      auto again = compact::load(dir, lock, notes);
      if (!again.ok()) return fail(again.error());
      p = std::move(*again);
    }
    ro.number = n;
    auto r = compact::clean_round(*p, *settings, ro);
    if (!r.ok()) return fail(r.error());
    if (report) j["rounds"].push_back(round_json(*r));
    else if (o.verbose) round_text(dir, n, *r, o.dry_run, out);
    removed.add(*r);
    if (r->groups.empty()) break;
    ++changed;
    freed += r->read.bytes - r->kept.bytes;
    if (o.dry_run) {
      if (!report && (r->map_full || rounds > 1)) removed.first_round_only = true;
      break;
    }
    auto applied = safe::apply(checkpoint_plan(*p, r->end_offset),
                               safe::ApplyOptions{false, o.backup, o.backup_dir, backup, &space}, *lock);
    if (!applied.ok()) return fail(applied.error());
    if (!applied->empty()) backup = *applied;
    safe::crash_point("round-done");
    if (r->end_offset >= r->first_uncleanable && o.until_clean) break;
  }
  const char* status = changed == 0 ? "unchanged" : o.dry_run ? "planned" : "compacted";
  if (changed) {
    tally.add(removed.records, freed);
  }
  if (report) {
    j["status"] = status;
    if (!backup.empty()) j["backup"] = backup;
    if (changed && !o.dry_run) j["space"] = space_json(space);
    report->push_back(j);
  } else if (changed == 0) {
    out.print("{}: nothing to change\n", dir);
  } else if (o.dry_run) {
    out.print("{}: dry run: removes {}; {} would be freed ({} bytes; with a backup, once it is removed); nothing "
              "written{}{}\n",
              dir, removed.text(), human_bytes(freed), freed,
              removed.first_round_only ? " (the first round only: later ones depend on its output)" : "",
              removed.spill_text());
  } else {
    out.print("{}: compacted in {} round{}: removed {}; {}{}\n", dir, changed, changed == 1 ? "" : "s", removed.text(),
              space_text(space, backup), removed.spill_text());
  }
  return o.dry_run && changed ? kExitProblems : kExitOk;
}

}  // namespace

Result<CleanerOutlook> cleaner_outlook(const std::string& dir, const std::string& topic, const std::string& log_dir,
                                       const TopicSettings& ts, int64_t now_ms, bool price) {
  auto policy = ts.lookup(topic, log_dir, std::span<const SettingKey>(&compact::kCleanupPolicyKey, 1));
  if (!policy.ok()) return policy.error();
  CleanerOutlook out;
  out.cleanup_policy = (*policy)["cleanup.policy"].value;
  std::transform(out.cleanup_policy.begin(), out.cleanup_policy.end(), out.cleanup_policy.begin(), ::tolower);
  out.compacts = out.cleanup_policy.find("compact") != std::string::npos;
  out.deletes = out.cleanup_policy.find("delete") != std::string::npos;
  if (!out.compacts) return out;
  auto settings = compact::resolve(ts, {}, topic, log_dir);
  if (!settings.ok()) {
    out.not_judged = settings.error().message;
    return out;
  }
  out.min_ratio = settings->min_cleanable_ratio;
  std::vector<Problem> notes;
  // An interrupted swap Kafka finishes first: the segments as they are stand in for what it leaves.
  auto p = compact::load(dir, nullptr, notes, true);
  if (!p.ok()) {
    out.not_judged = p.error().message;
    return out;
  }
  compact::RoundOptions ro;
  ro.now_ms = now_ms;
  ro.dry_run = true;
  ro.bounds_only = true;
  auto b = compact::clean_round(*p, *settings, ro);
  if (!b.ok()) {
    out.not_judged = b.error().message;
    return out;
  }
  out.first_dirty = b->first_dirty;
  out.first_uncleanable = b->first_uncleanable;
  out.cleanable_bytes = b->cleanable_bytes;
  // LogToClean.cleanBytes: every segment below the first dirty offset, the one holding it too (it
  // then counts in both, as in Kafka).
  for (const auto& s : p->segments)
    if (s.base < out.first_dirty) out.clean_bytes += s.size;
  const int64_t total = out.clean_bytes + out.cleanable_bytes;
  out.dirty_ratio = total > 0 ? static_cast<double>(out.cleanable_bytes) / static_cast<double>(total) : 0;
  if (!price || !out.picked()) return out;
  // A map that cannot fill prices the same round as the cleaner's: no more keys than the
  // cleanable offsets, so one that size (not the cleaner's 128 MiB) does.
  compact::Settings sized = *settings;
  const double keys = static_cast<double>(out.first_uncleanable - out.first_dirty) + 2;
  sized.offset_map_bytes =
      std::min(sized.offset_map_bytes, static_cast<int64_t>(keys * 24 / sized.load_factor) + 24 * 16);
  static std::mutex one_map_at_a_time;
  std::lock_guard<std::mutex> l(one_map_at_a_time);
  ro.bounds_only = false;
  auto r = compact::clean_round(*p, sized, ro);
  if (!r.ok()) {
    out.not_judged = r.error().message;
    return out;
  }
  out.frees = r->read.bytes - r->kept.bytes;
  out.records_removed = r->read.records - r->kept.records;
  out.more_rounds = r->map_full;
  return out;
}

int64_t memory_map_bytes(int64_t memory) {
  // At most 2^31 slots: Kafka's probes address no more.
  return std::min<int64_t>(memory / 2, int64_t{INT32_MAX} * OffsetMap::kBytesPerEntry);
}

int64_t default_memory() { return std::min<int64_t>(usable_memory() / 4, int64_t{4} << 30); }

int run_compact(const CompactOptions& o, Sink& out, Sink& err) {
  const int64_t now = clock_ms(o.now_ms);
  RunTally tally;
  auto one = [&](const PartitionJob& job, const safe::DirLock* lock, Sink& job_out, Sink& job_err,
                 nlohmann::json* report) {
    return compact_partition(job.dir, o, now, lock, job_out, job_err, report, tally);
  };
  // The progress line counts the bytes each round reads (compact_round.cc).
  const int rc = run_partitions("kseg-compact", o, out, err, one, RunShape{.byte_progress = true});
  tally.print(o, out, o.dry_run ? "would be compacted" : "compacted", "records",
              o.dry_run ? " (first rounds); nothing written" : "");
  return rc;
}

}  // namespace kseg
