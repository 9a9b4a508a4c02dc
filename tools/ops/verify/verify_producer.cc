#include "tools/ops/verify/verify_producer.h"

#include <algorithm>

#include <fmt/format.h>

#include "lib/mapped_file.h"

namespace kseg {

std::vector<SnapshotFile> read_snapshots(const std::vector<std::pair<int64_t, std::string>>& files, Findings& f) {
  std::vector<SnapshotFile> out;
  for (const auto& [offset, path] : files) {
    auto mf = MappedFile::open(path);
    if (!mf.ok()) {
      f.io_error(path, mf.error().message);
      continue;
    }
    auto& fr = f.file(path, "snapshot");
    fr.size_bytes = fr.checked_bytes = mf->size();
    auto snap = producer_snapshot::read(mf->bytes());
    if (!snap.ok()) {
      const auto& e = snap.error();
      if (e.code == Errc::bad_crc) {
        auto raw = producer_snapshot::decode(mf->bytes());
        f.add(Code::snapshot_crc, path, e.position, e.message, fmt::format("0x{:08x}", raw.ok() ? raw->crc : 0u),
              fmt::format("0x{:08x}", producer_snapshot::compute_crc(mf->bytes())));
      } else {
        f.add(Code::snapshot_corrupt, path, e.position, e.message);
      }
      continue;
    }
    fr.entries = static_cast<int64_t>(snap->entries.size());
    out.push_back(SnapshotFile{path, offset, std::move(snap->entries)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return out;
}

ProducerReplay::ProducerReplay(std::vector<SnapshotFile> snapshots, int64_t start_offset)
    : snapshots_(std::move(snapshots)), start_offset_(start_offset), next_offset_(start_offset) {
  seeded_ = start_offset == 0;
  for (auto& s : snapshots_) {
    for (const auto& e : s.entries) {
      if (e.has_batch_metadata()) watched_.push_back(e.last_offset);
      if (e.has_open_txn()) watched_.push_back(e.current_txn_first_offset);
    }
    if (s.offset != start_offset) continue;
    for (const auto& e : s.entries)
      if (e.has_open_txn()) producers_[e.producer_id].open_txn_first = e.current_txn_first_offset;
    seeded_ = true;
  }
  std::sort(watched_.begin(), watched_.end());
  watched_.erase(std::unique(watched_.begin(), watched_.end()), watched_.end());
  covered_.assign(watched_.size(), false);
}

void ProducerReplay::cover(const BatchInfo& b) {
  if (b.magic >= 2) {
    if (b.first_offset > next_offset_) compacted_ = true;
    next_offset_ = std::max(next_offset_, b.last_offset + 1);
  }
  for (auto it = std::lower_bound(watched_.begin(), watched_.end(), b.first_offset);
       it != watched_.end() && *it <= b.last_offset; ++it)
    covered_[static_cast<size_t>(it - watched_.begin())] = true;
}

bool ProducerReplay::removed(int64_t offset) const {
  auto it = std::lower_bound(watched_.begin(), watched_.end(), offset);
  return it != watched_.end() && *it == offset && !covered_[static_cast<size_t>(it - watched_.begin())];
}

void ProducerReplay::apply(const BatchInfo& b) {
  if (b.magic < 2 || b.producer_id < 0 || !b.crc_ok) return;
  Producer& p = producers_[b.producer_id];
  if (!b.control) {
    if (b.transactional && p.open_txn_first < 0) {
      p.open_txn_first = b.first_offset;
      p.data_floor = p.has_batch ? p.last.last_offset : -1;
    }
    p.has_batch = true;
    p.last = b;
    return;
  }
  if (b.records_count < 1 || (b.control_type != 0 && b.control_type != 1)) return;
  if (b.control_type == 0) {
    // LSO: the first ongoing transaction of another producer, by first offset.
    int64_t lso = b.first_offset + 1;
    for (const auto& [pid, other] : producers_)
      if (pid != b.producer_id && other.open_txn_first >= 0) lso = std::min(lso, other.open_txn_first);
    const int64_t floor = p.open_txn_first >= 0 ? p.data_floor : (p.has_batch ? p.last.last_offset : -1);
    aborts_.push_back({{0, b.producer_id, p.open_txn_first, b.first_offset, lso}, floor});
  }
  p.open_txn_first = -1;
}

void ProducerReplay::batch(const BatchInfo& b, Findings& f) {
  compare_snapshots_below(b.first_offset, f);
  cover(b);
  apply(b);
}

void ProducerReplay::end_segment(const SegmentScan& s, const std::string& txn_path, Findings& f) {
  check_txn_index(txn_path, s, aborts_, seeded_, compacted_, f);
  aborts_.clear();
}

void ProducerReplay::finish(int64_t log_end_offset, bool tail_damaged, Findings& f) {
  compare_snapshots_below(log_end_offset, f);
  // Above a damaged tail the snapshot is the damage's consequence, reported once.
  for (auto& snap : snapshots_)
    if (!snap.compared && snap.offset > log_end_offset && !tail_damaged)
      f.add(Code::snapshot_past_log_end, snap.path, std::nullopt, "snapshot offset above the log end offset",
            fmt::format("<= {}", log_end_offset), std::to_string(snap.offset));
}

void ProducerReplay::compare_snapshots_below(int64_t offset, Findings& f) {
  for (auto& snap : snapshots_)
    if (!snap.compared && snap.offset <= offset && snap.offset >= start_offset_) {
      snap.compared = true;
      compare(snap, f);
    }
}

// Only entries whose last batch lies in the replayed part of the log can be
// judged; older producers' batches are gone (retention). The cleaner keeps a
// producer's last batch as of the cleaning, not as of an older snapshot, so a
// snapshot may name a batch (or an open transaction's first batch) since
// removed: an offset no batch holds any more, with nothing later in its place.
void ProducerReplay::compare(SnapshotFile& snap, Findings& f) {
  for (size_t i = 0; i < snap.entries.size(); ++i) {
    const auto& e = snap.entries[i];
    const Position at{producer_snapshot::kHeaderSize + static_cast<int64_t>(i) * producer_snapshot::kEntrySize};
    auto it = producers_.find(e.producer_id);
    if (e.has_batch_metadata() && e.last_offset >= start_offset_) {
      const bool have = it != producers_.end() && it->second.has_batch;
      const BatchInfo* b = have ? &it->second.last : nullptr;
      const bool cleaned = removed(e.last_offset) && (!b || b->last_offset < e.last_offset);
      if (!cleaned && (!b || b->last_offset != e.last_offset || b->last_sequence != e.last_sequence ||
                       b->last_offset_delta != e.offset_delta))
        f.add(Code::snapshot_mismatch, snap.path, at,
              fmt::format("producer {}: last batch differs from the log", e.producer_id),
              b ? fmt::format("lastOffset {}, lastSequence {}, offsetDelta {}", b->last_offset, b->last_sequence,
                              b->last_offset_delta)
                : std::string("no batch of this producer"),
              fmt::format("lastOffset {}, lastSequence {}, offsetDelta {}", e.last_offset, e.last_sequence,
                          e.offset_delta));
    }
    const int64_t open = it == producers_.end() ? -1 : it->second.open_txn_first;
    const bool cleaned = e.has_open_txn() && removed(e.current_txn_first_offset) &&
                         (open < 0 || open > e.current_txn_first_offset);
    if (seeded_ && e.current_txn_first_offset != open && !cleaned)
      f.add(Code::snapshot_mismatch, snap.path, at,
            fmt::format("producer {}: ongoing transaction differs from the log", e.producer_id),
            std::to_string(open), std::to_string(e.current_txn_first_offset));
  }
}

}  // namespace kseg
