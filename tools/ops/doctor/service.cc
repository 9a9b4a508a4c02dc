// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/service.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "lib/units.h"
#include "tools/ops/compact/compact.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/producer_start.h"
#include "tools/ops/truncate/truncate.h"
#include "tools/ops/truncate/truncate_input.h"

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

std::string LogDirs::of(const std::string& partition_dir) {
  const std::string parent = std::filesystem::path(partition_dir).parent_path().string();
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_parent_.find(parent);
  if (it == by_parent_.end()) it = by_parent_.emplace(parent, log_dir_of(partition_dir)).first;
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

// UnifiedLog.rebuildProducerState at the end of LogLoader.load: of the
// snapshots removeStraySnapshots keeps (and those recovering a segment
// writes at its end), with none after a clean shutdown it takes the log for
// one written before snapshots and rebuilds nothing; else it loads the
// newest it keeps and replays the batches after it. `loaded`: the state
// kseg's loader rebuilds at the log end (no snapshot: every producer in the log).
void producer_load(const ServiceContext& c, const Partition& p, const LoadedProducers& loaded, bool clean,
                   PartitionDoc& d) {
  const int64_t start = p.log_start();
  const int64_t end = d.startup ? d.startup->log_end_after : p.log_end;
  if (end <= start) return;
  std::set<int64_t> deleted, recovered;
  if (d.startup)
    for (const auto& f : d.startup->segments) {
      if (f.deleted) deleted.insert(f.base);
      else if (f.why != RecoverWhy::none) recovered.insert(f.base);
    }
  std::vector<int64_t> bases, offsets;
  for (const auto& seg : p.segments)
    if (!deleted.contains(seg.base)) bases.push_back(seg.base);
  for (const auto& [offset, name] : p.snapshots) offsets.push_back(offset);
  std::vector<int64_t> snapshots = snapshots_kept_of_strays(offsets, bases);
  for (size_t i = 0; i < bases.size(); ++i)  // LogLoader.recoverSegment snapshots the end of what it recovers
    if (recovered.contains(bases[i])) snapshots.push_back(i + 1 < bases.size() ? bases[i + 1] : end);
  const std::string dir = shell_word(p.dir);
  if (snapshots.empty() && clean) {
    // Those Kafka would still know: an open transaction, or a write within producer.id.expiration.ms.
    int64_t live = 0, open = 0;
    for (const auto& e : loaded.state.entries()) {
      open += e.has_open_txn();
      live += e.has_open_txn() || c.now_ms - e.timestamp_ms < c.producer_id_expiration_ms;
    }
    Problem pr = Problem::of(Code::snapshot_missing, p.dir, std::nullopt,
                             "no producer snapshot after a clean shutdown", fmt::format("a snapshot at {}", end), "none");
    if (live == 0) {
      pr.severity = Severity::info;
      add(d, std::move(pr),
          "rebuilds no producer state (it takes the log for one written before snapshots); no producer of the log has "
          "an open transaction or wrote within producer.id.expiration.ms, so nothing it would still know is forgotten",
          {}, true);
      return;
    }
    add(d, std::move(pr),
        fmt::format("takes the log for one written before snapshots and rebuilds no producer state: it forgets the {} "
                    "producer{} it would still know (a retried batch is appended again instead of refused as a "
                    "duplicate){}",
                    live, live == 1 ? "" : "s",
                    open == 0 ? ""
                              : fmt::format("; the last stable offset no longer waits for the {} open transaction{}",
                                            open, open == 1 ? "" : "s")),
        {{fmt::format("kseg reindex --producer-state {}", dir), "nothing (.txnindex and snapshots only)"}}, false);
    return;
  }
  std::optional<int64_t> from_snapshot;
  for (int64_t o : snapshots)
    if (loader_keeps_snapshot(o, start, end) && (!from_snapshot || o > *from_snapshot)) from_snapshot = o;
  const int64_t from = from_snapshot.value_or(start);
  // The bytes replayed: the segments from the one holding `from`, but those recovered (read by the recovery).
  int64_t bytes = 0;
  for (const auto& seg : p.segments)
    if (seg.base >= segment_of(p, from).base && !deleted.contains(seg.base) && !recovered.contains(seg.base) &&
        seg.base < end)
      bytes += seg.size;
  if (from >= end || bytes == 0) return;
  std::string file = p.dir;
  for (const auto& [offset, name] : p.snapshots)
    if (from_snapshot && offset == *from_snapshot) file = p.dir + "/" + name;
  Problem pr = Problem::of(Code::snapshot_stale, file, std::nullopt,
                           from_snapshot ? fmt::format("the newest snapshot Kafka's load keeps is at {}, below the log end {}",
                                                       *from_snapshot, end)
                                         : fmt::format("no producer snapshot Kafka's load keeps, below the log end {}", end),
                           fmt::format("a snapshot at {}", end), from_snapshot ? std::to_string(*from_snapshot) : "none");
  add(d, std::move(pr),
      fmt::format("replays the log from offset {} to {} ({} of segments) to rebuild its producer state at start-up",
                  from, end, human_bytes(bytes)),
      {{fmt::format("kseg reindex --producer-state {}", dir), "nothing; spares the replay"}}, true);
}

// The transactions open at the log end of the state Kafka's loader rebuilds
// (kseg-txn's), judged as kseg-txn judges them.
void transactions(const ServiceContext& c, const Partition& p, const LoadedProducers& loaded, PartitionDoc& d) {
  std::vector<producer_snapshot::ProducerEntry> open;
  for (const auto& e : loaded.state.entries())
    if (e.has_open_txn()) open.push_back(e);
  if (open.empty()) return;
  std::sort(open.begin(), open.end(),
            [](const auto& a, const auto& b) { return a.current_txn_first_offset < b.current_txn_first_offset; });
  const TxnCoordinators& coordinators = c.coordinators.of(p.log_dir);
  for (const auto& t : open) {
    const int64_t first = t.current_txn_first_offset;
    const auto v = coordinators.judge(t.producer_id, t.timestamp_ms, p.topic, p.number, c.now_ms);
    const bool two_phase = v.verdict == "ongoing" && v.coordinator && v.coordinator->two_phase();
    if (v.verdict != "hanging" && v.verdict != "unverified" && !two_phase) continue;
    const int64_t held = d.log_end - first;
    const std::string holds = fmt::format(
        "the last stable offset stays at {} ({} offset{} behind the log end): read_committed consumers read no further, "
        "and the cleaner cleans nothing from there on",
        first, held, held == 1 ? "" : "s");
    if (two_phase) {  // ongoing on purpose: only its external coordinator, or an operator, ends it
      add(d,
          Problem::of(Code::txn_two_phase_open, segment_of(p, first).path(FileKind::log), std::nullopt,
                      fmt::format("producer {} epoch {} (transactional id {}): open from offset {} under two-phase "
                                  "commit, last write {} ago",
                                  t.producer_id, t.producer_epoch, v.coordinator->id, first,
                                  human_duration(c.now_ms - t.timestamp_ms))),
          "keeps it open until its external coordinator commits or aborts it (Kafka never times it out): " + holds,
          {{fmt::format("kafka-transactions.sh --bootstrap-server HOST:PORT forceTerminateTransaction "
                        "--transactionalId {}  # only if its application is gone for good",
                        shell_word(v.coordinator->id)),
            fmt::format("the transaction's records, offsets {} on: aborted, though its external coordinator may have "
                        "meant to commit them",
                        first)}},
          false);  // not in the plan: while its application lives, ending it breaks the external coordinator's commit
      continue;
    }
    Problem pr = Problem::of(v.verdict == "hanging" ? Code::txn_hanging : Code::txn_unverified,
                             segment_of(p, first).path(FileKind::log), std::nullopt,
                             fmt::format("producer {} epoch {}: open from offset {}, last write {} ago: {}", t.producer_id,
                                         t.producer_epoch, first, human_duration(c.now_ms - t.timestamp_ms), v.why));
    if (v.verdict == "hanging") {
      add(d, std::move(pr), "keeps it open for good (no coordinator will end it): " + holds,
          {{fmt::format("kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic {} --partition {} "
                        "--start-offset {}  # once the broker is up",
                        p.topic, p.number, first),
            "nothing: the transaction's records are aborted (read_committed consumers skip them)"}},
          false, true);
    } else {
      add(d, std::move(pr), "keeps it open until its coordinator writes a marker: " + holds,
          {{fmt::format("kseg txn LOG_DIR/__transaction_state-N {}  # with the log dir holding its coordinator's "
                        "partition",
                        shell_word(p.dir)),
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

// UnifiedLog.deleteOldSegments at the first retention check, by kseg-truncate's
// own rule (its retention plan, without the plan of files).
void retention(const ServiceContext& c, const Partition& p, const TargetResult& r, PartitionDoc& d) {
  auto found = c.settings.lookup(p.topic, p.log_dir, kRetentionSettingKeys);
  if (!found.ok()) return;
  auto ms = setting_number(*found, "retention.ms", -1, INT64_MAX);
  auto bytes = setting_number(*found, "retention.bytes", -1, INT64_MAX);
  if (!ms.ok() || !bytes.ok()) return;
  TruncateOptions o;
  o.mode = TruncateMode::retention;
  o.retention_ms = *ms;
  o.retention_bytes = *bytes;
  o.now_ms = c.now_ms;
  auto hw_line = checkpoint_line(p.log_dir, RootCheckpoint::replication, p.topic, p.number);
  if (!hw_line.ok()) return;
  const int64_t log_start = p.log_start();
  // The time indexes' last entries as kseg-verify read them (not read again), else read.
  auto largest = [&](size_t i) -> Result<int64_t> {
    const Segment& seg = p.segments[i];
    auto it = std::lower_bound(r.time_index_last.begin(), r.time_index_last.end(), std::make_pair(seg.base, std::optional<int64_t>()));
    if (it != r.time_index_last.end() && it->first == seg.base) return it->second.value_or(seg.mtime_ms);
    return largest_timestamp(seg);
  };
  auto n = truncation::retention_prefix(p, o, hw_line->value_or(p.log_end), log_start, largest);
  if (!n.ok() || *n == 0) return;
  const int64_t new_start = truncation::start_after_prefix(p, *n, log_start);
  int64_t freed = 0;
  for (size_t i = 0; i < *n; ++i) freed += p.segments[i].size;
  if (new_start <= log_start) return;
  Problem pr = Problem::of(Code::retention_due, p.dir, std::nullopt,
                           fmt::format("offsets {}..{} ({}) past retention: {}", log_start, new_start - 1,
                                       human_bytes(freed), settings_line(*found)));
  add(d, std::move(pr),
      fmt::format("deletes what breaches retention at its first retention check, 30 s after start-up "
                  "(log.initial.task.delay.ms): offsets {}..{}, {}",
                  log_start, new_start - 1, human_bytes(freed)),
      {{fmt::format("kseg truncate --retention{} {}", with_config(c), shell_word(p.dir)),
        fmt::format("the same offsets; frees {} now", human_bytes(freed))}},
      true);
}

}  // namespace

void in_service(const ServiceContext& c, const Partition& p, const TargetResult& r, bool clean, PartitionDoc& d) {
  // Kafka serves none of it: a partition it fails to load, deletes whole or sets aside as a stray.
  if (p.segments.empty() || p.topic.empty() || p.topic == "__cluster_metadata" || d.stray) return;
  if (d.startup && (d.startup->fails || d.startup->deletes_all)) return;
  if (auto loaded = load_producers(p, ProducerExpiry{c.now_ms, c.producer_id_expiration_ms}); loaded.ok()) {
    producer_load(c, p, *loaded, clean, d);
    transactions(c, p, *loaded, d);
  }  // else a snapshot or segment that cannot be read: kseg-verify reports it
  auto outlook = cleaner_outlook(p.dir, p.topic, p.log_dir, c.settings, c.now_ms, true);
  if (!outlook.ok()) return;  // the policy unreadable: kseg-verify and the settings' own errors say why
  cleaner_pick(c, p, *outlook, d);
  if (outlook->deletes) retention(c, p, r, d);
}

}  // namespace kseg::doctor
