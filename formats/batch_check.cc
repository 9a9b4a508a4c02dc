// SPDX-License-Identifier: Apache-2.0
#include "formats/batch_check.h"

#include <vector>

#include <fmt/format.h>

#include "formats/control.h"

namespace kseg {

SegmentEnd EntryCheck::fault() const {
  if (v2() && !decoded) return SegmentEnd::too_small;
  return crc_ok() ? SegmentEnd::clean : SegmentEnd::bad_crc;
}

namespace {

EntryCheck check_message_or_short(const EntryRef& e) {
  EntryCheck c;
  c.magic = e.magic;
  if (c.v2()) return c;  // too small for a v2 header: nothing else can be read
  // The scanner hands out no entry under 12 + 14 bytes, so the CRC field and
  // the magic are there even when the key and value lengths are not.
  c.crc_stored = load_be32(e.bytes.data() + legacy::kCrcOffset);
  c.crc_computed = legacy::compute_crc(e.bytes);
  c.base_offset = c.last_offset = e.offset;
  if (e.magic == 1 && e.total().bytes >= legacy::kTimestampOffsetV1 + 8)
    c.max_timestamp = static_cast<int64_t>(load_be64(e.bytes.data() + legacy::kTimestampOffsetV1));
  auto m = legacy::decode(e);
  if (m.ok()) {
    c.decoded = true;
    c.message = std::move(*m);
  }
  c.codec_id = e.bytes[static_cast<size_t>(legacy::kAttributesOffset)] & 0x07;
  c.codec_known = c.codec_id <= static_cast<int>(Codec::lz4);
  return c;
}

}  // namespace

EntryCheck check_entry(const EntryRef& e) {
  // Kafka reads any magic above 1 as v2.
  if (e.magic < 2 || e.bytes.size() < static_cast<size_t>(v2::kRecordBatchOverhead)) return check_message_or_short(e);
  EntryCheck c(e);
  const v2::BatchHeader& h = c.header;
  c.crc_stored = h.crc;
  c.crc_computed = v2::compute_crc(e.bytes);
  c.codec_id = h.codec_id();
  c.codec_known = c.codec_id <= static_cast<int>(Codec::zstd);
  c.base_offset = h.base_offset;
  c.last_offset = h.last_offset();
  c.max_timestamp = h.max_timestamp;
  return c;
}

bool plausible_entry(Bytes data, size_t p, int64_t min_offset, int64_t max_size) {
  // Room for a v2 header whatever the magic, so the v0/v1 fields read below are there too.
  if (p > data.size() || data.size() - p < static_cast<size_t>(kLogOverhead + v2::kRecordBatchOverhead)) return false;
  const uint8_t* e = data.data() + p;
  const auto offset = static_cast<int64_t>(load_be64(e));
  if (offset < min_offset || static_cast<uint64_t>(offset) - static_cast<uint64_t>(min_offset) > INT32_MAX)
    return false;
  const auto bytes = static_cast<int32_t>(load_be32(e + kOffsetFieldBytes));
  const uint8_t magic = e[kMagicOffset];
  if (magic == 2) {
    const int64_t last_delta_at = v2::kAttributesOffset + v2::kAttributesBytes;
    if (bytes < v2::kRecordBatchOverhead - kLogOverhead || static_cast<int32_t>(load_be32(e + v2::kRecordsCountOffset)) < 0 ||
        static_cast<int32_t>(load_be32(e + last_delta_at)) < 0)
      return false;
  } else if (magic <= 1) {
    const uint8_t attributes = e[legacy::kAttributesOffset];
    const int64_t key_at = magic == 1 ? legacy::kTimestampOffsetV1 + 8 : legacy::kTimestampOffsetV1;
    const auto key = static_cast<int32_t>(load_be32(e + key_at));  // key length, -1 for none
    if (bytes < (magic == 1 ? legacy::kRecordOverheadV1 : legacy::kRecordOverheadV0) ||
        (attributes & (magic == 1 ? 0xF0 : 0xF8)) != 0 || key < -1 || key > bytes)
      return false;
  } else {
    return false;
  }
  return bytes <= max_size && static_cast<size_t>(bytes) <= data.size() - p - kLogOverhead;
}

const char* crc_name(const EntryCheck& c) { return c.v2() ? "CRC-32C" : "CRC-32"; }

std::string crc_mismatch_text(const EntryCheck& c) {
  return fmt::format("{} mismatch: stored {:#010x}, computed {:#010x}", crc_name(c), c.crc_stored, c.crc_computed);
}

std::string too_small_text(const EntryRef& e) {
  return fmt::format("v2 batch of {} bytes is smaller than the {}-byte batch header", e.bytes.size(),
                     v2::kRecordBatchOverhead);
}

std::string unknown_codec_text(const EntryCheck& c) {
  return c.v2() ? fmt::format("unknown compression type id {} in batch attributes", c.codec_id)
                : fmt::format("compression type id {} is not allowed with magic {}", c.codec_id, c.magic);
}

bool needs_marker_check(const EntryCheck& c) {
  return c.v2() && c.decoded && c.header.is_control() && c.header.producer_id >= 0 && c.header.records_count > 0;
}

Status check_control_marker(const EntryRef& e, const v2::BatchHeader& h, size_t max_decompressed) {
  std::vector<uint8_t> scratch;
  auto first = control::first_record(e, h, scratch, max_decompressed);
  if (!first.ok()) return first.status();
  const int16_t type = first->key.type;
  if (type != static_cast<int16_t>(control::Type::abort) && type != static_cast<int16_t>(control::Type::commit))
    return Status::fail(Errc::refused, e.position,
                        fmt::format("control batch of producer {} holds a {} record, not a transaction marker: Kafka "
                                    "fails loading the log",
                                    h.producer_id, control::type_name(type)));
  return control::decode_end_txn_marker(first->value).status();
}

}  // namespace kseg
