// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/compact/compact_filter.h"

#include <algorithm>

#include "formats/legacy.h"
#include "formats/log_batch.h"

namespace kseg::compact {

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

// The records of a batch in order (Kafka's deep iteration).
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

}  // namespace kseg::compact
