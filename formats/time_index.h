// SPDX-License-Identifier: Apache-2.0
// Time index (`<base offset>.timeindex`): a flat array of 12-byte entries,
// no header, no checksum. The base offset comes from the file name.
//
//   off size field
//    0   8   timestamp        int64 ms: largest batch max timestamp so far
//    8   4   relativeOffset   int32: offset of the batch holding it - base offset
//
// Preallocated and trimmed like the offset index (floor(size / 12) slots on
// open). Kafka only appends strictly increasing timestamps, so an untrimmed
// file's zero tail fails TimeIndex.sanityCheck (last timestamp 0 < first).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/index_view.h"
#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::time_index {

inline constexpr int64_t kTimestampBytes = 8, kRelativeOffsetBytes = 4;
inline constexpr int64_t kEntrySize = kTimestampBytes + kRelativeOffsetBytes;
static_assert(kEntrySize == 12);
inline constexpr int64_t kWarmEntries = 8192 / kEntrySize;  // 682
inline constexpr int64_t kNoTimestamp = -1;                  // RecordBatch.NO_TIMESTAMP

struct Entry {
  int64_t timestamp_ms = 0;
  int32_t relative_offset = 0;
  bool operator==(const Entry&) const = default;
  static constexpr int64_t kSize = kEntrySize;
  static Entry decode(const uint8_t* p, int64_t /*one width*/ = kSize) {
    return {static_cast<int64_t>(load_be64(p)), static_cast<int32_t>(load_be32(p + kTimestampBytes))};
  }
};

// Kafka's TimestampOffset.
struct TimestampOffset {
  int64_t timestamp_ms = kNoTimestamp;
  Offset offset;
  bool operator==(const TimestampOffset&) const = default;
};

class View : public IndexView<Entry> {
 public:
  using IndexView::IndexView;
  TimestampOffset timestamp_offset(int64_t slot) const { return {entry(slot).timestamp_ms, offset(slot)}; }
  // Stronger than dump_entry_count(): stop at the first slot i > 0 whose
  // timestamp is not greater than the previous one's or whose offset is
  // smaller.
  int64_t live_entry_count() const;
};

// TimeIndex.lookup over the first `entries` slots: the entry with the
// largest timestamp <= target, else (-1, base offset).
TimestampOffset lookup(const View& index, int64_t entries, int64_t target_timestamp_ms);

// TimeIndex.sanityCheck with entries = slot_count(); Kafka's message text.
Status sanity_check(const View& index, std::string_view file_path);

// Checks beyond Kafka's over the first `entries` slots: relative offsets
// >= 0 and non-decreasing, timestamps strictly increasing.
Status validate_entries(const View& index, int64_t entries);

// Builds a time index the way TimeIndex.maybeAppend does.
class Writer {
 public:
  explicit Writer(Offset base_offset) : base_offset_(base_offset), last_{kNoTimestamp, base_offset} {}
  // Errors like Kafka (offset below the last entry's, timestamp below the
  // last entry's); appends only when the timestamp is greater than the last
  // (initially -1). Returns whether an entry was added.
  Result<bool> maybe_append(int64_t timestamp_ms, Offset offset);
  int64_t entries() const { return static_cast<int64_t>(bytes_.size()) / kEntrySize; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  Offset base_offset_;
  TimestampOffset last_;
  std::vector<uint8_t> bytes_;
};

std::vector<uint8_t> encode(std::span<const Entry> entries);
void append_entry(std::vector<uint8_t>& out, Entry e);

}  // namespace kseg::time_index
