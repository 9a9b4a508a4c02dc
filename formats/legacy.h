// SPDX-License-Identifier: Apache-2.0
// Magic v0 and v1 messages (Kafka's LegacyRecord / AbstractLegacyRecordBatch).
//
//   off size  field         v0 at / v1 at (from the entry start)
//    0   8    offset        0 / 0
//    8   4    size          8 / 8    bytes from crc to end of value
//   12   4    crc           12 / 12  CRC-32 (IEEE) of magic..end of value
//   16   1    magic         16 / 16
//   17   1    attributes    17 / 17  codec 0x07, v1 LogAppendTime 0x08
//        8    timestamp     -- / 18
//        4    key length    18 / 26  negative = null
//        K    key
//        4    value length           negative = null
//        V    value                  for a compressed wrapper: the inner message set
#pragma once

#include <cstdint>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/log_entry.h"
#include "lib/codec.h"
#include "lib/status.h"

namespace kseg::legacy {

inline constexpr int64_t kCrcOffset = kLogOverhead;                  // 12
inline constexpr int64_t kAttributesOffset = kMagicOffset + 1;       // 17
inline constexpr int64_t kTimestampOffsetV1 = kAttributesOffset + 1; // 18
inline constexpr int64_t kRecordOverheadV0 = 14;  // crc..value length with empty key and value
inline constexpr int64_t kRecordOverheadV1 = 22;
static_assert(kAttributesOffset == 17);

struct Message {
  Position position;  // entry start (file position, or inside a decompressed wrapper)
  int64_t offset = 0;  // as stored: absolute (v0, shallow v1) or relative (inner v1)
  int32_t size = 0;
  uint32_t crc = 0;
  int8_t magic = 0;
  int8_t attributes = 0;
  int64_t timestamp = -1;  // -1 for v0
  v2::Blob key;
  v2::Blob value;

  int codec_id() const { return attributes & 0x07; }
  v2::TimestampType timestamp_type() const {
    if (magic == 0) return v2::TimestampType::none;
    return (attributes & 0x08) ? v2::TimestampType::log_append_time : v2::TimestampType::create_time;
  }
};

// Decodes one legacy entry (log overhead included); checks bounds only.
Result<Message> decode(const EntryRef& entry);
// CRC-32 over magic..end of the entry, to compare with Message::crc.
uint32_t compute_crc(Bytes entry);

// One message of a wrapper's inner set, with Kafka's absolute offset and
// the timestamp and type a reader reports for it.
struct InnerMessage {
  Message message;
  int64_t absolute_offset = 0;
  int64_t timestamp = -1;
  v2::TimestampType timestamp_type = v2::TimestampType::none;
  bool crc_valid = false;
};

// Decompresses a wrapper and decodes its inner messages as Kafka's legacy
// deep iterator does (v1 relative offsets resolved from the wrapper offset and
// the last inner offset; LogAppendTime wrappers impose their timestamp).
// `scratch` holds the decompressed set; `out` views into it.
Status inner_messages(const Message& wrapper, std::vector<uint8_t>& scratch, size_t max_decompressed,
                      std::vector<InnerMessage>& out);

// ---- Encoding: the mirror of decode ----

// Appends one message: `m`'s offset, magic, attributes, timestamp (v1 only),
// key and value; the size and CRC fields are computed.
void append_message(const Message& m, std::vector<uint8_t>& out);

// Appends a compressed wrapper message whose value is `inner` (an encoded
// message set) compressed with `codec`, as Kafka's legacy producer wrote it
// (lz4 for magic 0 with the KIP-57 header checksum). The codec bits of
// `wrapper.attributes` are set from `codec`; its value and key are ignored
// (Kafka writes a null key).
Status append_wrapper(const Message& wrapper, Codec codec, Bytes inner, std::vector<uint8_t>& out);

}  // namespace kseg::legacy
