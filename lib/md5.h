// SPDX-License-Identifier: Apache-2.0
// MD5 (RFC 1321): kseg-excise --digest, a digest of a partition's .log files
// that replicas excised alike share. (Kafka's cleaner keys its offset map by
// MD5 too; kseg's takes a cheaper 128-bit hash: formats/offset_map.h.)
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
  uint32_t h_[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};  // RFC 1321 §3.3
  uint8_t buf_[64];
  size_t held_ = 0;
  uint64_t total_ = 0;
};

}  // namespace kseg
