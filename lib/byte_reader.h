// SPDX-License-Identifier: Apache-2.0
// A bounds-checked big-endian reader over contiguous bytes that always knows
// the absolute file position of what it reads.
//
// Reads never go past the end. A read that does not fit returns zero (or an
// empty span), reads nothing more and leaves the reader failed, remembering
// the position of the first failing read; callers read a group of fields and
// then test ok(). This keeps decoders short without hiding underflow.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "lib/types.h"

namespace kseg {

using Bytes = std::span<const uint8_t>;

inline std::string_view as_chars(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

class ByteReader {
 public:
  ByteReader() = default;
  // `base` is the absolute file position of data[0].
  ByteReader(Bytes data, Position base) : data_(data), base_(base) {}

  bool ok() const { return !failed_; }
  Position position() const { return base_ + Length{static_cast<int64_t>(pos_)}; }
  // Position of the first read that did not fit (valid when !ok()).
  Position fail_position() const { return fail_pos_; }
  Length remaining() const { return Length{static_cast<int64_t>(failed_ ? 0 : data_.size() - pos_)}; }
  bool at_end() const { return failed_ || pos_ == data_.size(); }
  // The bytes not yet read.
  Bytes rest() const { return failed_ ? Bytes{} : data_.subspan(pos_); }

  int8_t i8() { return static_cast<int8_t>(fixed<uint8_t>()); }
  uint8_t u8() { return fixed<uint8_t>(); }
  int16_t i16() { return static_cast<int16_t>(fixed<uint16_t>()); }
  uint16_t u16() { return fixed<uint16_t>(); }
  int32_t i32() { return static_cast<int32_t>(fixed<uint32_t>()); }
  uint32_t u32() { return fixed<uint32_t>(); }
  int64_t i64() { return static_cast<int64_t>(fixed<uint64_t>()); }
  uint64_t u64() { return fixed<uint64_t>(); }

  // Kafka's zigzag varint (at most 5 bytes) and varlong (at most 10 bytes).
  // An overlong encoding fails the reader like an underflow does.
  // Inline, with a one-byte fast path: record walking is mostly varints.
  int32_t varint() {
    const auto u = static_cast<uint32_t>(raw_varint(5));  // Java drops bits past 32 first
    return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  int64_t varlong() {
    const uint64_t u = raw_varint(10);
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  // Kafka's unsigned varint (used by KRaft metadata framing).
  uint32_t uvarint() { return static_cast<uint32_t>(raw_varint(5)); }

  Bytes bytes(Length n) {
    if (failed_ || n.bytes < 0 || static_cast<uint64_t>(n.bytes) > data_.size() - pos_) {
      fail_at(pos_);
      return {};
    }
    Bytes out = data_.subspan(pos_, static_cast<size_t>(n.bytes));
    pos_ += static_cast<size_t>(n.bytes);
    return out;
  }
  void skip(Length n) { (void)bytes(n); }

  // A reader over the next n bytes; this reader advances by exactly n.
  // If fewer than n remain, both readers are failed.
  ByteReader sub(Length n) {
    const Position at = position();
    ByteReader r(bytes(n), at);
    if (failed_) r.fail();
    return r;
  }

  void fail() { fail_at(pos_); }

 private:
  template <class U>
  U fixed() {
    if (failed_ || data_.size() - pos_ < sizeof(U)) { fail_at(pos_); return 0; }
    U v = 0;
    for (size_t i = 0; i < sizeof(U); ++i) v = static_cast<U>((v << 8) | data_[pos_ + i]);
    pos_ += sizeof(U);
    return v;
  }
  void fail_at(size_t at) {
    if (!failed_) fail_pos_ = base_ + Length{static_cast<int64_t>(at)};
    failed_ = true;
  }
  // One byte, then up to three without bounds checks when the buffer has
  // room; longer or near-the-end encodings (and every failure) take the
  // checked loop. The one-byte case comes first because a record's last
  // field, its header count, is read with nothing after it.
  uint64_t raw_varint(int max_bytes) {
    if (!failed_ && pos_ < data_.size() && data_[pos_] < 0x80) return data_[pos_++];
    if (failed_ || data_.size() - pos_ < 3) return raw_varint_slow(max_bytes);
    const uint8_t* p = data_.data() + pos_;
    if (p[1] < 0x80) { pos_ += 2; return (p[0] & 0x7fu) | (uint64_t{p[1]} << 7); }
    if (p[2] < 0x80) { pos_ += 3; return (p[0] & 0x7fu) | (uint64_t{p[1] & 0x7fu} << 7) | (uint64_t{p[2]} << 14); }
    return raw_varint_slow(max_bytes);
  }
  uint64_t raw_varint_slow(int max_bytes);

  Bytes data_;
  Position base_{0};
  size_t pos_ = 0;
  bool failed_ = false;
  Position fail_pos_{-1};
};

// Big-endian loads from a span known to be long enough (callers check).
inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
inline uint64_t load_be64(const uint8_t* p) {
  return (uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

}  // namespace kseg
