// SPDX-License-Identifier: Apache-2.0
#include "formats/kept_records.h"

#include <algorithm>

#include "formats/control.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "lib/byte_writer.h"

namespace kseg::kept {

Batch batch_of(const EntryRef& e) {
  Batch b;
  b.ref = e;
  b.check = check_entry(e);
  b.magic = e.magic;
  b.base = b.check.base_offset;
  b.last = b.check.last_offset;
  b.max_ts = b.check.max_timestamp;
  b.codec = b.check.codec_id;
  if (b.check.v2()) {
    const auto& h = b.check.header;
    b.control = h.is_control();
    b.txn = h.is_transactional();
    b.pid = h.producer_id;
    b.epoch = h.producer_epoch;
    b.has_pid = h.producer_id >= 0;
    b.log_append_time = h.timestamp_type() == v2::TimestampType::log_append_time;
    if (h.has_delete_horizon()) b.horizon = h.base_timestamp;
  } else {
    b.log_append_time = b.check.message && b.check.message->timestamp_type() == v2::TimestampType::log_append_time;
  }
  return b;
}

Status records_of(const Batch& b, std::vector<uint8_t>& scratch, std::vector<Rec>& out) {
  out.clear();
  RecordWalker walker(v2::kDefaultMaxDecompressed, &scratch);
  auto add = [&](const EntryRecord& r) {
    if (r.v2) out.push_back({r.offset, r.timestamp, 2, r.key, r.value, r.v2->headers, r.v2->headers_count});
    else out.push_back({r.offset, r.timestamp, r.message->magic, r.key, r.value, {}, 0});
    return true;
  };
  if (b.check.v2()) {
    out.reserve(static_cast<size_t>(std::clamp(b.check.header.records_count, 0, 1 << 16)));
    return walker.batch(b.ref, b.check.header, add);
  }
  if (!b.check.message) return legacy::decode(b.ref).status();
  return walker.message(*b.check.message, add);
}

Result<std::optional<int16_t>> control_type(const Batch& b, std::vector<uint8_t>& scratch) {
  if (b.check.header.records_count <= 0) return std::optional<int16_t>{};  // as Kafka's iterator: no record
  auto first = control::first_record(b.ref, b.check.header, scratch, v2::kDefaultMaxDecompressed);
  if (!first.ok()) return first.error();
  return std::optional<int16_t>{first->key.type};
}

Result<v2::BatchHeader> rebuild_batch(const Batch& b, std::span<const Rec> kept, std::optional<int64_t> horizon,
                                      std::vector<uint8_t>& out) {
  out.clear();
  v2::BatchHeader h;
  if (b.check.v2()) {
    h = b.check.header;
  } else {
    h.base_offset = kept.front().offset;
    h.last_offset_delta = static_cast<int32_t>(kept.back().offset - kept.front().offset);
    h.partition_leader_epoch = -1;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    h.max_timestamp = b.max_ts;
  }
  h.magic = 2;
  h.attributes = static_cast<int16_t>((b.log_append_time ? 0x08 : 0) | (b.txn ? 0x10 : 0) | (b.control ? 0x20 : 0) |
                                      (horizon ? 0x40 : 0));
  h.records_count = static_cast<int32_t>(kept.size());
  std::vector<uint8_t> records;
  ByteWriter w(records);
  if (kept.empty()) {
    h.base_timestamp = -1;
  } else {
    h.base_timestamp = horizon ? *horizon : kept[0].timestamp;
    if (!b.log_append_time) {
      h.max_timestamp = -1;
      for (const Rec& r : kept) h.max_timestamp = std::max(h.max_timestamp, r.timestamp);
    }
    std::vector<v2::Header> headers;
    for (const Rec& r : kept) {
      headers.clear();
      v2::Record raw;
      raw.headers = r.headers;
      raw.headers_count = r.headers_count;
      v2::HeaderReader hr(raw);
      v2::Header hd;
      while (hr.next(hd)) headers.push_back(hd);
      v2::RecordFields f;
      f.timestamp_delta = static_cast<int64_t>(static_cast<uint64_t>(r.timestamp) - static_cast<uint64_t>(h.base_timestamp));
      f.offset_delta = static_cast<int32_t>(r.offset - h.base_offset);
      f.key = r.key;
      f.value = r.value;
      f.headers = headers;
      v2::append_record(f, w);
    }
  }
  const Codec codec = kept.empty() ? Codec::none : static_cast<Codec>(b.codec);
  KSEG_RETURN_IF_ERROR(v2::append_batch(h, codec, records, out));
  return h;
}

}  // namespace kseg::kept
