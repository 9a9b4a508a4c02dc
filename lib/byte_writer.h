// SPDX-License-Identifier: Apache-2.0
// The mirror of ByteReader: big-endian fixed-width fields and Kafka's varints,
// appended to a byte vector, plus in-place patches of fields whose value is
// known only later (a length, a CRC). Field names match ByteReader's, so an
// encoder reads like the decoder beside it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/byte_reader.h"

namespace kseg {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(&out) {}

  size_t size() const { return out_->size(); }

  void u8(uint8_t v) { out_->push_back(v); }
  void i8(int8_t v) { u8(static_cast<uint8_t>(v)); }
  void u16(uint16_t v) { fixed(v, 2); }
  void i16(int16_t v) { fixed(static_cast<uint16_t>(v), 2); }
  void u32(uint32_t v) { fixed(v, 4); }
  void i32(int32_t v) { fixed(static_cast<uint32_t>(v), 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void i64(int64_t v) { fixed(static_cast<uint64_t>(v), 8); }

  // Kafka's zigzag varint and varlong, and the unsigned varint, in their
  // shortest form (the only form Kafka writes).
  void varint(int32_t v) { raw_varint(zigzag32(v)); }
  void varlong(int64_t v) { raw_varint(zigzag64(v)); }
  void uvarint(uint32_t v) { raw_varint(v); }

  void bytes(Bytes b) { out_->insert(out_->end(), b.begin(), b.end()); }

  // Overwrites 4 bytes written earlier, at `at` bytes from the vector's start.
  void patch_u32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) (*out_)[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
  }
  void patch_i32(size_t at, int32_t v) { patch_u32(at, static_cast<uint32_t>(v)); }

  // Encoded sizes, for lengths that precede what they measure.
  static int varint_size(int32_t v) { return raw_size(zigzag32(v)); }
  static int varlong_size(int64_t v) { return raw_size(zigzag64(v)); }

 private:
  static uint64_t zigzag32(int32_t v) {
    return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
  }
  static uint64_t zigzag64(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  static int raw_size(uint64_t u) {
    int n = 1;
    while (u >= 0x80) { u >>= 7; ++n; }
    return n;
  }
  void raw_varint(uint64_t u) {
    while (u >= 0x80) { out_->push_back(static_cast<uint8_t>(u | 0x80)); u >>= 7; }
    out_->push_back(static_cast<uint8_t>(u));
  }
  void fixed(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }

  std::vector<uint8_t>* out_;
};

// The image of a file of fixed-size entries (an index), each appended by
// append(out, entry).
template <class Entry, class Append>
std::vector<uint8_t> encode_entries(std::span<const Entry> entries, size_t entry_size, Append append) {
  std::vector<uint8_t> out;
  out.reserve(entries.size() * entry_size);
  for (const Entry& e : entries) append(out, e);
  return out;
}

}  // namespace kseg
