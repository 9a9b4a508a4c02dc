#include "formats/log_batch.h"

#include <fmt/format.h>

namespace kseg {

Result<int64_t> entry_last_offset(const EntryRef& e) {
  if (e.magic < 2) return e.offset;
  auto h = v2::decode_header(e);
  if (!h.ok()) return h.error();
  return h->last_offset();
}

Status RecordWalker::walk(const EntryRef& e, const std::function<void(const RecordStamp&)>& fn) {
  if (e.magic < 2) {
    auto m = legacy::decode(e);
    if (!m.ok()) return m.status();
    if (m->codec_id() == 0) {
      fn({m->offset, m->timestamp});
      return {};
    }
    KSEG_RETURN_IF_ERROR(legacy::inner_messages(*m, scratch_, max_, inner_));
    for (const auto& im : inner_) fn({im.absolute_offset, im.timestamp});
    return {};
  }
  auto h = v2::decode_header(e);
  if (!h.ok()) return h.status();
  if (h->records_count < 0)
    return Status::fail(Errc::bad_length, e.position + Length{v2::kRecordsCountOffset},
                        fmt::format("invalid record count {}", h->records_count));
  auto records = v2::records_bytes(e, *h, scratch_, max_);
  if (!records.ok()) return records.status();
  v2::RecordReader rr(*records, Position{0}, h->records_count);
  v2::Record rec;
  while (rr.next(rec)) fn({h->record_offset(rec.offset_delta), h->record_timestamp(rec.timestamp_delta)});
  return rr.finish();
}

}  // namespace kseg
