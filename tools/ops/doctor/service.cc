// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/service.h"

#include <fmt/format.h>

#include "lib/units.h"
#include "tools/ops/compact/compact.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/producer_start.h"
#include "tools/ops/truncate/truncate.h"

namespace kseg::doctor {

using file_names::FileKind;

const TxnCoordinators& Coordinators::of(const std::string& log_dir) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_dir_.find(log_dir);
  if (it == by_dir_.end()) {
    // One that cannot be read is judged as none (every open transaction
    // unverified); kseg-verify names what is wrong with it.
    auto c = TxnCoordinators::read(log_dir);
    it = by_dir_.emplace(log_dir, c.ok() ? std::move(*c) : TxnCoordinators{}).first;
  }
  return it->second;
}

namespace {

void add(PartitionDoc& d, Problem p, std::string kafka, std::vector<Fix> fixes, bool kafka_handles, bool by_hand = false) {
  ++d.counts[static_cast<size_t>(p.severity)];
  d.findings.push_back(Finding{std::move(p), std::move(kafka), std::move(fixes), kafka_handles, by_hand});
}

// The segment holding `offset` (the last one at or below it; the first for one below them all).
const Segment& segment_of(const Partition& p, int64_t offset) {
  const Segment* s = &p.segments.front();
  for (const auto& seg : p.segments)
    if (seg.base <= offset) s = &seg;
  return *s;
}

std::string with_config(const ServiceContext& c) {
  return c.broker_config.empty() ? "" : " --broker-config " + shell_word(c.broker_config);
}

// UnifiedLog.rebuildProducerState at the load: with no snapshot it keeps
// after a clean shutdown it takes the log for one written before snapshots
// existed and rebuilds nothing; else it loads the newest one it keeps and
// replays every batch after it.
void producer_load(const Partition& p, const TargetResult& r, bool clean, PartitionDoc& d) {
  const int64_t start = p.log_start();
  const int64_t end = d.startup ? d.startup->log_end_after : p.log_end;
  if (end <= start) return;
  std::optional<int64_t> snapshot;
  std::string file = p.dir;
  for (const auto& [offset, name] : p.snapshots)
    if (loader_keeps_snapshot(offset, start, end)) {
      snapshot = offset;
      file = p.dir + "/" + name;
    }
  const int64_t from = snapshot.value_or(start);
  if (from >= end) return;
  const std::string dir = shell_word(p.dir);
  if (!snapshot && clean) {
    Problem pr = Problem::of(Code::snapshot_missing, p.dir, std::nullopt,
                             fmt::format("no producer snapshot in ({}, {}] after a clean shutdown", start, end),
                             fmt::format("a snapshot at {}", end), "none");
    if (r.producers == 0) {  // no idempotent or transactional batch: nothing to forget
      pr.severity = Severity::info;
      add(d, std::move(pr), "rebuilds no producer state (it takes the log for one written before snapshots); the log "
                            "has no idempotent or transactional batch, so nothing is forgotten",
          {}, true);
      return;
    }
    add(d, std::move(pr),
        fmt::format("takes the log for one written before snapshots and rebuilds no producer state: it forgets the {} "
                    "producer{} in the log{} (a retried batch is appended again instead of refused as a duplicate)",
                    r.producers, r.producers == 1 ? "" : "s",
                    r.open_txns.empty() ? ""
                                        : fmt::format(", and the {} open transaction{}, so the last stable offset no "
                                                      "longer waits for {}",
                                                      r.open_txns.size(), r.open_txns.size() == 1 ? "" : "s",
                                                      r.open_txns.size() == 1 ? "it" : "them")),
        {{fmt::format("kseg reindex --producer-state {}", dir), "nothing (.txnindex and snapshots only)"}}, false);
    return;
  }
  // The replay reads the segments from the one holding `from`.
  int64_t bytes = 0;
  const int64_t first = segment_of(p, from).base;
  for (const auto& seg : p.segments)
    if (seg.base >= first) bytes += seg.size;
  Problem pr = Problem::of(Code::snapshot_stale, file, std::nullopt,
                           snapshot ? fmt::format("the newest snapshot Kafka's load keeps is at {}, below the log end {}",
                                                  *snapshot, end)
                                    : fmt::format("no producer snapshot in ({}, {}]", start, end),
                           fmt::format("a snapshot at {}", end), snapshot ? std::to_string(*snapshot) : "none");
  add(d, std::move(pr),
      fmt::format("replays the log from offset {} to {} ({} of segments) to rebuild its producer state at start-up",
                  from, end, human_bytes(bytes)),
      {{fmt::format("kseg reindex --producer-state {}", dir), "nothing; spares the replay"}}, true);
}

// The transactions open at the log end, judged as kseg-txn judges them.
void transactions(const ServiceContext& c, const Partition& p, const TargetResult& r, PartitionDoc& d) {
  if (r.open_txns.empty()) return;
  const TxnCoordinators& coordinators = c.coordinators.of(p.log_dir);
  for (const auto& t : r.open_txns) {
    const auto v = coordinators.judge(t.producer_id, t.last_timestamp_ms, p.topic, p.number, c.now_ms);
    if (v.verdict != "hanging" && v.verdict != "unverified") continue;
    const int64_t held = d.log_end - t.first_offset;
    const int64_t age = c.now_ms - t.last_timestamp_ms;
    Problem pr = Problem::of(v.verdict == "hanging" ? Code::txn_hanging : Code::txn_unverified,
                             segment_of(p, t.first_offset).path(FileKind::log), std::nullopt,
                             fmt::format("producer {} epoch {}: open from offset {}, last write {} ago: {}", t.producer_id,
                                         t.producer_epoch, t.first_offset, human_duration(age), v.why));
    const std::string holds = fmt::format(
        "the last stable offset stays at {} ({} offset{} behind the log end): read_committed consumers read no further, "
        "and the cleaner cleans nothing from there on",
        t.first_offset, held, held == 1 ? "" : "s");
    if (v.verdict == "hanging") {
      add(d, std::move(pr), "keeps it open for good (no coordinator will end it): " + holds,
          {{fmt::format("kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic {} --partition {} "
                        "--start-offset {}  # once the broker is up",
                        p.topic, p.number, t.first_offset),
            "nothing: the transaction's records are aborted (read_committed consumers skip them)"}},
          false, true);
    } else {
      add(d, std::move(pr), "keeps it open until its coordinator writes a marker: " + holds,
          {{fmt::format("kseg txn <the log dir holding its __transaction_state partition> {}", shell_word(p.dir)),
            "nothing (reads only)"}},
          true);
    }
  }
}

// LogCleanerManager.grabFilthiestCompactedLog at the cleaner's next pass.
void cleaner_pick(const ServiceContext& c, const Partition& p, const CleanerOutlook& o, PartitionDoc& d) {
  if (!o.picked()) return;
  Problem pr = Problem::of(Code::cleaner_dirty, p.dir, std::nullopt,
                           fmt::format("dirty ratio {:.2f} ({} cleanable, offsets {}..{}, beside {} clean)", o.dirty_ratio,
                                       human_bytes(o.cleanable_bytes), o.first_dirty, o.first_uncleanable - 1,
                                       human_bytes(o.clean_bytes)),
                           fmt::format("<= {:.2f} (min.cleanable.dirty.ratio)", o.min_ratio),
                           fmt::format("{:.2f}", o.dirty_ratio));
  std::string frees = "what the cleaner removes";
  if (o.frees)
    frees = fmt::format("{} superseded record{}: frees {}{}", o.records_removed, o.records_removed == 1 ? "" : "s",
                        human_bytes(*o.frees), o.more_rounds ? " in its first round (the keys fill the map: more follow)" : "");
  add(d, std::move(pr),
      fmt::format("its cleaner picks the partition at its next pass (dirty ratio {:.2f} above {:.2f}); if the ratio "
                  "stays this high while the broker runs, the cleaner has stopped (log-cleaner.log says why)",
                  o.dirty_ratio, o.min_ratio),
      {{fmt::format("kseg compact --until-clean{} {}", with_config(c), shell_word(p.dir)), frees}}, true);
}

// UnifiedLog.deleteOldSegments at the first retention check.
void retention(const ServiceContext& c, const Partition& p, PartitionDoc& d) {
  auto found = c.settings.lookup_partition(p.dir, kRetentionSettingKeys);
  if (!found.ok()) return;
  auto ms = setting_number(*found, "retention.ms", -1, INT64_MAX);
  auto bytes = setting_number(*found, "retention.bytes", -1, INT64_MAX);
  if (!ms.ok() || !bytes.ok()) return;
  TruncateOptions o;
  o.mode = TruncateMode::retention;
  o.retention_ms = *ms;
  o.retention_bytes = *bytes;
  o.now_ms = c.now_ms;
  auto plan = plan_truncate(p.dir, o);
  if (!plan.ok() || plan->new_start <= plan->old_start) return;
  Problem pr = Problem::of(Code::retention_due, p.dir, std::nullopt,
                           fmt::format("offsets {}..{} ({}) past retention: {}", plan->old_start, plan->new_start - 1,
                                       human_bytes(plan->bytes_freed), settings_line(*found)));
  add(d, std::move(pr),
      fmt::format("deletes what breaches retention at its first retention check, 30 s after start-up "
                  "(log.initial.task.delay.ms): offsets {}..{}, {}",
                  plan->old_start, plan->new_start - 1, human_bytes(plan->bytes_freed)),
      {{fmt::format("kseg truncate --retention{} {}", with_config(c), shell_word(p.dir)),
        fmt::format("the same offsets; frees {} now", human_bytes(plan->bytes_freed))}},
      true);
}

}  // namespace

void in_service(const ServiceContext& c, const Partition& p, const TargetResult& r, bool clean, PartitionDoc& d) {
  if (p.segments.empty() || p.topic.empty() || p.topic == "__cluster_metadata") return;
  if (d.startup && (d.startup->fails || d.startup->deletes_all)) return;
  producer_load(p, r, clean, d);
  transactions(c, p, r, d);
  auto outlook = cleaner_outlook(p.dir, c.settings, c.now_ms, true);
  if (!outlook.ok()) return;  // what the cleaner cannot load, kseg-verify reports
  cleaner_pick(c, p, *outlook, d);
  if (outlook->deletes) retention(c, p, d);
}

}  // namespace kseg::doctor
