// SPDX-License-Identifier: Apache-2.0
// Magic v2 record batch (Kafka's DefaultRecordBatch).
//
//   off size field                  notes
//    0   8   baseOffset
//    8   4   batchLength            bytes after this field
//   12   4   partitionLeaderEpoch   not covered by the CRC
//   16   1   magic                  2
//   17   4   crc                    CRC-32C of bytes 21..end
//   21   2   attributes             codec 0x07, LogAppendTime 0x08, transactional 0x10,
//                                   control 0x20, delete horizon 0x40
//   23   4   lastOffsetDelta
//   27   8   baseTimestamp          the delete horizon when 0x40 is set
//   35   8   maxTimestamp
//   43   8   producerId
//   51   2   producerEpoch
//   53   4   baseSequence
//   57   4   recordsCount
//   61   …   records (compressed as one stream when codec != none)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "formats/log_entry.h"
#include "lib/byte_reader.h"
#include "lib/byte_writer.h"
#include "lib/codec.h"
#include "lib/status.h"

namespace kseg::v2 {

inline constexpr int64_t kBaseOffsetBytes = 8, kBatchLengthBytes = 4, kLeaderEpochBytes = 4,
                         kMagicBytes = 1, kCrcBytes = 4, kAttributesBytes = 2, kLastOffsetDeltaBytes = 4,
                         kTimestampBytes = 8, kProducerIdBytes = 8, kProducerEpochBytes = 2,
                         kBaseSequenceBytes = 4, kRecordsCountBytes = 4;
inline constexpr int64_t kCrcOffset = kBaseOffsetBytes + kBatchLengthBytes + kLeaderEpochBytes + kMagicBytes;
inline constexpr int64_t kAttributesOffset = kCrcOffset + kCrcBytes;
inline constexpr int64_t kRecordsCountOffset = kAttributesOffset + kAttributesBytes + kLastOffsetDeltaBytes +
                                               2 * kTimestampBytes + kProducerIdBytes + kProducerEpochBytes +
                                               kBaseSequenceBytes;
inline constexpr int64_t kRecordBatchOverhead = kRecordsCountOffset + kRecordsCountBytes;
static_assert(kCrcOffset == 17 && kAttributesOffset == 21 && kRecordsCountOffset == 57);
static_assert(kRecordBatchOverhead == 61);

// Java's long addition, which wraps. Offsets and timestamps computed from
// corrupt deltas must come out as Kafka would print them, not overflow (UB).
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

enum class TimestampType { none = -1, create_time = 0, log_append_time = 1 };
// Kafka's TimestampType names: NoTimestampType, CreateTime, LogAppendTime.
const char* timestamp_type_name(TimestampType t);

struct BatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = 0;
  int8_t magic = 0;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t base_sequence = 0;
  int32_t records_count = 0;

  int codec_id() const { return attributes & 0x07; }
  TimestampType timestamp_type() const {
    return (attributes & 0x08) ? TimestampType::log_append_time : TimestampType::create_time;
  }
  bool is_transactional() const { return (attributes & 0x10) != 0; }
  bool is_control() const { return (attributes & 0x20) != 0; }
  bool has_delete_horizon() const { return (attributes & 0x40) != 0; }
  int64_t last_offset() const { return wrapping_add(base_offset, last_offset_delta); }
  // A record's offset, timestamp and sequence as Kafka's DefaultRecord gives
  // them: LogAppendTime batches stamp every record with maxTimestamp, and a
  // batch without a producer (baseSequence -1) gives every record -1.
  int64_t record_offset(int32_t offset_delta) const { return wrapping_add(base_offset, offset_delta); }
  int64_t record_timestamp(int64_t timestamp_delta) const {
    return timestamp_type() == TimestampType::log_append_time ? max_timestamp
                                                              : wrapping_add(base_timestamp, timestamp_delta);
  }
  int32_t record_sequence(int32_t offset_delta) const;
  int32_t last_sequence() const;
  int64_t total_size() const { return kLogOverhead + batch_length; }
};

// Sequence arithmetic with Kafka's wrap past INT32_MAX to 0.
int32_t increment_sequence(int32_t sequence, int32_t increment);

// Decodes the 61-byte header of an entry; checks bounds only.
Result<BatchHeader> decode_header(const EntryRef& entry);
// The same from `p`, which the caller has checked holds 61 bytes: fixed
// offsets with no check per field, as those showed in profiles of small
// batches.
inline BatchHeader header_at(const uint8_t* p) {
  static_assert(kCrcOffset == 17 && kAttributesOffset == 21 && kRecordsCountOffset == 57);
  BatchHeader h;
  h.base_offset = static_cast<int64_t>(load_be64(p));
  h.batch_length = static_cast<int32_t>(load_be32(p + 8));
  h.partition_leader_epoch = static_cast<int32_t>(load_be32(p + 12));
  h.magic = static_cast<int8_t>(p[16]);
  h.crc = load_be32(p + 17);
  h.attributes = static_cast<int16_t>(load_be16(p + 21));
  h.last_offset_delta = static_cast<int32_t>(load_be32(p + 23));
  h.base_timestamp = static_cast<int64_t>(load_be64(p + 27));
  h.max_timestamp = static_cast<int64_t>(load_be64(p + 35));
  h.producer_id = static_cast<int64_t>(load_be64(p + 43));
  h.producer_epoch = static_cast<int16_t>(load_be16(p + 51));
  h.base_sequence = static_cast<int32_t>(load_be32(p + 53));
  h.records_count = static_cast<int32_t>(load_be32(p + 57));
  return h;
}
// The last offset Kafka reads from an entry's header (no checksum): a v2
// batch's base + lastOffsetDelta, a v0/v1 entry's offset.
int64_t last_offset_of(const EntryRef& entry);
// CRC-32C over bytes 21..end of the entry, as stored in the crc field.
uint32_t compute_crc(Bytes entry);

// A nullable byte string (key, value, header value): Kafka treats any
// negative length as null.
struct Blob {
  Bytes bytes;
  bool null = true;
  int32_t size() const { return null ? -1 : static_cast<int32_t>(bytes.size()); }
};

struct Record {
  Position position;  // of the length varint (file position, or position in the decompressed stream)
  int32_t length = 0;  // body bytes after the length varint
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  Blob key;
  Blob value;
  int32_t headers_count = 0;
  Bytes headers;  // the raw header bytes; walk them with HeaderReader
};

struct Header {
  std::string_view key;
  Blob value;
};

// Iterates the records of a batch from its (decompressed) records bytes.
// Positions in decompressed data are relative to the stream's start.
class RecordReader {
 public:
  RecordReader(Bytes records, Position base, int32_t count) : r_(records, base), left_(count) {}
  // Decodes the next record into `out`. Returns false at the end or on error;
  // tell them apart with status().
  bool next(Record& out);
  // After the last record: fails when bytes are left over ("records still remaining").
  Status finish() const;
  const Status& status() const { return status_; }
  int32_t left() const { return left_; }

 private:
  ByteReader r_;
  int32_t left_;
  Status status_;
};

class HeaderReader {
 public:
  HeaderReader(const Record& rec) : r_(rec.headers, Position{0}), left_(rec.headers_count) {}
  bool next(Header& out);
  bool ok() const { return ok_; }

 private:
  ByteReader r_;
  int32_t left_;
  bool ok_ = true;
};

// A tight walk over `count` records that accepts exactly what RecordReader
// (then finish()) accepts, without positions or error detail: `f(offset_delta,
// timestamp_delta)` is called per record and may return false to stop. Returns
// false on any fault; walk with RecordReader to say what and where.
namespace walk {
// A varint's raw bits from [p, end), at most max_bytes long; false when it
// runs past end or is overlong. One byte first: most record fields fit in it.
inline bool raw_varint(const uint8_t*& p, const uint8_t* end, int max_bytes, uint64_t& v) {
  if (p != end && *p < 0x80) { v = *p++; return true; }
  v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p == end) return false;
    const uint8_t b = *p++;
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) return true;
  }
  return false;
}
inline bool varint(const uint8_t*& p, const uint8_t* end, int32_t& out) {
  uint64_t u;
  if (!raw_varint(p, end, 5, u)) return false;
  const auto x = static_cast<uint32_t>(u);  // Java drops bits past 32 first
  out = static_cast<int32_t>((x >> 1) ^ (~(x & 1) + 1));
  return true;
}
inline bool varlong(const uint8_t*& p, const uint8_t* end, int64_t& out) {
  uint64_t u;
  if (!raw_varint(p, end, 10, u)) return false;
  out = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}
// A varint that must not be negative (a zigzag value with its low bit set).
inline bool length(const uint8_t*& p, const uint8_t* end, int64_t& out) {
  uint64_t u;
  if (!raw_varint(p, end, 5, u) || (u & 1)) return false;
  out = static_cast<uint32_t>(u) >> 1;
  return true;
}
// Steps over a length-prefixed blob; a negative length is null when
// `nullable` (keys, values) and an error otherwise (header keys). `out`,
// where given, gets the blob.
inline bool blob(const uint8_t*& p, const uint8_t* end, bool nullable, Blob* out = nullptr) {
  uint64_t u;
  if (!raw_varint(p, end, 5, u)) return false;
  if (u & 1) {
    if (out) *out = Blob{};
    return nullable;
  }
  const int64_t n = static_cast<uint32_t>(u) >> 1;
  if (n > end - p) return false;
  if (out) *out = Blob{Bytes(p, static_cast<size_t>(n)), false};
  p += n;
  return true;
}
}  // namespace walk

// What for_each_record hands its callback of each record.
struct WalkedRecord {
  int32_t offset_delta = 0;
  int64_t timestamp_delta = 0;
  Blob key, value;
};

template <class F>
bool for_each_record(Bytes records, int32_t count, F&& f) {
  // Raw pointers rather than ByteReader: this loop is kseg-verify's hot path
  // on small uncompressed records.
  const uint8_t* p = records.data();
  const uint8_t* const end = p + records.size();
  WalkedRecord r;
  for (int32_t i = 0; i < count; ++i) {
    int64_t length, headers;
    if (!walk::length(p, end, length) || length < 1 || length > end - p) return false;
    const uint8_t* const rend = p + length;
    ++p;  // attributes
    if (!walk::varlong(p, rend, r.timestamp_delta) || !walk::varint(p, rend, r.offset_delta) ||
        !walk::blob(p, rend, true, &r.key) || !walk::blob(p, rend, true, &r.value) ||
        !walk::length(p, rend, headers) || headers > rend - p)
      return false;
    for (int32_t h = 0; h < headers; ++h)
      if (!walk::blob(p, rend, false) || !walk::blob(p, rend, true)) return false;
    if (p != rend || !f(static_cast<const WalkedRecord&>(r))) return false;
  }
  return p == end;
}

// kseg's default --max-decompressed-bytes: how much of one batch's records
// any tool decompresses unless told otherwise.
inline constexpr size_t kDefaultMaxDecompressed = 256u << 20;

// The records region of a batch: the raw bytes for codec none, otherwise
// the decompressed stream in `scratch`. The codec is checked (ids 5..7 fail).
Result<Bytes> records_bytes(const EntryRef& entry, const BatchHeader& h, std::vector<uint8_t>& scratch,
                            size_t max_decompressed);

// ---- Encoding: the mirror of decode_header and RecordReader ----

// One record as the encoder takes it: deltas are from the batch's base
// offset and base timestamp.
struct RecordFields {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  Blob key;
  Blob value;
  std::span<const Header> headers;
};

// Appends one record (its length varint, then the body) to a records region.
void append_record(const RecordFields& r, ByteWriter& w);

// Appends the 61 header bytes with every field as `h` has it (the CRC too).
void append_header(const BatchHeader& h, ByteWriter& w);

// Rewrites the stored CRC of a whole encoded batch from its bytes (after a
// header field was changed in place).
void patch_crc(std::span<uint8_t> batch);

// Appends a whole batch: `h`'s fields as given except batchLength, crc and
// the codec bits of attributes, which follow from `codec` and `records` (an
// uncompressed records region of h.records_count records, compressed here as
// Kafka's producer compresses it).
Status append_batch(const BatchHeader& h, Codec codec, Bytes records, std::vector<uint8_t>& out);

}  // namespace kseg::v2
