#include "tools/ops/compact/compact_filter.h"

#include <algorithm>

#include "formats/legacy.h"

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
  if (b.check.v2()) {
    const auto& h = b.check.header;
    auto bytes = v2::records_bytes(b.ref, h, scratch, kMaxDecompressed);
    if (!bytes.ok()) return bytes.error();
    v2::RecordReader reader(*bytes, Position{0}, h.records_count);
    out.reserve(static_cast<size_t>(std::clamp(h.records_count, 0, 1 << 16)));
    v2::Record r;
    while (reader.next(r))
      out.push_back({h.record_offset(r.offset_delta), h.record_timestamp(r.timestamp_delta), 2, r.key, r.value,
                     r.headers, r.headers_count});
    if (!reader.status().ok()) return reader.status();
    return reader.finish();
  }
  if (!b.check.message) return legacy::decode(b.ref).status();
  const legacy::Message& m = *b.check.message;
  if (m.codec_id() == 0) {
    out.push_back({m.offset, m.timestamp, m.magic, m.key, m.value, {}, 0});
    return {};
  }
  std::vector<legacy::InnerMessage> inner;
  KSEG_RETURN_IF_ERROR(legacy::inner_messages(m, scratch, kMaxDecompressed, inner));
  for (const auto& i : inner)
    out.push_back({i.absolute_offset, i.timestamp, i.message.magic, i.message.key, i.message.value, {}, 0});
  return {};
}

// The control type of a control batch's first record; none when it has none.
Result<std::optional<int16_t>> control_type(const Batch& b, std::vector<uint8_t>& scratch) {
  std::vector<Rec> recs;
  KSEG_RETURN_IF_ERROR(records_of(b, scratch, recs));
  if (recs.empty()) return std::optional<int16_t>{};
  auto k = control::decode_key(recs[0].key);
  if (!k.ok()) return k.error();
  return std::optional<int16_t>{k->type};
}

}  // namespace kseg::compact
