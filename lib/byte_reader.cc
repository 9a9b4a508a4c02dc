// SPDX-License-Identifier: Apache-2.0
#include "lib/byte_reader.h"

namespace kseg {

uint64_t ByteReader::raw_varint_slow(int max_bytes) {
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

}  // namespace kseg
