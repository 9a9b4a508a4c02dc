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

template <int Round>
inline uint32_t mix(uint32_t b, uint32_t c, uint32_t d) {
  if constexpr (Round == 0) return (b & c) | (~b & d);
  if constexpr (Round == 1) return (d & b) | (~d & c);
  if constexpr (Round == 2) return b ^ c ^ d;
  return c ^ (b | ~d);
}

// The message word each step of a round takes (RFC 1321 §3.4).
constexpr int word(int i) {
  return i < 16 ? i : i < 32 ? (5 * i + 1) % 16 : i < 48 ? (3 * i + 5) % 16 : (7 * i) % 16;
}

template <int Round>
inline void round16(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, const uint32_t* m, const uint32_t* k) {
  for (int j = 0; j < 16; ++j) {
    const int i = Round * 16 + j;
    const uint32_t f = mix<Round>(b, c, d) + a + k[i] + m[word(i)];
    a = d;
    d = c;
    c = b;
    b += rotl(f, kShift[Round][j % 4]);
  }
}

void block(uint32_t h[4], const uint8_t* p) {
  static const Table table;
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 | uint32_t(p[4 * i + 3]) << 24;
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  round16<0>(a, b, c, d, m, table.k);
  round16<1>(a, b, c, d, m, table.k);
  round16<2>(a, b, c, d, m, table.k);
  round16<3>(a, b, c, d, m, table.k);
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
