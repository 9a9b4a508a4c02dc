#include "lib/md5.h"

#include <cmath>
#include <cstring>

namespace kseg {

namespace {

// The sine table of RFC 1321 §3.4, computed rather than spelled out:
// floor(|sin(i + 1)| * 2^32) is exact in IEEE double for every i < 64.
struct Table {
  uint32_t k[64];
  Table() {
    for (int i = 0; i < 64; ++i) k[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
  }
};

constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

inline uint32_t rotl(uint32_t x, int s) { return (x << s) | (x >> (32 - s)); }

void block(uint32_t h[4], const uint8_t* p) {
  static const Table table;
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 | uint32_t(p[4 * i + 3]) << 24;
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    switch (i / 16) {
      case 0: f = (b & c) | (~b & d); g = i; break;
      case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
      case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
      default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
    }
    f += a + table.k[i] + m[g];
    a = d;
    d = c;
    c = b;
    b += rotl(f, kShift[i / 16][i % 4]);
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
}

}  // namespace

Md5Digest md5(Bytes data) {
  uint32_t h[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  const size_t n = data.size();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) block(h, data.data() + i);
  uint8_t tail[128] = {};
  const size_t rest = n - i;
  if (rest) std::memcpy(tail, data.data() + i, rest);
  tail[rest] = 0x80;
  const size_t len = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int b = 0; b < 8; ++b) tail[len - 8 + b] = static_cast<uint8_t>(bits >> (8 * b));
  block(h, tail);
  if (len == 128) block(h, tail + 64);
  Md5Digest out;
  for (int w = 0; w < 4; ++w)
    for (int b = 0; b < 4; ++b) out[4 * w + b] = static_cast<uint8_t>(h[w] >> (8 * b));
  return out;
}

}  // namespace kseg
