// SPDX-License-Identifier: Apache-2.0
#include "formats/offset_index.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"
#include "formats/index_search.h"

namespace kseg::offset_index {

int64_t View::live_entry_count() const {
  const int64_t n = slot_count();
  for (int64_t i = 1; i < n; ++i)
    if (entry(i).relative_offset <= entry(i - 1).relative_offset) return i;
  return n;
}

OffsetPosition lookup(const View& index, int64_t entries, Offset target) {
  const int64_t slot = largest_lower_bound_slot(entries, kWarmEntries, target.value,
                                                [&](int64_t i) { return index.offset(i).value; });
  if (slot < 0) return {index.base_offset(), 0};
  return index.offset_position(slot);
}

Status sanity_check(const View& index, std::string_view file_path) {
  const int64_t entries = index.slot_count();
  if (entries != 0) {
    const Offset last = index.offset(entries - 1);
    if (last < index.base_offset())
      return Status::fail(Errc::bad_value, index.slot_position(entries - 1),
                          fmt::format("Corrupt index found, index file {} has non-zero size but the last offset "
                                      "is {} which is less than the base offset {}",
                                      file_path, last, index.base_offset()));
  }
  return index.length_check("Index", file_path);
}

Status validate_entries(const View& index, int64_t entries) {
  for (int64_t i = 0; i < entries; ++i) {
    const Entry e = index.entry(i);
    if (e.relative_offset < 0)
      return Status::fail(Errc::bad_value, index.slot_position(i),
                          fmt::format("index entry {}: relative offset {} is negative (offset {} < base offset {})",
                                      i, e.relative_offset, index.offset(i), index.base_offset()));
    if (e.position < 0)
      return Status::fail(Errc::bad_value, index.slot_position(i),
                          fmt::format("index entry {}: position {} is negative", i, e.position));
    if (i == 0) continue;
    const Entry prev = index.entry(i - 1);
    if (e.relative_offset <= prev.relative_offset)
      return Status::fail(Errc::bad_value, index.slot_position(i),
                          fmt::format("index entry {}: offset {} is not greater than the previous entry's {}", i,
                                      index.offset(i), index.offset(i - 1)));
    if (e.position < prev.position)
      return Status::fail(Errc::bad_value, index.slot_position(i),
                          fmt::format("index entry {}: position {} is less than the previous entry's {}", i,
                                      e.position, prev.position));
  }
  return {};
}

Status Writer::append(Offset offset, int32_t position) {
  const int64_t relative = offset - base_offset_;
  const Position at{static_cast<int64_t>(bytes_.size())};
  if (relative < 0 || relative > INT32_MAX)
    return Status::fail(Errc::refused, at,
                        fmt::format("Integer overflow for offset: {}: relative offset {} does not fit 0..{}",
                                    offset, relative, INT32_MAX));
  if (entries() != 0 && offset <= last_offset_)
    return Status::fail(Errc::refused, at,
                        fmt::format("Attempt to append an offset {} to position {} no larger than the last "
                                    "offset appended ({})",
                                    offset, entries(), last_offset_));
  append_entry(bytes_, {static_cast<int32_t>(relative), position});
  last_offset_ = offset;
  return {};
}

void append_entry(std::vector<uint8_t>& out, Entry e) {
  ByteWriter w(out);
  w.i32(e.relative_offset);
  w.i32(e.position);
}

std::vector<uint8_t> encode(std::span<const Entry> entries) { return encode_entries(entries, kEntrySize, append_entry); }

}  // namespace kseg::offset_index
