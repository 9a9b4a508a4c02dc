#include "tools/ops/verify/verify_partition.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "tools/ops/verify/verify_index.h"
#include "tools/ops/verify/verify_producer.h"
#include "tools/ops/verify/verify_state.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

struct Layout {
  std::map<int64_t, std::map<FileKind, std::string>> segments;  // base -> kind -> path
  std::vector<std::pair<int64_t, std::string>> snapshots;
  std::vector<std::string> kraft_snapshots;
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Names Kafka's loader treats specially (LogLoader, raft), without opening.
void classify(const std::string& dir, const std::string& name, Layout& l, Findings& f) {
  const std::string path = dir + "/" + name;
  if (name == "leader-epoch-checkpoint" || name == "partition.metadata" || name == "quorum-state") return;
  if (ends_with(name, ".tmp")) return f.add(Code::dir_leftover_tmp, path, Position{-1}, "interrupted atomic write");
  if (auto k = file_names::parse_kraft_snapshot_name(name); k.ok()) {
    if (k->state == file_names::SnapshotState::complete) l.kraft_snapshots.push_back(path);
    else if (k->state == file_names::SnapshotState::deleted)
      f.add(Code::dir_leftover_deleted, path, Position{-1}, "KRaft snapshot awaiting deletion");
    else f.add(Code::dir_leftover_tmp, path, Position{-1}, "partial KRaft snapshot");
    return;
  }
  auto n = file_names::parse_segment_file_name(name);
  if (!n.ok() || n->kind == FileKind::unknown) return f.add(Code::dir_unknown_file, path, Position{-1}, "unknown file");
  using file_names::TransientSuffix;
  if (n->transient == TransientSuffix::swap)
    return f.add(Code::dir_leftover_swap, path, Position{-1}, "cleaned segment not yet swapped in");
  if (n->transient == TransientSuffix::cleaned)
    return f.add(Code::dir_leftover_cleaned, path, Position{-1}, "output of an interrupted clean");
  if (n->transient == TransientSuffix::deleted)
    return f.add(Code::dir_leftover_deleted, path, Position{-1}, "awaiting asynchronous deletion");
  if (!n->canonical_prefix)
    f.add(Code::dir_file_name, path, Position{-1}, "the offset prefix is not 20 digits",
          file_names::offset_prefix(n->offset), name.substr(0, name.find('.')));
  if (n->kind == FileKind::snapshot) l.snapshots.emplace_back(n->offset.value, path);
  else l.segments[n->offset.value][n->kind] = path;
}

Layout list_partition(const std::string& dir, Findings& f) {
  Layout l;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  if (ec) f.io_error(dir, ec.message());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) classify(dir, n, l, f);
  for (auto it = l.segments.begin(); it != l.segments.end();) {
    if (it->second.count(FileKind::log)) { ++it; continue; }
    for (const auto& [kind, path] : it->second)
      f.add(Code::dir_orphan_index, path, Position{-1}, "index file without its .log; the broker deletes it");
    it = l.segments.erase(it);
  }
  return l;
}

// The segment's indexes, present or missing as Kafka would judge it: read
// before the scan, checked as its batches go by.
class SegmentIndexes {
 public:
  SegmentIndexes(const std::map<FileKind, std::string>& files, Offset base) {
    if (auto it = files.find(FileKind::index); it != files.end()) index_.emplace(it->second, base);
    if (auto it = files.find(FileKind::timeindex); it != files.end()) time_index_.emplace(it->second, base);
  }
  void batch(const BatchInfo& b) {
    if (index_) index_->batch(b);
    if (time_index_) time_index_->batch(b);
  }
  void finish(const SegmentScan& s, Findings& f) {
    const bool empty_log = s.file_size == 0;
    if (index_) index_->finish(s, f);
    else if (!empty_log) f.add(Code::index_missing, s.file, Position{-1}, "no .index; the broker rebuilds it at start-up");
    if (time_index_) time_index_->finish(s, f);
    else if (index_ && !empty_log)
      f.add(Code::timeindex_missing, s.file, Position{-1}, "no .timeindex; the broker creates an empty one");
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

void append(Findings& to, Findings& from) {
  for (auto& p : from.problems) to.problems.push_back(std::move(p));
  from.problems.clear();
}

}  // namespace

void verify_partition(const LogCheckOptions& opts, TargetResult& r) {
  Findings& f = r.findings;
  const std::string& dir = r.target.path;
  const std::string base = fs::path(dir).filename().string();
  const bool bad_name = base != "__cluster_metadata-0" && !file_names::parse_partition_dir_name(base).ok();
  if (bad_name)
    f.add(Code::dir_bad_name, dir, Position{-1}, "not <topic>-<partition>: the broker refuses to start",
          "<topic>-<partition>", base);
  Findings listing;
  Layout l = list_partition(dir, listing);
  // A stray directory with no Kafka file in it is one problem, not one per file.
  if (bad_name && l.segments.empty() && l.snapshots.empty() && l.kraft_snapshots.empty()) return;
  f.problems.insert(f.problems.end(), listing.problems.begin(), listing.problems.end());
  f.io_errors.insert(f.io_errors.end(), listing.io_errors.begin(), listing.io_errors.end());
  r.log_start = l.segments.empty() ? 0 : l.segments.begin()->first;
  ProducerReplay replay(read_snapshots(l.snapshots, f), r.log_start);
  EpochTracker epochs;
  SegmentScan prev;
  bool tail_damaged = false;
  r.log_end = r.log_start;
  for (auto it = l.segments.begin(); it != l.segments.end(); ++it) {
    SegmentScan s;
    s.file = it->second.at(FileKind::log);
    s.base_offset = Offset{it->first};
    s.last_segment = std::next(it) == l.segments.end();
    SegmentIndexes indexes(it->second, s.base_offset);
    // Findings of the replay and the epochs follow the segment's own.
    Findings replayed, epoch_changes;
    auto visit = [&](const BatchInfo& b) {
      indexes.batch(b);
      replay.batch(b, replayed);
      epochs.batch(b, s.file, epoch_changes);
    };
    if (!scan_segment(opts, s, f, visit)) continue;
    ++r.segments;
    indexes.finish(s, f);
    if (!prev.file.empty()) check_segment_order(prev, s, f);
    append(f, replayed);
    const auto txn = it->second.find(FileKind::txnindex);
    replay.end_segment(s, txn != it->second.end() ? txn->second
                                                  : dir + "/" + file_names::segment_file_name(s.base_offset, FileKind::txnindex),
                       f);
    append(f, epoch_changes);
    r.log_end = s.next_offset();
    tail_damaged = s.tail_damaged;
    prev = std::move(s);
  }
  replay.finish(r.log_end, tail_damaged, f);
  for (const auto& k : l.kraft_snapshots) {
    SegmentScan s;
    s.file = k;
    scan_segment(opts, s, f);
  }
  std::error_code ec;
  if (fs::exists(dir + "/leader-epoch-checkpoint", ec))
    check_leader_epoch_checkpoint(dir + "/leader-epoch-checkpoint", epochs, r.log_end, f);
  if (fs::exists(dir + "/partition.metadata", ec)) check_partition_metadata(dir + "/partition.metadata", f);
}

}  // namespace kseg
