// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_index.h"

#include <algorithm>

#include <fmt/format.h>

#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"

namespace kseg {

namespace {

// A preallocated or untrimmed tail, told apart by whether Kafka leaves it so.
void report_tail(Code preallocated, Code untrimmed, const std::string& path, const SegmentScan& s, int64_t live,
                 int64_t slots, int64_t entry_size, Findings& f) {
  if (live >= slots) return;
  f.add(s.last_segment ? preallocated : untrimmed, path, Position{live * entry_size},
        fmt::format("{} entries, then {} zero-filled slots", live, slots - live), fmt::format("{} bytes", live * entry_size),
        fmt::format("{} bytes", slots * entry_size));
}

}  // namespace

MappedIndex::MappedIndex(std::string p) : path(std::move(p)) {
  auto mf = MappedFile::open(path);
  if (!mf.ok()) {
    open_error = mf.error().message;
    return;
  }
  file.emplace(std::move(*mf));
  file->set_drop_page_cache(true);
}

void MappedIndex::scan_tail(int64_t slots, int64_t entry_size) {
  constexpr int64_t kChunk = 2 << 20;
  const Bytes data = file->bytes();
  first_nonzero = slots;
  used = live;
  for (int64_t from = live * entry_size, end = slots * entry_size; from < end;) {
    // Chunks end on slot boundaries; whole pages inside one are released.
    const int64_t to = std::min(end, (from + kChunk) / entry_size * entry_size + entry_size);
    for (int64_t p = from; p < to; p += entry_size) {
      const auto slot = data.subspan(static_cast<size_t>(p), static_cast<size_t>(entry_size));
      if (std::all_of(slot.begin(), slot.end(), [](uint8_t b) { return b == 0; })) continue;
      first_nonzero = std::min(first_nonzero, p / entry_size);
      used = p / entry_size + 1;
    }
    file->release_range(Position{from}, Position{to});
    from = to;
  }
}

OffsetIndexCheck::OffsetIndexCheck(std::string path, Offset base_offset, const std::string& log_path)
    : index_(std::move(path)) {
  if (!index_.file) return;
  const Bytes bytes = index_.file->bytes();
  offset_index::Width width = offset_index::detect_width(bytes);
  if (bytes.size() % offset_index::kWideEntrySize == 0 && !log_path.empty())  // a size the widths may share
    if (auto log = MappedFile::open(log_path); log.ok()) width = offset_index_width(bytes, base_offset, log->bytes());
  view_.emplace(bytes, base_offset, Position{0}, width);
  const int64_t slots = view_->slot_count();
  index_.live = view_->live_entry_count();
  // All zeros: empty, preallocated.
  if (index_.live == 1 && view_->entry(0) == offset_index::Entry{}) index_.live = 0;
  index_.scan_tail(slots, view_->entry_size());
  // Zero slots ending the live ones (possible after a negative relative
  // offset) are not entries either.
  if (index_.used == index_.live)
    while (index_.used > 0 && view_->entry(index_.used - 1) == offset_index::Entry{}) --index_.used;
  by_position_ = SlotOrder(index_.used, [&](int64_t i) { return checked(i); },
                           [&](int64_t i) { return int64_t{view_->entry(i).position}; });
}

bool OffsetIndexCheck::checked(int64_t slot) const {
  return slot < index_.live || !(view_->entry(slot) == offset_index::Entry{});
}

// Kafka 4.4 indexes each batch as (its lastOffset, its position); before
// KAFKA-806's fix a multi-batch (follower) append was indexed as (lastOffset
// of its last batch, position of its first batch). Both serve lookups right.
// Entries are placed as the batches go by, in position order.
void OffsetIndexCheck::batch(const BatchInfo& b) {
  if (!view_) return;
  // Look-aheads from earlier batches end at a batch starting above them.
  while (!pending_.empty() && pending_.begin()->first < b.first_offset) {
    const auto [slot, last] = pending_.begin()->second;
    misses_[slot] = {Miss::wrong_offset, last};
    pending_.erase(pending_.begin());
  }
  pending_.erase(b.last_offset);
  for (; next_ < by_position_.size(); ++next_) {
    const int64_t slot = by_position_[next_];
    const Position position{view_->entry(slot).position};
    const int64_t offset = view_->offset(slot).value;
    if (position > b.position) break;
    if (position < b.position) misses_[slot] = {Miss::inside, prev_position_.value};
    else if (offset > b.last_offset) pending_.emplace(offset, std::pair{slot, b.last_offset});
    else if (offset < b.last_offset) misses_[slot] = {Miss::wrong_offset, b.last_offset};
  }
  prev_position_ = b.position;
}

void OffsetIndexCheck::finish(const SegmentScan& s, Findings& f) {
  if (!view_) return f.io_error(index_.path, index_.open_error);
  for (const auto& [offset, p] : pending_) misses_[p.first] = {Miss::wrong_offset, p.second};
  pending_.clear();
  // Entries past the last batch's start: inside it, or past the data read.
  const bool cut = s.checked_bytes < s.file_size || s.tail_damaged;
  for (; next_ < by_position_.size(); ++next_) {
    const int64_t slot = by_position_[next_];
    if (Position{view_->entry(slot).position} < s.valid_end) misses_[slot] = {Miss::inside, prev_position_.value};
    else if (!cut) misses_[slot] = {Miss::past_end, 0};
  }
  const offset_index::View& v = *view_;
  auto& fr = f.file(index_.path, "index");
  fr.size_bytes = fr.checked_bytes = index_.file->size();
  if (v.trailing_bytes().bytes != 0)
    f.add(Code::index_size, index_.path, Position{v.slot_count() * v.entry_size()},
          "size is not a multiple of 8 (nor of 12)", "a multiple of 8 (or of 12: KIP-1333)",
          std::to_string(index_.file->size()));
  if (v.wide())
    f.add(Code::index_wide_entries, index_.path, Position{0},
          fmt::format("{} bytes of 12-byte entries (KIP-1333), which Kafka 4.4 reads as 8-byte entries",
                      index_.file->size()),
          "8-byte entries", "12-byte entries");
  const int64_t slots = v.slot_count();
  const int64_t bad = index_.first_nonzero;
  if (bad < slots) {
    const auto prev = v.offset_position(bad - 1), cur = v.offset_position(bad);
    f.add(Code::index_not_increasing, index_.path, v.slot_position(bad),
          fmt::format("entry {} (offset {}, position {}) does not follow entry {} (offset {}, position {})", bad,
                      cur.offset, cur.position, bad - 1, prev.offset, prev.position),
          fmt::format("offset > {}, position >= {}", prev.offset, prev.position),
          fmt::format("offset {}, position {}", cur.offset, cur.position));
  } else {
    report_tail(Code::index_preallocated, Code::index_untrimmed, index_.path, s, index_.live, slots, v.entry_size(), f);
  }
  for (int64_t i = 0; i < index_.used; ++i) {
    if (!checked(i)) continue;
    const auto e = v.entry(i);
    if (i > 0 && i < index_.live && e.position < v.entry(i - 1).position)
      f.add(Code::index_not_increasing, index_.path, v.slot_position(i),
            fmt::format("entry {} (offset {}) has a smaller position than entry {}", i, v.offset(i), i - 1),
            fmt::format(">= {}", v.entry(i - 1).position), std::to_string(e.position));
    auto m = misses_.find(i);
    if (m == misses_.end()) continue;
    const Position at = v.slot_position(i);
    const Offset offset = v.offset(i);
    switch (m->second.miss) {
      case Miss::past_end:
        f.add(Code::index_past_log_end, index_.path, at, fmt::format("entry for offset {} points past the log's data", offset),
              fmt::format("< {}", s.valid_end), std::to_string(e.position));
        break;
      case Miss::inside:
        f.add(Code::index_entry_mismatch, index_.path, at,
              fmt::format("entry for offset {} points inside the batch at position {}", offset, m->second.value),
              fmt::format("a batch start ({})", m->second.value), std::to_string(e.position));
        break;
      case Miss::wrong_offset:
        f.add(Code::index_entry_mismatch, index_.path, at,
              fmt::format("entry at position {} names offset {}, the batch there ends at {}", e.position, offset,
                          m->second.value),
              std::to_string(m->second.value), std::to_string(offset.value));
        break;
    }
  }
  fr.entries = index_.used;
}

}  // namespace kseg
