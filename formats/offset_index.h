// SPDX-License-Identifier: Apache-2.0
// Offset index (`<base offset>.index`): a flat array of 8-byte entries, no
// header, no checksum. The base offset comes from the file name.
//
//   off size field
//    0   4   relativeOffset   int32: offset - base offset
//    4   4   position         int32: byte position of a batch in the .log
//
// KIP-1333 (under discussion in 2026, not in any Kafka release) adds a
// 12-byte entry for segments over 2 GiB, the position an int64:
//
//    0   4   relativeOffset   int32
//    4   8   position         int64
//
// with no marker: a reader tells the widths apart by the file's size, and
// where both divide it (a multiple of 24) by which reading gives valid
// entries. detect_width() is that rule; offset-index.md says more.
//
// Kafka preallocates the active segment's file (zero-filled, 10 MiB by
// default) and trims it on roll/close; when it opens an existing file it
// counts floor(size / 8) entries and never looks for the zero tail. A View
// therefore exposes every slot, and separately the two zero-tail rules.
#pragma once

#include <cstdint>
#include <optional>
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
inline constexpr int64_t kWideEntrySize = kRelativeOffsetBytes + 8;  // KIP-1333
inline constexpr int64_t kWarmEntries = 8192 / kEntrySize;  // AbstractIndex.warmEntries

struct Entry {
  int32_t relative_offset = 0;
  int64_t position = 0;  // bytes into the .log: an int32 in an 8-byte entry
  bool operator==(const Entry&) const = default;
  static constexpr int64_t kSize = kEntrySize;
  static Entry decode(const uint8_t* p, int64_t width = kEntrySize) {
    const auto rel = static_cast<int32_t>(load_be32(p));
    if (width == kWideEntrySize) return {rel, static_cast<int64_t>(load_be64(p + kRelativeOffsetBytes))};
    return {rel, static_cast<int32_t>(load_be32(p + kRelativeOffsetBytes))};
  }
};

// Kafka's OffsetPosition: an absolute offset and its .log position.
struct OffsetPosition {
  Offset offset;
  int64_t position = 0;
  bool operator==(const OffsetPosition&) const = default;
};

// The entry width of an index file, and how it was told.
struct Width {
  int64_t entry_bytes = kEntrySize;
  // Both widths divide the size and both readings gave valid entries
  // (their lookups agree wherever the log was given to check them); the
  // hint decided.
  bool ambiguous = false;
  bool operator==(const Width&) const = default;
};

// KIP-1333's rule, kept to what the bytes show: a size 12 does not divide
// is 8-byte (where 8 does not divide it either, Kafka's length check fails
// it). A reading is "in order" when over every slot relative offsets are
// >= 0 and strictly increasing and positions >= 0 and non-decreasing (each
// inside `log`, the segment's bytes, when given), then only zero slots (a
// preallocated tail). A size only 12 divides is 12-byte when that reading
// is in order and the floor(size / 8)-entry one is not (both: 8, with
// `ambiguous`: one 12-byte entry is one 8-byte entry and 4 bytes). A size both divide
// is, with `log`, the one reading in order; without it (no bound on the
// positions: a damaged 8-byte index can pass as 12-byte), `hint`. Where
// both pass, `hint` with `ambiguous`. offset_index_width (index_serves.h)
// then asks the log which reading serves it: the tools use that.
Width detect_width(Bytes index, std::optional<Bytes> log = std::nullopt, int64_t hint = kEntrySize);

class View : public IndexView<Entry> {
 public:
  // Reads `data` at the width detect_width() finds without the log.
  View(Bytes data, Offset base_offset, Position file_position = Position{0})
      : IndexView(data, base_offset, file_position, detect_width(data).entry_bytes) {}
  View(Bytes data, Offset base_offset, Position file_position, Width width)
      : View(data, base_offset, file_position, width.entry_bytes) {}
  View(Bytes data, Offset base_offset, Position file_position, int64_t entry_bytes)  // 12, else 8
      : IndexView(data, base_offset, file_position, entry_bytes == kWideEntrySize ? kWideEntrySize : kEntrySize) {}
  bool wide() const { return entry_size() == kWideEntrySize; }
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
// exactly entry_bytes() x entries bytes (trimmed). Width kAutoWidth: 8
// bytes, which every Kafka release reads, until a position needs more
// (a segment over 2 GiB), then 12 for every entry.
inline constexpr int64_t kAutoWidth = 0;
class Writer {
 public:
  explicit Writer(Offset base_offset, int64_t entry_bytes = kEntrySize)
      : base_offset_(base_offset), fixed_(entry_bytes != kAutoWidth),
        entry_bytes_(fixed_ ? entry_bytes : kEntrySize) {}
  // Kafka's rules: offset - base must fit 0..INT32_MAX and the offset must
  // be greater than the last one appended; the position must fit the width.
  Status append(Offset offset, int64_t position);
  int64_t entries() const { return static_cast<int64_t>(bytes_.size()) / entry_bytes_; }
  int64_t entry_bytes() const { return entry_bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  Offset base_offset_;
  bool fixed_;
  int64_t entry_bytes_;
  Offset last_offset_{0};
  std::vector<uint8_t> bytes_;
};

// Raw image of the given entries, no checks (for tests and repairs that
// copy entries through).
std::vector<uint8_t> encode(std::span<const Entry> entries, int64_t entry_bytes = kEntrySize);
void append_entry(std::vector<uint8_t>& out, Entry e, int64_t entry_bytes = kEntrySize);

}  // namespace kseg::offset_index
