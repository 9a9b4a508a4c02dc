// SPDX-License-Identifier: Apache-2.0
// Offset index (`<base offset>.index`): a flat array of 8-byte entries, no
// header, no checksum. The base offset comes from the file name.
//
//   off size field
//    0   4   relativeOffset   int32: offset - base offset
//    4   4   position         int32: byte position of a batch in the .log
//
// Kafka preallocates the active segment's file (zero-filled, 10 MiB by
// default) and trims it on roll/close; when it opens an existing file it
// counts floor(size / 8) entries and never looks for the zero tail. A View
// therefore exposes every slot, and separately the two zero-tail rules.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/index_view.h"
#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::offset_index {

inline constexpr int64_t kRelativeOffsetBytes = 4, kPositionBytes = 4;
inline constexpr int64_t kEntrySize = kRelativeOffsetBytes + kPositionBytes;
static_assert(kEntrySize == 8);
inline constexpr int64_t kWarmEntries = 8192 / kEntrySize;  // AbstractIndex.warmEntries

struct Entry {
  int32_t relative_offset = 0;
  int32_t position = 0;  // bytes into the .log
  bool operator==(const Entry&) const = default;
  static constexpr int64_t kSize = kEntrySize;
  static Entry decode(const uint8_t* p) {
    return {static_cast<int32_t>(load_be32(p)), static_cast<int32_t>(load_be32(p + kRelativeOffsetBytes))};
  }
};

// Kafka's OffsetPosition: an absolute offset and its .log position.
struct OffsetPosition {
  Offset offset;
  int32_t position = 0;
  bool operator==(const OffsetPosition&) const = default;
};

class View : public IndexView<Entry> {
 public:
  using IndexView::IndexView;
  OffsetPosition offset_position(int64_t slot) const { return {offset(slot), entry(slot).position}; }
  // Stronger than dump_entry_count(): stop at the first slot i > 0 whose
  // offset is not greater than the previous slot's. Equals it on files
  // Kafka wrote.
  int64_t live_entry_count() const;
};

// OffsetIndex.lookup over the first `entries` slots: the entry with the
// largest offset <= target, else (base offset, 0). Kafka uses all slots
// (entries = slot_count()) for a file it opened.
OffsetPosition lookup(const View& index, int64_t entries, Offset target);

// OffsetIndex.sanityCheck with entries = slot_count(). The message is
// Kafka's text with `file_path` where Kafka prints the absolute path.
// Passes on an untrimmed file (its last slot decodes to the base offset).
Status sanity_check(const View& index, std::string_view file_path);

// Checks beyond Kafka's: over the first `entries` slots, relative offsets
// >= 0 and strictly increasing, positions >= 0 and non-decreasing.
Status validate_entries(const View& index, int64_t entries);

// Builds an index the way OffsetIndex.append does; the file image is
// exactly 8 x entries bytes (trimmed).
class Writer {
 public:
  explicit Writer(Offset base_offset) : base_offset_(base_offset) {}
  // Kafka's rules: offset - base must fit 0..INT32_MAX and the offset must
  // be greater than the last one appended.
  Status append(Offset offset, int32_t position);
  int64_t entries() const { return static_cast<int64_t>(bytes_.size()) / kEntrySize; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  Offset base_offset_;
  Offset last_offset_{0};
  std::vector<uint8_t> bytes_;
};

// Raw image of the given entries, no checks (for tests and repairs that
// copy entries through).
std::vector<uint8_t> encode(std::span<const Entry> entries);
void append_entry(std::vector<uint8_t>& out, Entry e);

}  // namespace kseg::offset_index
