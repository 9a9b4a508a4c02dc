// SPDX-License-Identifier: Apache-2.0
#include "formats/offset_index.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"
#include "formats/index_search.h"

namespace kseg::offset_index {

namespace {

// Whether `data` read at `width` is what an index holds: entries in
// increasing offset and position (each inside the log when its size is
// known), then only zero slots.
bool plausible(Bytes data, int64_t width, std::optional<int64_t> log_size) {
  const int64_t n = static_cast<int64_t>(data.size()) / width;
  const Entry zero{};
  Entry prev{};
  for (int64_t i = 0; i < n; ++i) {
    const Entry e = Entry::decode(data.data() + i * width, width);
    if (e == zero && i > 0) {
      for (int64_t j = i + 1; j < n; ++j)
        if (!(Entry::decode(data.data() + j * width, width) == zero)) return false;
      return true;
    }
    if (e.relative_offset < 0 || e.position < 0) return false;
    if (log_size && e.position >= *log_size && !(e == zero)) return false;
    if (i > 0 && (e.relative_offset <= prev.relative_offset || e.position < prev.position)) return false;
    prev = e;
  }
  return true;
}

}  // namespace

Width detect_width(Bytes index, std::optional<Bytes> log, int64_t hint) {
  const auto size = static_cast<int64_t>(index.size());
  const bool by8 = size % kEntrySize == 0, by12 = size % kWideEntrySize == 0;
  if (!by12) return {kEntrySize, false};
  if (size == 0) return {hint, false};  // no entries either way
  std::optional<int64_t> log_size;
  if (log) log_size = static_cast<int64_t>(log->size());
  const bool wide = plausible(index, kWideEntrySize, log_size);
  // Only 12 divides: a 12-byte index, or an 8-byte one with a torn tail
  // (Kafka reads floor(size / 8) entries of it): 12 only if that reading
  // is out of order and the 12-byte one is not.
  if (!by8) {
    const bool narrow = plausible(index.first(static_cast<size_t>(size / kEntrySize * kEntrySize)), kEntrySize, log_size);
    return {wide && !narrow ? kWideEntrySize : kEntrySize, wide && narrow};
  }
  // Both divide. Without the log a damaged 8-byte index can read as a
  // plausible 12-byte one (no bound on its positions): 8, as Kafka reads it.
  const bool narrow = plausible(index, kEntrySize, log_size);
  if (!log) return {hint, narrow && wide};
  if (narrow != wide) return {narrow ? kEntrySize : kWideEntrySize, false};
  return {hint, narrow};
}


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

Status Writer::append(Offset offset, int64_t position) {
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
  if (!fixed_ && entry_bytes_ == kEntrySize && position > INT32_MAX) {  // widen what is there
    const View narrow(bytes_, base_offset_, Position{0}, Width{kEntrySize});
    std::vector<uint8_t> wide;
    for (int64_t i = 0; i < narrow.slot_count(); ++i) append_entry(wide, narrow.entry(i), kWideEntrySize);
    bytes_ = std::move(wide);
    entry_bytes_ = kWideEntrySize;
  }
  if (position < 0 || (entry_bytes_ == kEntrySize && position > INT32_MAX))
    return Status::fail(Errc::refused, at,
                        fmt::format("position {} of offset {} does not fit a {}-byte index entry", position, offset,
                                    entry_bytes_));
  append_entry(bytes_, {static_cast<int32_t>(relative), position}, entry_bytes_);
  last_offset_ = offset;
  return {};
}

void append_entry(std::vector<uint8_t>& out, Entry e, int64_t entry_bytes) {
  ByteWriter w(out);
  w.i32(e.relative_offset);
  if (entry_bytes == kWideEntrySize)
    w.i64(e.position);
  else
    w.i32(static_cast<int32_t>(e.position));
}

std::vector<uint8_t> encode(std::span<const Entry> entries, int64_t entry_bytes) {
  return encode_entries(entries, static_cast<size_t>(entry_bytes),
                        [entry_bytes](std::vector<uint8_t>& out, const Entry& e) { append_entry(out, e, entry_bytes); });
}

}  // namespace kseg::offset_index
