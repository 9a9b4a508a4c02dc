// SPDX-License-Identifier: Apache-2.0
#include "formats/producer_snapshot.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"
#include "lib/checksum.h"

namespace kseg::producer_snapshot {

namespace {

constexpr std::string_view kSchemaPrefix = "Snapshot failed schema validation: ";

Error truncated(const ByteReader& r, std::string_view field, int64_t width) {
  const Position at = r.fail_position();
  return Error{Errc::truncated, at, fmt::format("{} at position {} needs {} bytes, found {}", field, at, width,
                                                r.remaining())};
}

Error schema_error(Position at, std::string_view detail, Errc code = Errc::truncated) {
  return Error{code, at, fmt::format("{}{}", kSchemaPrefix, detail)};
}

}  // namespace

int32_t ProducerEntry::first_sequence() const {
  if (last_sequence < offset_delta)
    return static_cast<int32_t>(int64_t{INT32_MAX} - (int64_t{offset_delta} - last_sequence) + 1);
  return last_sequence - offset_delta;
}

Result<Snapshot> decode(Bytes file, Position base) {
  ByteReader r(file, base);
  Snapshot s;
  s.version = r.i16();
  if (!r.ok()) return truncated(r, "version", kVersionBytes);
  s.crc = r.u32();
  if (!r.ok()) return truncated(r, "crc", kCrcBytes);
  const Position count_at = r.position();
  s.entry_count = r.i32();
  if (!r.ok()) return truncated(r, "producer entry count", kCountBytes);
  if (s.entry_count < 0)
    return Error{Errc::bad_length, count_at,
                 fmt::format("producer entry count at position {} is {}, expected >= 0", count_at, s.entry_count)};
  s.entries.reserve(static_cast<size_t>(std::min<int64_t>(s.entry_count, r.remaining().bytes / kEntrySize)));
  for (int32_t i = 0; i < s.entry_count; ++i) {
    ProducerEntry e;
    e.producer_id = r.i64();
    e.producer_epoch = r.i16();
    e.last_sequence = r.i32();
    e.last_offset = r.i64();
    e.offset_delta = r.i32();
    e.timestamp_ms = r.i64();
    e.coordinator_epoch = r.i32();
    e.current_txn_first_offset = r.i64();
    if (!r.ok()) {
      const Position entry_at = base + Length{kHeaderSize + int64_t{i} * kEntrySize};
      const Length have = Length{static_cast<int64_t>(file.size())} - (entry_at - base);
      return Error{Errc::truncated, r.fail_position(),
                   fmt::format("producer entry {} of {} at position {} needs {} bytes, found {}", i,
                               s.entry_count, entry_at, kEntrySize, have)};
    }
    s.entries.push_back(e);
  }
  s.trailing_bytes = r.remaining();
  return s;
}

uint32_t compute_crc(Bytes file) {
  if (file.size() < static_cast<size_t>(kEntriesOffset)) return crc32c(Bytes{});
  return crc32c(file.subspan(kEntriesOffset));
}

Status validate(const Snapshot& snapshot, Bytes file, Position base) {
  if (snapshot.version != kVersion)
    return Status::fail(Errc::bad_magic, base,
                        fmt::format("{}Snapshot contained an unknown file version {}", kSchemaPrefix,
                                    snapshot.version));
  const uint32_t computed = compute_crc(file);
  if (computed != snapshot.crc)
    return Status::fail(Errc::bad_crc, base + Length{kCrcOffset},
                        fmt::format("Snapshot is corrupt (CRC is no longer valid). Stored crc: {}. Computed crc: {}",
                                    snapshot.crc, computed));
  return {};
}

Result<Snapshot> read(Bytes file, Position base) {
  const int64_t size = static_cast<int64_t>(file.size());
  if (size < kVersionBytes) return schema_error(base, "null");
  const auto version = static_cast<int16_t>(load_be16(file.data()));
  if (version != kVersion)
    return schema_error(base, fmt::format("Snapshot contained an unknown file version {}", version), Errc::bad_magic);
  if (size < kHeaderSize) return schema_error(base + Length{size < kEntriesOffset ? kCrcOffset : kEntriesOffset}, "null");
  const auto count = static_cast<int32_t>(load_be32(file.data() + kEntriesOffset));
  const Position count_at = base + Length{kEntriesOffset};
  const int64_t remaining = size - kHeaderSize;
  if (count < 0) return schema_error(count_at, "non-nullable field producerEntries was serialized as null", Errc::bad_length);
  if (count > remaining)
    return schema_error(count_at,
                        fmt::format("Tried to allocate a collection of size {}, but there are only {} bytes remaining.",
                                    count, remaining));
  if (count > kMaxCollectionSize)
    return schema_error(count_at,
                        fmt::format("Tried to read a collection of size {}, which exceeds the maximum allowed size of {}.",
                                    count, kMaxCollectionSize),
                        Errc::too_large);
  auto decoded = decode(file, base);
  if (!decoded.ok()) return schema_error(decoded.error().position.value_or(base), "null");
  KSEG_RETURN_IF_ERROR(validate(decoded.value(), file, base));
  return decoded;
}

std::vector<uint8_t> encode(std::span<const ProducerEntry> entries) {
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(kHeaderSize) + entries.size() * kEntrySize);
  ByteWriter w(out);
  w.i16(kVersion);
  w.u32(0);  // the CRC, patched below
  w.i32(static_cast<int32_t>(entries.size()));
  for (const ProducerEntry& e : entries) {
    w.i64(e.producer_id);
    w.i16(e.producer_epoch);
    w.i32(e.last_sequence);
    w.i64(e.last_offset);
    w.i32(e.offset_delta);
    w.i64(e.timestamp_ms);
    w.i32(e.coordinator_epoch);
    w.i64(e.current_txn_first_offset);
  }
  w.patch_u32(static_cast<size_t>(kCrcOffset), compute_crc(out));
  return out;
}

}  // namespace kseg::producer_snapshot
