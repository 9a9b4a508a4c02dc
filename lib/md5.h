// SPDX-License-Identifier: Apache-2.0
// MD5 (RFC 1321). Kafka's log cleaner keys its offset map by the MD5 of each
// record key (SkimpyOffsetMap, log.cleaner hash algorithm "MD5"), so two keys
// whose digests collide are one key to it; kseg uses the same digest to make
// the same decisions, including how many distinct keys fill the map.
//   md5("") == d41d8cd98f00b204e9800998ecf8427e
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "lib/byte_reader.h"

namespace kseg {

using Md5Digest = std::array<uint8_t, 16>;

Md5Digest md5(Bytes data);

// The same digest over bytes that come in pieces (a file read a window at a time).
class Md5 {
 public:
  void update(Bytes data);
  Md5Digest finish();

 private:
  uint32_t h_[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  uint8_t buf_[64];
  size_t held_ = 0;
  uint64_t total_ = 0;
};
// md5 of each of `in` into out[0..in.size()): four short inputs (<= 55
// bytes: one block) at a time in vector lanes, for the cleaner's keys.
void md5_many(std::span<const Bytes> in, Md5Digest* out);

}  // namespace kseg
