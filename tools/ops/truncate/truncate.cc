// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/truncate/truncate.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/file_names.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/topic_settings.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

nlohmann::json to_json(const TruncatePlan& plan, const std::string& status) {
  nlohmann::json j;
  j["partition"] = plan.partition_dir;
  j["status"] = status;
  j["summary"] = plan.summary;
  j["log_end_offset"] = {{"before", plan.old_end}, {"after", plan.new_end}};
  j["log_start_offset"] = {{"before", plan.old_start}, {"after", plan.new_start}};
  j["bytes_freed"] = plan.bytes_freed;
  if (plan.note) j["problems"].push_back(nlohmann::json(problem_json(*plan.note)));
  j["checkpoints"] = nlohmann::json::array();
  for (const auto& c : plan.checkpoints) {
    nlohmann::json l{{"file", c.file}};
    l["before"] = c.before ? nlohmann::json(*c.before) : nlohmann::json(nullptr);
    l["after"] = c.after ? nlohmann::json(*c.after) : nlohmann::json(nullptr);
    j["checkpoints"].push_back(std::move(l));
  }
  j["actions"] = nlohmann::json::array();
  for (const safe::Plan* p : {&plan.first, &plan.main}) append_actions_json(*p, j["actions"]);
  if (!plan.journal_bytes.empty())
    j["actions"].insert(j["actions"].begin(), nlohmann::json{{"path", plan.partition_dir + "/" + kTruncateJournal},
                                                              {"action", "write"},
                                                              {"why", "what this run changes first, for a re-run"}});
  if (plan.marker) j["actions"].push_back({{"path", log_dir_of(plan.partition_dir) + "/" + kCleanShutdownFile},
                                           {"action", "write"},
                                           {"why", "the clean-shutdown marker, written back once the cut is durable"}});
  if (plan.journal)
    j["actions"].push_back({{"path", plan.partition_dir + "/" + kTruncateJournal}, {"action", "remove"},
                            {"why", "the cut is complete"}});
  return j;
}

// The readable offsets a cut takes away: [old_start, old_end) less
// [new_start, new_end), as the part below the new log start and the part
// past the new end (none below the old log start: they were not readable).
struct RemovedOffsets {
  int64_t below_from = 0, below_to = 0;  // [from, to): below the new log start
  int64_t end_from = 0, end_to = 0;      // [from, to): past the new end
  explicit RemovedOffsets(const TruncatePlan& p)
      : below_from(p.old_start), below_to(std::max(p.old_start, std::min(p.new_start, p.old_end))),
        end_from(std::max(p.new_end, below_to)), end_to(std::max(end_from, p.old_end)) {}
  int64_t count() const { return (below_to - below_from) + (end_to - end_from); }
};

// "offsets 10..76 (67)", "offsets 0..49 below the new log start (50)", both, or "no offsets".
std::string removed_text(const TruncatePlan& p) {
  const RemovedOffsets r(p);
  std::vector<std::string> parts;
  if (r.end_to > r.end_from) parts.push_back(fmt::format("offsets {}..{} ({})", r.end_from, r.end_to - 1, r.end_to - r.end_from));
  if (r.below_to > r.below_from)
    parts.push_back(fmt::format("offsets {}..{} below the new log start ({})", r.below_from, r.below_to - 1,
                                r.below_to - r.below_from));
  if (parts.empty()) return "no offsets";
  return parts.size() == 1 ? parts[0] : parts[0] + " and " + parts[1];
}

// A cut's share of the run's total.
void tally_plan(RunTally& t, const TruncatePlan& p) { t.add(RemovedOffsets(p).count(), p.bytes_freed); }

// --retention: this partition's retention settings into `o`, said in text
// under --dry-run or -v and in JSON always; an exit status when they cannot be read.
std::optional<int> topic_retention(const std::string& dir, const TopicSettings& settings, TruncateOptions& o,
                                   std::map<std::string, Setting>& used, Sink& out, Sink& err, nlohmann::json* report) {
  auto found = settings.lookup_partition(dir, kRetentionSettingKeys);
  Result<int64_t> ms = found.ok() ? setting_number(*found, "retention.ms", -1, INT64_MAX) : found.error();
  Result<int64_t> bytes = found.ok() ? setting_number(*found, "retention.bytes", -1, INT64_MAX) : found.error();
  for (const auto* r : {&ms, &bytes})
    if (!r->ok()) {
      err.print("kseg-truncate: {}: {}\n", dir, error_text(r->error()));
      if (report) report->push_back(error_json(dir, r->error()));
      return exit_code_for(r->error().code);
    }
  o.retention_ms = *ms;
  o.retention_bytes = *bytes;
  used = *found;
  // A topic's setting kept where kseg does not look (a metadata log in
  // another directory, a ZooKeeper cluster) would be missed: said.
  std::error_code ec;
  const bool metadata_log = fs::is_directory(fs::path(log_dir_of(dir)) / "__cluster_metadata-0", ec);
  for (const auto& [k, v] : used)
    if (v.source == "default" && !metadata_log && o.broker_config.empty())
      err.print("kseg-truncate: WARNING {}: {} is Kafka's default ({}): no KRaft metadata log in the log dir, and no file "
                "sets it (--topic-config, --broker-config)\n", dir, k, v.value);
  if (!report && (o.dry_run || o.verbose)) out.print("{}: settings: {}\n", dir, settings_line(*found));
  return std::nullopt;
}

// `settings`: with --retention, where this partition's come from (those
// used go into `used`).
int truncate_partition(const std::string& dir, const TruncateOptions& options, const TopicSettings* settings,
                       std::map<std::string, Setting>& used, const safe::DirLock* lock, Sink& out, Sink& err,
                       nlohmann::json* report, RunTally* tally) {
  TruncateOptions o = options;
  if (settings)
    if (auto rc = topic_retention(dir, *settings, o, used, out, err, report)) return *rc;
  auto plan = plan_truncate(dir, o);
  if (!plan.ok()) {
    // Read as zeros past a shrink: exit_after_run names the file; the data error would mislead.
    if (!file_shrink()) err.print("kseg-truncate: {}\n", error_text(plan.error()));
    if (report) report->push_back(error_json(dir, plan.error()));
    return exit_code_for(plan.error().code);
  }
  const bool text = report == nullptr;
  if (plan->note) err.print("kseg-truncate: {}\n", problem_text(*plan->note));
  if (text && o.verbose) {
    if (!plan->journal_bytes.empty())
      out.print("{}/{}: write: what this run changes first, for a re-run after an interruption\n", dir, kTruncateJournal);
    safe::print_plan(plan->first, out);
    safe::print_plan(plan->main, out);
    if (plan->marker)
      out.print("{}/{}: write back: the clean-shutdown marker, once the cut is durable\n", log_dir_of(dir),
                kCleanShutdownFile);
    if (plan->journal) out.print("{}/{}: remove: at the end\n", dir, kTruncateJournal);
  }
  if (!plan->changes()) {
    if (text) out.print("{}; nothing to change\n", plan->summary);
    else report->push_back(to_json(*plan, "unchanged"));
    return kExitOk;
  }
  if (o.dry_run) {
    if (tally) tally_plan(*tally, *plan);
    if (text)
      out.print("{}: dry run: {}; log end {} -> {}, log start {} -> {}; removes {}; frees {} ({} bytes; with a "
                "backup, once it is removed); nothing written\n",
                dir, plan->what, plan->old_end, plan->new_end, plan->old_start, plan->new_start, removed_text(*plan),
                human_bytes(plan->bytes_freed), plan->bytes_freed);
    else report->push_back(to_json(*plan, "planned"));
    return kExitProblems;  // as diff(1): 1 when the run would change something
  }
  out.flush();
  if (lock == nullptr) {
    err.print("kseg-truncate: {}: no lock held on its log dir\n", dir);
    return kExitIo;
  }
  safe::Space space;
  safe::ApplyOptions ao{false, o.backup, o.backup_dir, "", &space};
  std::string backup;
  // The journal first (durable before the marker goes), then recovery is
  // armed, then the cut.
  safe::Plan journal_plan;
  journal_plan.partition_dir = dir;
  if (!plan->journal_bytes.empty())
    journal_plan.actions.push_back(safe::Action::write(kTruncateJournal, plan->journal_bytes, "journal"));
  for (const safe::Plan* p : {&journal_plan, &plan->first, &plan->main}) {
    auto applied = safe::apply(*p, ao, *lock);
    if (!applied.ok()) {
      err.print("kseg-truncate: {}: {}\n", dir, applied.error().message);
      if (report) report->push_back(error_json(dir, applied.error()));
      return kExitIo;
    }
    if (!applied->empty()) ao.backup_into = backup = *applied;
  }
  // Once the cut is durable: the marker back, then the journal gone.
  safe::Plan marker, journal;
  marker.partition_dir = journal.partition_dir = dir;
  if (plan->marker)
    marker.actions.push_back(safe::Action::write(kCleanShutdownFile, *plan->marker, "written back").in_log_dir());
  if (plan->journal) journal.actions.push_back(safe::Action::remove(kTruncateJournal, "the cut is complete"));
  for (const safe::Plan* p : {&marker, &journal}) {
    auto applied = safe::apply(*p, safe::ApplyOptions{false, false, "", "", &space}, *lock);
    if (!applied.ok()) {
      err.print("kseg-truncate: {}: {} (the log dir now loads as after an unclean shutdown; run again to finish)\n",
                dir, applied.error().message);
      if (report) report->push_back(error_json(dir, applied.error()));
      return kExitIo;
    }
  }
  if (tally) tally_plan(*tally, *plan);
  if (text)
    out.print("{}: applied: {}; log end {} -> {}, log start {} -> {}; removed {}; {}\n", dir, plan->what, plan->old_end,
              plan->new_end, plan->old_start, plan->new_start, removed_text(*plan), space_text(space, backup));
  else {
    auto j = to_json(*plan, "applied");
    if (!backup.empty()) j["backup"] = backup;
    j["space"] = space_json(space);
    report->push_back(std::move(j));
  }
  return kExitOk;
}

}  // namespace

int run_truncate(const TruncateOptions& options, Sink& out, Sink& err) {
  TruncateOptions o = options;
  o.now_ms = clock_ms(o.now_ms);
  std::shared_ptr<TopicSettings> settings;
  if (o.topic_retention) {
    SettingsFiles files{o.topic_config, o.broker_config, {}};
    if (o.retention_ms) files.overrides.emplace_back("retention.ms", std::to_string(*o.retention_ms));
    if (o.retention_bytes) files.overrides.emplace_back("retention.bytes", std::to_string(*o.retention_bytes));
    auto opened = TopicSettings::open(std::move(files));
    if (!opened.ok()) return report_failure("kseg-truncate", opened.error(), err);
    settings = *opened;
  }
  RunTally tally;
  auto one = [&](const PartitionJob& job, const safe::DirLock* lock, Sink& job_out, Sink& job_err,
                 nlohmann::json* report) {
    const size_t before = report ? report->size() : 0;
    std::map<std::string, Setting> used;
    const int rc = truncate_partition(job.dir, o, settings.get(), used, lock, job_out, job_err, report, &tally);
    // The settings a --retention run used, in the partition's report.
    if (report && report->size() > before && !used.empty()) report->back()["settings"] = settings_json(used);
    return rc;
  };
  const int rc = run_partitions("kseg-truncate", o, out, err, one);
  tally.print(o, out, o.dry_run ? "would be cut" : "cut", "offsets", o.dry_run ? " of log; nothing written" : " of log");
  return rc;
}

}  // namespace kseg
