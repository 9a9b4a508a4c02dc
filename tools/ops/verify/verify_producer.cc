// SPDX-License-Identifier: Apache-2.0
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

// An offset gap before `b`: transactions open across it are marked, as
// their markers may have been in it. Before the snapshots below `b` are
// compared: a snapshot may lie inside the gap.
void ProducerReplay::note_gap(const BatchInfo& b) {
  if (b.magic < 2 || b.first_offset <= next_offset_) return;
  compacted_ = true;
  for (auto& [pid, p] : producers_)
    if (p.open_txn_first >= 0 && p.gap_begin < 0) {
      p.gap_begin = next_offset_;
      p.gap_end = b.first_offset;
    }
}

void ProducerReplay::cover(const BatchInfo& b) {
  if (b.magic >= 2) next_offset_ = std::max(next_offset_, b.last_offset + 1);
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
      p.gap_begin = p.gap_end = -1;
    }
    p.has_batch = true;
    p.last = b;
    return;
  }
  if (b.records_count < 1 || (b.control_type != 0 && b.control_type != 1)) return;
  if (b.control_type == 0) {
    // LSO: the first ongoing transaction of another producer, by first offset.
    int64_t lso = b.first_offset + 1, lso_without_gaps = b.first_offset + 1;
    for (const auto& [pid, other] : producers_)
      if (pid != b.producer_id && other.open_txn_first >= 0) {
        lso = std::min(lso, other.open_txn_first);
        if (other.gap_begin < 0) lso_without_gaps = std::min(lso_without_gaps, other.open_txn_first);
      }
    const int64_t floor = p.open_txn_first >= 0 ? p.data_floor : (p.has_batch ? p.last.last_offset : -1);
    ReplayedAbort r{{0, b.producer_id, p.open_txn_first, b.first_offset, lso}, floor};
    if (p.open_txn_first >= 0) {
      r.gap_begin = p.gap_begin;
      r.gap_end = p.gap_end;
    }
    r.lso_without_gaps = lso_without_gaps;
    aborts_.push_back(r);
  }
  p.open_txn_first = -1;
  p.gap_begin = p.gap_end = -1;
}

void ProducerReplay::begin_segment(const std::string& txn_path, bool listed) {
  entries_.clear();
  next_entry_ = 0;
  txn_file_.reset();
  if (!listed) return;  // most segments have none: no failed open for each
  auto mf = MappedFile::open(txn_path);
  if (!mf.ok()) return;
  mf->set_drop_page_cache(true);
  txn_file_ = std::move(*mf);
  txn_index::View v(txn_file_->bytes());
  for (int64_t i = 0; i < v.entry_count(); ++i) {
    const auto t = v.entry(i);
    if (t.version != txn_index::kCurrentVersion) break;
    if (!entries_.empty() && t.last_offset <= entries_.back().last_offset) break;  // reported by the check
    entries_.push_back(t);
  }
  entry_held_.assign(entries_.size(), false);
}

void ProducerReplay::pass_removed_markers(int64_t offset) {
  for (; next_entry_ < entries_.size() && entries_[next_entry_].last_offset < offset; ++next_entry_) {
    if (entry_held_[next_entry_]) continue;
    const auto& t = entries_[next_entry_];
    auto it = producers_.find(t.producer_id);
    // Only a transaction the log shows open there: then the marker was there.
    if (it == producers_.end() || it->second.open_txn_first < 0 || it->second.open_txn_first < t.first_offset) continue;
    aborts_.push_back({t, it->second.data_floor, true});
    it->second.open_txn_first = -1;
  }
}

void ProducerReplay::batch(const BatchInfo& b, Findings& f) {
  note_gap(b);
  compare_snapshots_below(b.first_offset, f);
  pass_removed_markers(b.first_offset);
  for (size_t i = next_entry_; i < entries_.size() && entries_[i].last_offset <= b.last_offset; ++i)
    if (entries_[i].last_offset >= b.first_offset) entry_held_[i] = true;
  cover(b);
  apply(b);
}

void ProducerReplay::end_segment(const SegmentScan& s, const std::string& txn_path, Findings& f) {
  pass_removed_markers(s.next_offset());
  check_txn_index(txn_path, txn_file_ ? &*txn_file_ : nullptr, s, aborts_, seeded_, compacted_, f);
  txn_file_.reset();
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
    // The log's transaction spans an offset gap that may have held its end.
    const bool gap = open >= 0 && it->second.gap_begin >= 0 &&
                     (!e.has_open_txn() || e.current_txn_first_offset >= it->second.gap_begin);
    if (seeded_ && e.current_txn_first_offset != open && !cleaned)
      f.add(gap ? Severity::warning : code_info(Code::snapshot_mismatch).severity, Code::snapshot_mismatch, snap.path,
            at,
            gap ? fmt::format("producer {}: ongoing transaction differs from the log, whose transaction from {} "
                              "spans the offset gap [{}, {}): its marker was presumably in the bytes removed there",
                              e.producer_id, open, it->second.gap_begin, it->second.gap_end)
                : fmt::format("producer {}: ongoing transaction differs from the log", e.producer_id),
            std::to_string(open), std::to_string(e.current_txn_first_offset));
  }
}

}  // namespace kseg
