#include "lib/byte_reader.h"

namespace kseg {

uint64_t ByteReader::raw_varint(int max_bytes) {
  uint64_t v = 0;
  const size_t start = pos_;
  for (int i = 0; i < max_bytes; ++i) {
    if (failed_ || pos_ == data_.size()) { fail_at(start); return 0; }
    const uint8_t b = data_[pos_++];
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) return v;
  }
  fail_at(start);  // overlong: Kafka rejects more than 5 (10) bytes
  return 0;
}

int32_t ByteReader::varint() {
  const auto u = static_cast<uint32_t>(raw_varint(5));
  return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
}

int64_t ByteReader::varlong() {
  const uint64_t u = raw_varint(10);
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

uint32_t ByteReader::uvarint() { return static_cast<uint32_t>(raw_varint(5)); }

Bytes ByteReader::bytes(Length n) {
  if (failed_ || n.bytes < 0 || static_cast<uint64_t>(n.bytes) > data_.size() - pos_) {
    fail_at(pos_);
    return {};
  }
  Bytes out = data_.subspan(pos_, static_cast<size_t>(n.bytes));
  pos_ += static_cast<size_t>(n.bytes);
  return out;
}

ByteReader ByteReader::sub(Length n) {
  const Position at = position();
  Bytes b = bytes(n);
  ByteReader r(b, at);
  if (failed_) r.fail();
  return r;
}

}  // namespace kseg
