// SPDX-License-Identifier: Apache-2.0
#include "formats/time_index.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"
#include "formats/index_search.h"

namespace kseg::time_index {

int64_t View::live_entry_count() const {
  const int64_t n = slot_count();
  for (int64_t i = 1; i < n; ++i) {
    const Entry e = entry(i), prev = entry(i - 1);
    if (e.timestamp_ms <= prev.timestamp_ms || e.relative_offset < prev.relative_offset) return i;
  }
  return n;
}

TimestampOffset lookup(const View& index, int64_t entries, int64_t target_timestamp_ms) {
  const int64_t slot = largest_lower_bound_slot(entries, kWarmEntries, target_timestamp_ms,
                                                [&](int64_t i) { return index.entry(i).timestamp_ms; });
  if (slot < 0) return {kNoTimestamp, index.base_offset()};
  return index.timestamp_offset(slot);
}

Status sanity_check(const View& index, std::string_view file_path) {
  const int64_t entries = index.slot_count();
  if (entries != 0) {
    const TimestampOffset last = index.timestamp_offset(entries - 1);
    const int64_t first_ts = index.entry(0).timestamp_ms;
    if (last.timestamp_ms < first_ts)
      return Status::fail(Errc::bad_value, index.slot_position(entries - 1),
                          fmt::format("Corrupt time index found, time index file ({}) has non-zero size but the "
                                      "last timestamp is {} which is less than the first timestamp {}",
                                      file_path, last.timestamp_ms, first_ts));
    if (last.offset < index.base_offset())
      return Status::fail(Errc::bad_value, index.slot_position(entries - 1) + Length{kTimestampBytes},
                          fmt::format("Corrupt time index found, time index file ({}) has non-zero size but the "
                                      "last offset is {} which is less than the first offset {}",
                                      file_path, last.offset, index.base_offset()));
  }
  return index.length_check("Time index", file_path);
}

Status validate_entries(const View& index, int64_t entries) {
  for (int64_t i = 0; i < entries; ++i) {
    const Entry e = index.entry(i);
    const Position at = index.slot_position(i);
    if (e.relative_offset < 0)
      return Status::fail(Errc::bad_value, at + Length{kTimestampBytes},
                          fmt::format("time index entry {}: relative offset {} is negative (offset {} < base "
                                      "offset {})",
                                      i, e.relative_offset, index.offset(i), index.base_offset()));
    if (i == 0) continue;
    const Entry prev = index.entry(i - 1);
    if (e.timestamp_ms <= prev.timestamp_ms)
      return Status::fail(Errc::bad_value, at,
                          fmt::format("time index entry {}: timestamp {} is not greater than the previous "
                                      "entry's {}",
                                      i, e.timestamp_ms, prev.timestamp_ms));
    if (e.relative_offset < prev.relative_offset)
      return Status::fail(Errc::bad_value, at + Length{kTimestampBytes},
                          fmt::format("time index entry {}: offset {} is less than the previous entry's {}", i,
                                      index.offset(i), index.offset(i - 1)));
  }
  return {};
}

Result<bool> Writer::maybe_append(int64_t timestamp_ms, Offset offset) {
  const Position at{static_cast<int64_t>(bytes_.size())};
  if (entries() != 0 && offset < last_.offset)
    return Error{Errc::refused, at,
                 fmt::format("Attempt to append an offset ({}) to slot {} no larger than the last offset "
                             "appended ({})",
                             offset, entries(), last_.offset)};
  if (entries() != 0 && timestamp_ms < last_.timestamp_ms)
    return Error{Errc::refused, at,
                 fmt::format("Attempt to append a timestamp ({}) to slot {} no larger than the last timestamp "
                             "appended ({})",
                             timestamp_ms, entries(), last_.timestamp_ms)};
  if (timestamp_ms <= last_.timestamp_ms) return false;
  const int64_t relative = offset - base_offset_;
  if (relative < 0 || relative > INT32_MAX)
    return Error{Errc::refused, at,
                 fmt::format("Integer overflow for offset: {}: relative offset {} does not fit 0..{}", offset,
                             relative, INT32_MAX)};
  append_entry(bytes_, {timestamp_ms, static_cast<int32_t>(relative)});
  last_ = {timestamp_ms, offset};
  return true;
}

void append_entry(std::vector<uint8_t>& out, Entry e) {
  ByteWriter w(out);
  w.i64(e.timestamp_ms);
  w.i32(e.relative_offset);
}

std::vector<uint8_t> encode(std::span<const Entry> entries) { return encode_entries(entries, kEntrySize, append_entry); }

}  // namespace kseg::time_index
