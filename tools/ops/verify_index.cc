#include "tools/ops/verify_index.h"

#include <algorithm>

#include <fmt/format.h>

#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"

namespace kseg {

namespace {

// First slot at or after `from` holding a non-zero byte, or `slots`.
int64_t first_nonzero_slot(Bytes data, int64_t from, int64_t slots, int64_t entry_size) {
  for (int64_t i = from; i < slots; ++i) {
    auto slot = data.subspan(static_cast<size_t>(i * entry_size), static_cast<size_t>(entry_size));
    if (std::any_of(slot.begin(), slot.end(), [](uint8_t b) { return b != 0; })) return i;
  }
  return slots;
}

// Last slot with a non-zero byte, plus one.
int64_t used_slots(Bytes data, int64_t slots, int64_t entry_size) {
  for (int64_t i = slots; i > 0; --i) {
    auto slot = data.subspan(static_cast<size_t>((i - 1) * entry_size), static_cast<size_t>(entry_size));
    if (std::any_of(slot.begin(), slot.end(), [](uint8_t b) { return b != 0; })) return i;
  }
  return 0;
}

// A preallocated or untrimmed tail, told apart by whether Kafka leaves it so.
void report_tail(const char* kind, const std::string& path, const SegmentScan& s, int64_t live, int64_t slots,
                 int64_t entry_size, Findings& f) {
  if (live >= slots) return;
  const std::string code = std::string(kind) + (s.last_segment ? ".preallocated" : ".untrimmed");
  f.add(code, path, Position{live * entry_size},
        fmt::format("{} entries, then {} zero-filled slots", live, slots - live), fmt::format("{} bytes", live * entry_size),
        fmt::format("{} bytes", slots * entry_size));
}

const BatchInfo* batch_at(const SegmentScan& s, int64_t position, size_t& index) {
  auto it = std::lower_bound(s.batches.begin(), s.batches.end(), position,
                             [](const BatchInfo& b, int64_t p) { return b.position < p; });
  index = static_cast<size_t>(it - s.batches.begin());
  return it != s.batches.end() && it->position == position ? &*it : nullptr;
}

// Kafka 4.4 indexes each batch as (its lastOffset, its position); before
// KAFKA-806's fix a multi-batch (follower) append was indexed as (lastOffset
// of its last batch, position of its first batch). Both serve lookups right.
void check_offset_entry(const std::string& path, const SegmentScan& s, int64_t slot, Offset offset, int32_t position,
                        Findings& f) {
  const Position at{slot * offset_index::kEntrySize};
  if (position >= s.valid_end) {
    // Beyond what --max-bytes let us read, or into a tail already reported.
    if (s.checked_bytes < s.file_size || s.tail_damaged) return;
    f.add("index.past_log_end", path, at, fmt::format("entry for offset {} points past the log's data", offset),
          fmt::format("< {}", s.valid_end), std::to_string(position));
    return;
  }
  size_t i = 0;
  const BatchInfo* b = batch_at(s, position, i);
  if (b == nullptr) {
    const int64_t start = i > 0 ? s.batches[i - 1].position : 0;
    f.add("index.entry_mismatch", path, at,
          fmt::format("entry for offset {} points inside the batch at position {}", offset, start),
          fmt::format("a batch start ({})", start), std::to_string(position));
    return;
  }
  if (offset.value == b->last_offset) return;
  if (offset.value > b->last_offset)
    for (size_t j = i + 1; j < s.batches.size() && s.batches[j].first_offset <= offset.value; ++j)
      if (s.batches[j].last_offset == offset.value) return;
  f.add("index.entry_mismatch", path, at,
        fmt::format("entry at position {} names offset {}, the batch there ends at {}", position, offset,
                    b->last_offset),
        std::to_string(b->last_offset), std::to_string(offset.value));
}

}  // namespace

bool check_offset_index(const std::string& path, const SegmentScan& s, Findings& f) {
  auto mf = MappedFile::open(path);
  if (!mf.ok()) {
    f.io_error(path, mf.error().message);
    return false;
  }
  mf->set_drop_page_cache(true);
  offset_index::View v(mf->bytes(), s.base_offset);
  auto& fr = f.file(path, "index");
  fr.size_bytes = fr.checked_bytes = mf->size();
  if (v.trailing_bytes().bytes != 0)
    f.add("index.size", path, Position{v.slot_count() * offset_index::kEntrySize},
          "size is not a multiple of 8", "a multiple of 8", std::to_string(mf->size()));
  const int64_t slots = v.slot_count();
  int64_t live = v.live_entry_count();
  if (live == 1 && v.entry(0) == offset_index::Entry{}) live = 0;  // all zeros: empty, preallocated
  const int64_t used = used_slots(mf->bytes(), slots, offset_index::kEntrySize);
  const int64_t bad = first_nonzero_slot(mf->bytes(), live, slots, offset_index::kEntrySize);
  if (bad < slots) {
    const auto prev = v.offset_position(bad - 1), cur = v.offset_position(bad);
    f.add("index.not_increasing", path, v.slot_position(bad),
          fmt::format("entry {} (offset {}, position {}) does not follow entry {} (offset {}, position {})", bad,
                      cur.offset, cur.position, bad - 1, prev.offset, prev.position),
          fmt::format("offset > {}, position >= {}", prev.offset, prev.position),
          fmt::format("offset {}, position {}", cur.offset, cur.position));
  } else {
    report_tail("index", path, s, live, slots, offset_index::kEntrySize, f);
  }
  for (int64_t i = 0; i < used; ++i) {
    const auto e = v.entry(i);
    if (i >= live && e == offset_index::Entry{}) continue;
    if (i > 0 && i < live && e.position < v.entry(i - 1).position)
      f.add("index.not_increasing", path, v.slot_position(i),
            fmt::format("entry {} (offset {}) has a smaller position than entry {}", i, v.offset(i), i - 1),
            fmt::format(">= {}", v.entry(i - 1).position), std::to_string(e.position));
    check_offset_entry(path, s, i, v.offset(i), e.position, f);
  }
  fr.entries = used;
  return true;
}

}  // namespace kseg
