// SPDX-License-Identifier: Apache-2.0
// XXH32 written from the published algorithm description (xxHash spec,
// "XXH32 algorithm"): four lanes over 16-byte stripes, then the tail in
// 4-byte and 1-byte steps, then the avalanche.
#include "lib/xxhash32.h"

namespace kseg {
namespace {

constexpr uint32_t kPrime1 = 0x9E3779B1u;
constexpr uint32_t kPrime2 = 0x85EBCA77u;
constexpr uint32_t kPrime3 = 0xC2B2AE3Du;
constexpr uint32_t kPrime4 = 0x27D4EB2Fu;
constexpr uint32_t kPrime5 = 0x165667B1u;

uint32_t rotl(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

uint32_t round(uint32_t acc, uint32_t lane) { return rotl(acc + lane * kPrime2, 13) * kPrime1; }

}  // namespace

uint32_t xxh32(Bytes data, uint32_t seed) {
  const uint8_t* p = data.data();
  const uint8_t* const end = p + data.size();
  uint32_t acc;
  if (data.size() >= 16) {
    uint32_t a1 = seed + kPrime1 + kPrime2, a2 = seed + kPrime2, a3 = seed, a4 = seed - kPrime1;
    for (; end - p >= 16; p += 16) {
      a1 = round(a1, le32(p));
      a2 = round(a2, le32(p + 4));
      a3 = round(a3, le32(p + 8));
      a4 = round(a4, le32(p + 12));
    }
    acc = rotl(a1, 1) + rotl(a2, 7) + rotl(a3, 12) + rotl(a4, 18);
  } else {
    acc = seed + kPrime5;
  }
  acc += static_cast<uint32_t>(data.size());
  for (; end - p >= 4; p += 4) acc = rotl(acc + le32(p) * kPrime3, 17) * kPrime4;
  for (; p < end; ++p) acc = rotl(acc + *p * kPrime5, 11) * kPrime1;
  acc ^= acc >> 15;
  acc *= kPrime2;
  acc ^= acc >> 13;
  acc *= kPrime3;
  acc ^= acc >> 16;
  return acc;
}

}  // namespace kseg
