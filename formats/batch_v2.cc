// SPDX-License-Identifier: Apache-2.0
#include "formats/batch_v2.h"

#include <cassert>
#include <climits>

#include <fmt/format.h>

#include "lib/checksum.h"

namespace kseg::v2 {

const char* timestamp_type_name(TimestampType t) {
  switch (t) {
    case TimestampType::none: return "NoTimestampType";
    case TimestampType::create_time: return "CreateTime";
    case TimestampType::log_append_time: return "LogAppendTime";
  }
  return "?";
}

// Kafka's DefaultRecordBatch.incrementSequence, in Java's wrapping int
// arithmetic: a corrupt (negative) lastOffsetDelta must not overflow here.
int32_t increment_sequence(int32_t sequence, int32_t increment) {
  const auto seq = static_cast<uint32_t>(sequence), inc = static_cast<uint32_t>(increment);
  const uint32_t max = INT32_MAX;
  if (sequence > static_cast<int32_t>(max - inc)) return static_cast<int32_t>(inc - (max - seq) - 1u);
  return static_cast<int32_t>(seq + inc);
}

int32_t BatchHeader::record_sequence(int32_t offset_delta) const {
  return base_sequence >= 0 ? increment_sequence(base_sequence, offset_delta) : -1;
}

int32_t BatchHeader::last_sequence() const {
  return base_sequence == -1 ? -1 : increment_sequence(base_sequence, last_offset_delta);
}

int64_t last_offset_of(const EntryRef& entry) {
  if (entry.magic >= 2)
    if (auto h = decode_header(entry); h.ok()) return h->last_offset();
  return entry.offset;
}

Result<BatchHeader> decode_header(const EntryRef& entry) {
  if (entry.bytes.size() < static_cast<size_t>(kRecordBatchOverhead))
    return Error{Errc::truncated, entry.position,
                 fmt::format("batch header needs {} bytes, entry has {}", kRecordBatchOverhead, entry.bytes.size())};
  return header_at(entry.bytes.data());
}

uint32_t compute_crc(Bytes entry) {
  if (entry.size() < static_cast<size_t>(kAttributesOffset)) return 0;
  return crc32c(entry.subspan(static_cast<size_t>(kAttributesOffset)));
}

bool RecordReader::next(Record& out) {
  if (left_ <= 0 || !status_.ok()) return false;
  const Position at = r_.position();
  out.position = at;
  out.length = r_.varint();
  if (!r_.ok()) {
    status_ = Status::fail(Errc::truncated, at, fmt::format("record {} from the end: premature end of the batch", left_));
    return false;
  }
  if (out.length < 0 || Length{out.length} > r_.remaining()) {
    status_ = Status::fail(Errc::bad_length, at,
                           fmt::format("record size {} but only {} bytes remain in the batch", out.length,
                                       r_.remaining().bytes));
    return false;
  }
  ByteReader body = r_.sub(Length{out.length});
  out.attributes = body.i8();
  out.timestamp_delta = body.varlong();
  out.offset_delta = body.varint();
  auto blob = [&body](Blob& b) {
    const int32_t n = body.varint();
    b.null = n < 0;
    b.bytes = n < 0 ? Bytes{} : body.bytes(Length{n});
  };
  blob(out.key);
  blob(out.value);
  out.headers_count = body.varint();
  if (body.ok() && (out.headers_count < 0 || Length{out.headers_count} > body.remaining())) {
    status_ = Status::fail(Errc::bad_length, at,
                           fmt::format("invalid header count {} in record", out.headers_count));
    return false;
  }
  out.headers = body.rest();
  // Walk the headers once so a bad one is caught here, not by a printer.
  HeaderReader hr(out);
  Header hdr;
  while (hr.next(hdr)) {}
  // Kafka requires the body to end exactly after the last header.
  if (!body.ok() || !hr.ok() || (out.headers_count == 0 && !out.headers.empty())) {
    status_ = Status::fail(Errc::bad_length, body.ok() ? at : body.fail_position(),
                           fmt::format("invalid record structure (record size {})", out.length));
    return false;
  }
  --left_;
  return true;
}

Status RecordReader::finish() const {
  if (!status_.ok()) return status_;
  if (left_ > 0) return Status::fail(Errc::truncated, r_.position(), "premature end of the batch");
  if (!r_.at_end())
    return Status::fail(Errc::trailing_bytes, r_.position(),
                        fmt::format("{} bytes remain after the last record", r_.remaining().bytes));
  return {};
}

bool HeaderReader::next(Header& out) {
  if (left_ <= 0 || !ok_) return false;
  const int32_t klen = r_.varint();
  if (klen < 0) { ok_ = false; return false; }
  out.key = as_chars(r_.bytes(Length{klen}));
  const int32_t vlen = r_.varint();
  out.value.null = vlen < 0;
  out.value.bytes = vlen < 0 ? Bytes{} : r_.bytes(Length{vlen});
  if (!r_.ok()) { ok_ = false; return false; }
  --left_;
  if (left_ == 0 && !r_.at_end()) ok_ = false;
  return true;
}

Result<Bytes> records_bytes(const EntryRef& entry, const BatchHeader& h, std::vector<uint8_t>& scratch,
                            size_t max_decompressed) {
  Bytes raw = entry.bytes.subspan(static_cast<size_t>(kRecordBatchOverhead));
  const Position raw_at = entry.position + Length{kRecordBatchOverhead};
  const int id = h.codec_id();
  if (id == 0) return raw;
  if (codec_name(id) == nullptr)
    return Error{Errc::bad_codec, entry.position + Length{kAttributesOffset},
                 fmt::format("unknown compression type id {}", id)};
  CodecOptions opts;
  opts.max_output = max_decompressed;
  KSEG_RETURN_IF_ERROR(decompress(static_cast<Codec>(id), raw, raw_at, scratch, opts));
  return Bytes{scratch};
}

void append_record(const RecordFields& r, ByteWriter& w) {
  auto blob_size = [](const Blob& b) {
    return b.null ? ByteWriter::varint_size(-1) : ByteWriter::varint_size(b.size()) + b.size();
  };
  int64_t body = 1 + ByteWriter::varlong_size(r.timestamp_delta) + ByteWriter::varint_size(r.offset_delta) +
                 blob_size(r.key) + blob_size(r.value) +
                 ByteWriter::varint_size(static_cast<int32_t>(r.headers.size()));
  for (const Header& h : r.headers) {
    const auto klen = static_cast<int32_t>(h.key.size());
    body += ByteWriter::varint_size(klen) + klen + blob_size(h.value);
  }
  auto put_blob = [&w](const Blob& b) {
    w.varint(b.size());
    if (!b.null) w.bytes(b.bytes);
  };
  w.varint(static_cast<int32_t>(body));
  w.i8(r.attributes);
  w.varlong(r.timestamp_delta);
  w.varint(r.offset_delta);
  put_blob(r.key);
  put_blob(r.value);
  w.varint(static_cast<int32_t>(r.headers.size()));
  for (const Header& h : r.headers) {
    w.varint(static_cast<int32_t>(h.key.size()));
    w.bytes(Bytes(reinterpret_cast<const uint8_t*>(h.key.data()), h.key.size()));
    put_blob(h.value);
  }
}

void append_header(const BatchHeader& h, ByteWriter& w) {
  const size_t start = w.size();
  w.i64(h.base_offset);
  w.i32(h.batch_length);
  w.i32(h.partition_leader_epoch);
  w.i8(h.magic);
  w.u32(h.crc);
  w.i16(h.attributes);
  w.i32(h.last_offset_delta);
  w.i64(h.base_timestamp);
  w.i64(h.max_timestamp);
  w.i64(h.producer_id);
  w.i16(h.producer_epoch);
  w.i32(h.base_sequence);
  w.i32(h.records_count);
  assert(w.size() - start == static_cast<size_t>(kRecordBatchOverhead));  // the table above
  (void)start;
}

void patch_crc(std::span<uint8_t> batch) {
  const uint32_t crc = compute_crc(batch);
  for (int i = 0; i < 4; ++i)
    batch[static_cast<size_t>(kCrcOffset + i)] = static_cast<uint8_t>(crc >> (24 - 8 * i));
}

Status append_batch(const BatchHeader& h, Codec codec, Bytes records, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  BatchHeader fixed = h;
  fixed.magic = 2;
  fixed.attributes = static_cast<int16_t>((h.attributes & ~0x07) | static_cast<int>(codec));
  ByteWriter w(out);
  append_header(fixed, w);
  if (codec == Codec::none) {
    w.bytes(records);
  } else {
    const Status s = compress(codec, records, out);
    if (!s.ok()) {
      out.resize(start);
      return s;
    }
  }
  const size_t total = out.size() - start;
  if (total - static_cast<size_t>(kLogOverhead) > static_cast<size_t>(INT32_MAX)) {
    out.resize(start);
    return Status::fail(Errc::too_large, std::nullopt,
                        fmt::format("a batch of {} bytes does not fit its size field", total));
  }
  w.patch_i32(start + static_cast<size_t>(kBaseOffsetBytes), static_cast<int32_t>(total - kLogOverhead));
  patch_crc(std::span<uint8_t>(out).subspan(start));
  return {};
}

}  // namespace kseg::v2
