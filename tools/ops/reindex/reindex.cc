// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/reindex/reindex.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "formats/file_names.h"
#include "lib/cpus.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/targets.h"

namespace kseg {


namespace {

// Where each partition's index settings come from: the files and options
// given, then its log dir's metadata (index_settings).
Result<std::shared_ptr<TopicSettings>> open_settings(const ReindexOptions& o) {
  SettingsFiles files{o.topic_config, o.broker_config, {}};
  if (o.index_interval_bytes) files.overrides.emplace_back("index.interval.bytes", std::to_string(*o.index_interval_bytes));
  if (o.segment_index_bytes) files.overrides.emplace_back("segment.index.bytes", std::to_string(*o.segment_index_bytes));
  return TopicSettings::open(std::move(files));
}

nlohmann::json removed_json(const Removed& r) {
  nlohmann::json j{{"bytes", r.bytes}, {"offsets", r.offsets}};
  j["first_offset"] = r.first ? nlohmann::json(*r.first) : nlohmann::json(nullptr);
  j["last_offset"] = r.last ? nlohmann::json(*r.last) : nlohmann::json(nullptr);
  return j;
}

// A plain run on a log with invalid bytes writes nothing: rebuilt indexes
// would leave the partition changed but not repaired. It says what each
// repair would remove instead, for the operator to choose.
int offer_repairs(const PartitionJob& t, const recover::Config& config, const ProducerStateOptions& producers,
                  Sink& out, nlohmann::json* j) {
  if (!j) out.print("{}: nothing written: its log holds invalid bytes; each repair removes some of it:\n", t.dir);
  for (const auto& [repair, flag, how] :
       {std::tuple{Repair::recover, "--recover", "as Kafka's unclean recovery does: the log ends at the first invalid batch"},
        std::tuple{Repair::salvage, "--salvage", "only the invalid bytes: every valid batch stays"}}) {
    auto plan = plan_partition(t.dir, config, repair, t.only_base, producers);
    if (j) {
      nlohmann::json r{{"repair", flag}};
      if (!plan.ok()) r["error"] = plan.error().message;
      else if (plan->refused) r["refused"] = true;
      else r["removes"] = removed_json(plan->removed);
      (*j)["repairs"].push_back(std::move(r));
    } else if (!plan.ok()) {
      out.print("  {}: cannot plan: {}\n", flag, plan.error().message);
    } else if (plan->refused) {
      out.print("  {}: refused (above)\n", flag);
    } else {
      out.print("  {} removes {}, {}\n", flag, plan->removed.text(), how);
    }
  }
  if (!j) out.print("  (each also rebuilds what it changes; add --dry-run -v to see its steps)\n");
  return kExitProblems;
}

// Plans, prints (or reports in `report`) and applies one partition; returns its exit code.
int reindex_partition(const PartitionJob& t, const TopicSettings& settings, const ReindexOptions& o,
                      const safe::DirLock* lock, Sink& out, Sink& err, nlohmann::json* report) {
  nlohmann::json j{{"partition", t.dir}};
  auto done = [&](const char* status, int rc) {
    if (report) {
      j["status"] = status;
      report->push_back(std::move(j));
    }
    return rc;
  };
  recover::Config config;
  config.threads = o.threads;  // resolved once by run_reindex
  if (o.index_entry_bytes) config.index_entry_bytes = *o.index_entry_bytes;
  std::map<std::string, Setting> used;
  if (Status st = index_settings(settings, t.dir, config, &used); !st.ok()) {
    if (report) report->push_back(error_json(t.dir, st.error().in(t.dir)));
    return report_failure("kseg-reindex", st.error().in(t.dir), err);
  }
  if (report) j["settings"] = settings_json(used);
  else if (o.dry_run) out.print("{}: settings: {}\n", t.dir, settings_line(used));
  ProducerStateOptions producers{o.producer_state, clock_ms(o.now_ms), o.producer_id_expiration_ms};
  // Index settings on the command line ask for indexes spaced by them.
  const bool keep_serving =
      !o.as_recovery && !o.index_interval_bytes && !o.segment_index_bytes && !o.index_entry_bytes;
  auto plan = plan_partition(t.dir, config, o.repair, t.only_base, producers, keep_serving);
  // A file that shrank while read was read as zeros: exit_after_run names it, and a data
  // error found in those zeros, with its advice, would only mislead.
  if (!plan.ok()) {
    if (!file_shrink()) err.print("kseg-reindex: {}\n", error_text(plan.error()));
    if (report) report->push_back(error_json(t.dir, plan.error()));
    return file_shrink() ? kExitIo : exit_code_for(plan.error().code);
  }
  if (!file_shrink()) {
    for (const auto& p : plan->problems) err.print("kseg-reindex: {}\n", problem_text(p));
    for (const auto& p : plan->left_as_is) err.print("kseg-reindex: {}\n", problem_text(p));
  }
  for (const auto* list : {&plan->problems, &plan->left_as_is})
    for (const auto& p : *list) j["problems"].push_back(nlohmann::json(problem_json(p)));
  j["segments"] = plan->segments;
  if (plan->invalid_left) return done("refused", offer_repairs(t, config, producers, out, report ? &j : nullptr));
  if (o.verbose && !report) safe::print_plan(plan->plan, out);
  j["actions"] = nlohmann::json::array();
  append_actions_json(plan->plan, j["actions"]);
  if (o.repair != Repair::none) j["removed"] = removed_json(plan->removed);
  if (plan->segments == 0 && !plan->refused && plan->problems.empty() && !o.allow_empty) {
    err.print("kseg-reindex: {}: nothing to reindex: no segment in it (--allow-empty accepts this)\n", t.dir);
    return done("error", kExitIo);
  }
  // Warnings (what a repair leaves for the broker) are said, not failed on.
  const bool errors = std::any_of(plan->problems.begin(), plan->problems.end(),
                                  [](const Problem& p) { return p.severity == Severity::error; });
  const int rc = errors ? kExitProblems : kExitOk;
  if (plan->plan.empty()) {
    if (!report)
      out.print("{}: {} segment{} checked, nothing to change\n", t.dir, plan->segments, plan->segments == 1 ? "" : "s");
    return done(plan->refused ? "refused" : "unchanged", rc);
  }
  if (o.dry_run) {
    if (!report)
      out.print("{}: dry run: {} change{} planned{}, nothing written\n", t.dir, plan->plan.actions.size(),
                plan->plan.actions.size() == 1 ? "" : "s", o.verbose ? "" : " (-v lists them)");
    return done("planned", kExitProblems);  // as diff(1): 1 when the run would change something
  }
  out.flush();
  if (lock == nullptr) {
    err.print("kseg-reindex: {}: no lock held on its log dir\n", t.dir);
    return done("error", kExitIo);
  }
  safe::Space space;
  auto applied = safe::apply(plan->plan, {false, o.backup, o.backup_dir, "", &space}, *lock);
  if (!applied.ok()) {
    err.print("kseg-reindex: {}: {}\n", t.dir, applied.error().message);
    if (report) report->push_back(error_json(t.dir, applied.error()));
    return kExitIo;
  }
  const bool replaced = space.old_bytes > 0 || !applied->empty();
  if (report) {
    j["space"] = space_json(space);
    if (!applied->empty()) j["backup"] = *applied;
  } else {
    const std::string tail = o.backup && !replaced ? fmt::format(" (no file replaced: nothing to back up); {} more on disk",
                                                                 human_bytes(space.new_bytes))
                                                   : "; " + space_text(space, *applied);
    out.print("{}: {} change{} applied{}\n", t.dir, plan->plan.actions.size(), plan->plan.actions.size() == 1 ? "" : "s",
              tail);
  }
  return done("applied", rc);
}

// What a run resolves once: every partition's producers expire at the same
// time, and the cgroup's CPU limits are read once.
ReindexOptions resolved(const ReindexOptions& options) {
  ReindexOptions o = options;
  o.now_ms = clock_ms(o.now_ms);
  if (o.threads == 0) o.threads = usable_cpus();
  return o;
}

}  // namespace

int reindex_one(const std::string& dir, const ReindexOptions& options, const TopicSettings& settings,
                const safe::DirLock& lock, Sink& out, Sink& err, bool* changed) {
  const PartitionJob job{dir, std::nullopt, ""};
  if (changed == nullptr) return reindex_partition(job, settings, resolved(options), &lock, out, err, nullptr);
  nlohmann::json report = nlohmann::json::array();  // the JSON report's entry says what was done
  const int rc = reindex_partition(job, settings, resolved(options), &lock, out, err, &report);
  // Anything but a partition left as it was, with nothing to say, counts as a change to look at again.
  const auto& last = report.empty() ? nlohmann::json() : report.back();
  *changed = !last.is_object() || last.value("status", "") != "unchanged" ||
             (last.contains("problems") && !last["problems"].empty());
  return rc;
}

int run_reindex(const ReindexOptions& options, Sink& out, Sink& err) {
  const ReindexOptions o = resolved(options);
  auto settings = open_settings(o);
  if (!settings.ok()) return report_failure("kseg-reindex", settings.error(), err);
  // Several partitions (a log dir) are repaired kWorkers at a time, so that
  // their fsyncs overlap (a log dir's repair takes a third of the time:
  // tests/bench/README.md, "Measurements behind the code").
  constexpr size_t kWorkers = 8;
  auto one = [&](const PartitionJob& job, const safe::DirLock* lock, Sink& job_out, Sink& job_err,
                 nlohmann::json* report) {
    return reindex_partition(job, **settings, o, lock, job_out, job_err, report);
  };
  return run_partitions("kseg-reindex", o, out, err, one,
                        RunShape{.segment_files = true, .threads = kWorkers, .byte_progress = true});
}

}  // namespace kseg
