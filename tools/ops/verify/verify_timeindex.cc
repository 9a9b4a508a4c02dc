// SPDX-License-Identifier: Apache-2.0
// .timeindex checks. Kafka appends (T, O) with T the segment's running max
// batch timestamp (strictly greater than the last entry's) and O the last
// offset of the earliest batch holding it, at each offset-index point and
// once more at roll/close with the segment's max.
#include <algorithm>

#include <fmt/format.h>

#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/verify/verify_index.h"

namespace kseg {

namespace {

bool all_zero(Bytes b) { return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; }); }

}  // namespace

std::optional<int64_t> TimeIndexCheck::last_timestamp() const {
  if (!view_) return std::nullopt;
  const int64_t n = view_->slot_count();
  if (n > 0 && view_->entry(n - 1).timestamp_ms >= 0) return view_->entry(n - 1).timestamp_ms;
  return std::nullopt;
}

TimeIndexCheck::TimeIndexCheck(std::string path, Offset base_offset) : index_(std::move(path)) {
  if (!index_.file) return;
  view_.emplace(index_.file->bytes(), base_offset);
  const time_index::View& v = *view_;
  index_.live = v.live_entry_count();
  if (index_.live == 1 && v.entry(0) == time_index::Entry{}) index_.live = 0;
  index_.scan_tail(v.slot_count(), time_index::kEntrySize);
  auto is_checked = [&](int64_t i) { return checked(i); };
  by_timestamp_ = SlotOrder(index_.used, is_checked, [&](int64_t i) { return v.entry(i).timestamp_ms; });
  by_offset_ = SlotOrder(index_.used, is_checked, [&](int64_t i) { return v.offset(i).value; });
  matched_.assign(static_cast<size_t>(index_.used), 0);
}

bool TimeIndexCheck::checked(int64_t slot) const {
  return slot < index_.live ||
         !all_zero(index_.file->bytes().subspan(static_cast<size_t>(slot * time_index::kEntrySize), time_index::kEntrySize));
}

void TimeIndexCheck::batch(const BatchInfo& b) {
  if (!view_ || b.max_timestamp <= (last_point_ ? last_point_->timestamp : time_index::kNoTimestamp)) return;
  const MaxPoint p{b.max_timestamp, b.first_offset, b.last_offset};
  last_point_ = p;
  const time_index::View& v = *view_;
  // Points rise strictly, so an entry's timestamp is met by one point at most.
  for (; next_ < by_timestamp_.size(); ++next_) {
    const int64_t slot = by_timestamp_[next_];
    const auto e = v.timestamp_offset(slot);
    if (e.timestamp_ms > p.timestamp) break;
    if (e.timestamp_ms < p.timestamp) continue;
    matched_[static_cast<size_t>(slot)] = 1;
    // Kafka < 3.8 stored the offset of the record with the max timestamp,
    // which lies inside the same batch.
    if (e.offset.value != p.last_offset && (e.offset.value < p.first_offset || e.offset.value > p.last_offset))
      wrong_[slot] = p.last_offset;
  }
  // This point is the running max for every entry at or above its first offset.
  int64_t lo = 0, hi = by_offset_.size();
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (v.offset(by_offset_[mid]).value < p.first_offset) lo = mid + 1;
    else hi = mid;
  }
  if (lo == by_offset_.size()) return;
  while (!steps_.empty() && steps_.back().first >= lo) steps_.pop_back();
  steps_.emplace_back(lo, p.timestamp);
}

void TimeIndexCheck::finish(const SegmentScan& s, Findings& f) {
  if (!view_) return f.io_error(index_.path, index_.open_error);
  const time_index::View& v = *view_;
  auto& fr = f.file(index_.path, "timeindex");
  fr.size_bytes = fr.checked_bytes = index_.file->size();
  if (v.trailing_bytes().bytes != 0)
    f.add(Code::timeindex_size, index_.path, Position{v.slot_count() * time_index::kEntrySize}, "size is not a multiple of 12",
          "a multiple of 12", std::to_string(index_.file->size()));
  const int64_t slots = v.slot_count();
  if (index_.used > index_.live) {
    // With no live entry the first slot is zero: the bad one is the first non-zero.
    const int64_t at = index_.live > 0 ? index_.live : index_.first_nonzero;
    const auto prev = v.timestamp_offset(at - 1), cur = v.timestamp_offset(at);
    f.add(Code::timeindex_not_monotonic, index_.path, v.slot_position(at),
          fmt::format("entry {} does not follow entry {} ({}, {})", at, at - 1, prev.timestamp_ms, prev.offset),
          fmt::format("timestamp > {}, offset >= {}", prev.timestamp_ms, prev.offset),
          fmt::format("({}, {})", cur.timestamp_ms, cur.offset));
  } else if (index_.live < slots) {
    // Loaded as it is, the zeros are entries: the index is full, the next
    // append rolls the segment and the roll leaves it so (KAFKA-19200; seen
    // with a 4.4.0 broker, tests/kafka/timeindex-broker.sh).
    const Code code = !s.last_segment ? Code::timeindex_untrimmed
                      : s.loaded_as_is ? Code::timeindex_preallocated_loaded
                                       : Code::timeindex_preallocated;
    f.add(code, index_.path, v.slot_position(index_.live),
          fmt::format("{} entries, then {} zero-filled slots", index_.live, slots - index_.live),
          fmt::format("{} bytes", index_.live * time_index::kEntrySize), fmt::format("{} bytes", index_.file->size()));
  }
  const bool cut = s.checked_bytes < s.file_size || s.tail_damaged;
  // Entries no point matched and that are reported as such (see below).
  auto never_max = [&](int64_t slot, const time_index::TimestampOffset& e) {
    return !matched_[static_cast<size_t>(slot)] && e.offset.value < s.next_offset() &&
           !(cut && (!last_point_ || e.timestamp_ms > last_point_->timestamp));
  };
  // For those, the running max when the batch holding the entry's offset was
  // appended: the last step at or below its rank.
  std::map<int64_t, int64_t> expected;  // slot -> timestamp
  size_t step = 0;
  for (int64_t r = 0; r < by_offset_.size(); ++r) {
    const int64_t slot = by_offset_[r];
    while (step < steps_.size() && steps_[step].first <= r) ++step;
    if (never_max(slot, v.timestamp_offset(slot)))
      expected[slot] = step == 0 ? time_index::kNoTimestamp : steps_[step - 1].second;
  }
  for (int64_t i = 0; i < index_.used; ++i) {
    if (!checked(i)) continue;
    const Position at{i * time_index::kEntrySize};
    const auto e = v.timestamp_offset(i);
    if (e.offset.value >= s.next_offset()) {
      if (!cut)
        f.add(Code::timeindex_past_log_end, index_.path, at,
              fmt::format("entry ({}, {}) beyond the log", e.timestamp_ms, e.offset),
              fmt::format("offset < {}", s.next_offset()), std::to_string(e.offset.value));
      continue;
    }
    if (matched_[static_cast<size_t>(i)]) {
      auto w = wrong_.find(i);
      if (w != wrong_.end())
        f.add(Code::timeindex_entry_mismatch, index_.path, at,
              fmt::format("timestamp {} first becomes the segment's max in the batch ending at offset {}",
                          e.timestamp_ms, w->second),
              std::to_string(w->second), std::to_string(e.offset.value));
      continue;
    }
    if (!never_max(i, e)) continue;  // cut short: the max may be in the bytes not read
    f.add(Code::timeindex_entry_mismatch, index_.path, at,
          fmt::format("entry ({}, {}): the timestamp is never the segment's running max", e.timestamp_ms, e.offset),
          std::to_string(expected[i]), std::to_string(e.timestamp_ms));
  }
  const bool complete = !s.damaged && s.checked_bytes == s.file_size;
  // Kafka 4.4 appends the final entry at roll; close() does not (checked on
  // broker-log-dir, shut down cleanly), so the active segment is exempt.
  if (complete && index_.used == index_.live && !s.last_segment && last_point_) {
    const std::string want = fmt::format("({}, {})", last_point_->timestamp, last_point_->last_offset);
    if (index_.live == 0) {
      f.add(Code::timeindex_final_entry, index_.path, Position{0}, "no entry for the segment's max timestamp", want,
            "no entries");
    } else if (const auto last = v.timestamp_offset(index_.live - 1); last.timestamp_ms != last_point_->timestamp) {
      f.add(Code::timeindex_final_entry, index_.path, v.slot_position(index_.live - 1),
            "the last entry is not the segment's max timestamp", want,
            fmt::format("({}, {})", last.timestamp_ms, last.offset));
    }
  }
  fr.entries = index_.used;
}

}  // namespace kseg
