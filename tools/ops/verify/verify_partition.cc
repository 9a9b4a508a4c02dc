// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_partition.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/verify/verify_index.h"
#include "tools/ops/verify/verify_producer.h"
#include "tools/ops/verify/verify_state.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

// The listing's leftovers as findings, in name order (orphaned indexes last).
void report_layout(const std::string& dir, const PartitionLayout& l, Findings& f) {
  std::vector<std::pair<std::string, int>> named;  // name, index into leftovers (-1: odd prefix)
  for (size_t i = 0; i < l.leftovers.size(); ++i)
    if (l.leftovers[i].kind != Leftover::orphan_index) named.emplace_back(l.leftovers[i].name, static_cast<int>(i));
  for (const auto& n : l.odd_prefixes) named.emplace_back(n, -1);
  std::stable_sort(named.begin(), named.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [name, i] : named) {
    const std::string path = dir + "/" + name;
    if (i < 0) {
      f.add(Code::dir_file_name, path, std::nullopt, "the offset prefix is not 20 digits",
            file_names::offset_prefix(*file_names::offset_from_file_name(name)), name.substr(0, name.find('.')));
      continue;
    }
    switch (l.leftovers[static_cast<size_t>(i)].kind) {
      case Leftover::tmp: f.add(Code::dir_leftover_tmp, path, std::nullopt, "interrupted atomic write"); break;
      case Leftover::kraft_deleted:
        f.add(Code::dir_leftover_deleted, path, std::nullopt, "KRaft snapshot awaiting deletion");
        break;
      case Leftover::kraft_partial: f.add(Code::dir_leftover_tmp, path, std::nullopt, "partial KRaft snapshot"); break;
      case Leftover::swap:
        f.add(Code::dir_leftover_swap, path, std::nullopt, "cleaned segment not yet swapped in");
        break;
      case Leftover::cleaned:
        f.add(Code::dir_leftover_cleaned, path, std::nullopt, "output of an interrupted clean");
        break;
      case Leftover::deleted:
        f.add(Code::dir_leftover_deleted, path, std::nullopt, "awaiting asynchronous deletion");
        break;
      case Leftover::kseg_tmp:
        f.add(Code::dir_leftover_kseg_tmp, path, std::nullopt,
              name.ends_with(file_names::kKsegJournalSuffix)
                  ? "an interrupted kseg-truncate's journal (it holds the clean-shutdown marker and recovery point "
                    "it moved aside): run the same kseg-truncate command again to finish the cut"
                  : "an interrupted kseg writer's new file: remove it, or re-run the tool, which replaces it");
        break;
      case Leftover::unknown: f.add(Code::dir_unknown_file, path, std::nullopt, "unknown file"); break;
      case Leftover::orphan_index: break;
    }
  }
  for (const auto& [name, what] : l.not_files)
    f.add(Code::dir_not_a_file, dir + "/" + name, std::nullopt,
          fmt::format("{}, not a regular file: the broker cannot open it as the file its name says", what),
          "a regular file", what);
  for (const auto& b : l.kseg_backups)
    f.add(Code::dir_kseg_backup, dir + "/" + b, std::nullopt,
          "the originals a kseg repair replaced: remove the directory once the repair is confirmed");
  for (const auto& o : l.leftovers)
    if (o.kind == Leftover::orphan_index)
      f.add(Code::dir_orphan_index, dir + "/" + o.name, std::nullopt, "index file without its .log; the broker deletes it");
}

// The segment's indexes, present or missing as Kafka would judge it: read
// before the scan, checked as its batches go by.
class SegmentIndexes {
 public:
  SegmentIndexes(const std::string& dir, const SegmentFiles& files, Offset base) {
    if (auto it = files.names.find(FileKind::index); it != files.names.end()) {
      const auto log = files.names.find(FileKind::log);
      index_.emplace(dir + "/" + it->second, base, log != files.names.end() ? dir + "/" + log->second : "");
    }
    if (auto it = files.names.find(FileKind::timeindex); it != files.names.end())
      time_index_.emplace(dir + "/" + it->second, base);
  }
  void batch(const BatchInfo& b) {
    if (index_) index_->batch(b);
    if (time_index_) time_index_->batch(b);
  }
  std::optional<int64_t> last_timestamp() const { return time_index_ ? time_index_->last_timestamp() : std::nullopt; }
  bool has_time_index() const { return time_index_.has_value(); }
  void finish(const SegmentScan& s, Findings& f) {
    const bool empty_log = s.file_size.bytes == 0;
    if (index_) index_->finish(s, f);
    else if (!empty_log) f.add(Code::index_missing, s.file, std::nullopt, "no .index; the broker rebuilds it at start-up");
    if (time_index_) time_index_->finish(s, f);
    else if (index_ && !empty_log)
      f.add(Code::timeindex_missing, s.file, std::nullopt, "no .timeindex; the broker creates an empty one");
  }

 private:
  std::optional<OffsetIndexCheck> index_;
  std::optional<TimeIndexCheck> time_index_;
};

void check_segment_order(const SegmentScan& prev, const SegmentScan& cur, Findings& f) {
  if (prev.batch_count == 0) return;
  const auto& last = prev.last_batch;
  if (last.last_offset >= cur.base_offset.value)
    f.add(Code::log_offset_order, prev.file, Position{last.position},
          "last batch reaches into the next segment's offsets", fmt::format("< {}", cur.base_offset),
          std::to_string(last.last_offset));
}

void append(Findings& to, Findings& from) { to.take_all(from); }

}  // namespace

void verify_partition(const LogCheckOptions& opts, TargetResult& r) {
  Findings& f = r.findings;
  const std::string& dir = r.target.path;
  const std::string base = fs::path(dir).filename().string();
  const bool bad_name = base != "__cluster_metadata-0" && !file_names::parse_partition_dir_name(base).ok();
  if (bad_name)
    f.add(Code::dir_bad_name, dir, std::nullopt, "not <topic>-<partition>: the broker refuses to start",
          "<topic>-<partition>", base);
  auto listed = read_partition_layout(dir, Unreadable::list);  // what is not a file is a finding
  if (!listed.ok()) f.io_error(dir, listed.error().message);
  if (listed.ok()) r.listed = std::move(*listed);
  static const PartitionLayout kNone;
  const PartitionLayout& l = r.listed ? *r.listed : kNone;
  // A stray directory with no Kafka file in it is one problem, not one per file.
  if (bad_name && l.segments.empty() && l.snapshots.empty() && l.kraft_snapshots.empty()) return;
  report_layout(dir, l, f);
  r.log_start = l.segments.empty() ? 0 : l.segments.begin()->first.value;
  std::vector<std::pair<int64_t, std::string>> snapshots;
  for (const auto& [offset, name] : l.snapshots) snapshots.emplace_back(offset.value, dir + "/" + name);
  ProducerReplay replay(read_snapshots(snapshots, f), r.log_start);
  EpochTracker epochs;
  SegmentScan prev;
  bool tail_damaged = false;
  r.log_end = r.log_start;
  const bool loaded_as_is = active_indexes_loaded_as_is(dir);
  for (auto it = l.segments.begin(); it != l.segments.end(); ++it) {
    SegmentScan s;
    s.file = dir + "/" + it->second.names.at(FileKind::log);
    s.base_offset = it->first;
    s.last_segment = std::next(it) == l.segments.end();
    s.loaded_as_is = s.last_segment && loaded_as_is;
    SegmentIndexes indexes(dir, it->second, s.base_offset);
    // Findings of the replay and the epochs follow the segment's own.
    Findings replayed, epoch_changes;
    auto visit = [&](const BatchInfo& b) {
      indexes.batch(b);
      replay.batch(b, replayed);
      epochs.batch(b, s.file, epoch_changes);
    };
    const auto txn = it->second.names.find(FileKind::txnindex);
    const std::string txn_path =
        dir + "/" + (txn != it->second.names.end() ? txn->second : file_names::segment_file_name(s.base_offset, FileKind::txnindex));
    replay.begin_segment(txn_path, txn != it->second.names.end());
    if (!scan_segment(opts, s, f, visit)) continue;
    ++r.segments;
    if (indexes.has_time_index()) r.time_index_last.emplace_back(s.base_offset.value, indexes.last_timestamp());
    indexes.finish(s, f);
    if (!prev.file.empty()) check_segment_order(prev, s, f);
    append(f, replayed);
    replay.end_segment(s, txn_path, f);
    append(f, epoch_changes);
    r.log_end = s.next_offset();
    if (s.last_segment) r.last_segment_end = {s.base_offset.value, s.next_offset()};
    tail_damaged = s.tail_damaged;
    prev = std::move(s);
  }
  replay.finish(r.log_end, tail_damaged, f);
  for (const auto& k : l.kraft_snapshots) {
    SegmentScan s;
    s.file = dir + "/" + k;
    scan_segment(opts, s, f);
  }
  // The listing says which state files are there; a directory that could
  // not be listed is asked name by name.
  auto has = [&](const char* name) {
    std::error_code ec;
    return listed.ok() ? l.state_files.contains(name) : fs::exists(dir + "/" + name, ec);
  };
  if (has("leader-epoch-checkpoint"))
    check_leader_epoch_checkpoint(dir + "/leader-epoch-checkpoint", epochs, r.log_end, f);
  if (has("partition.metadata")) check_partition_metadata(dir + "/partition.metadata", f);
  if (has("quorum-state")) check_quorum_state(dir + "/quorum-state", f);
}

}  // namespace kseg
