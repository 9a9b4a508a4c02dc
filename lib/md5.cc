// SPDX-License-Identifier: Apache-2.0
#include "lib/md5.h"

#include <algorithm>
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
const Table& table() {
  static const Table t;
  return t;
}

constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

template <class W>
inline W rotl(W x, int s) {
  return (x << s) | (x >> (32 - s));
}

template <int Round, class W>
inline W mix(W b, W c, W d) {
  if constexpr (Round == 0) return (b & c) | (~b & d);
  if constexpr (Round == 1) return (d & b) | (~d & c);
  if constexpr (Round == 2) return b ^ c ^ d;
  return c ^ (b | ~d);
}

// The message word each step of a round takes (RFC 1321 §3.4).
constexpr int word(int i) {
  return i < 16 ? i : i < 32 ? (5 * i + 1) % 16 : i < 48 ? (3 * i + 5) % 16 : (7 * i) % 16;
}

template <int Round, class W>
inline void round16(W& a, W& b, W& c, W& d, const W* m, const uint32_t* k) {
  for (int j = 0; j < 16; ++j) {
    const int i = Round * 16 + j;
    const W f = mix<Round>(b, c, d) + a + k[i] + m[word(i)];
    a = d;
    d = c;
    c = b;
    b += rotl(f, kShift[Round][j % 4]);
  }
}

template <class W>
void compress(W h[4], const W m[16]) {
  const uint32_t* k = table().k;
  W a = h[0], b = h[1], c = h[2], d = h[3];
  round16<0>(a, b, c, d, m, k);
  round16<1>(a, b, c, d, m, k);
  round16<2>(a, b, c, d, m, k);
  round16<3>(a, b, c, d, m, k);
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
}

inline uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void block(uint32_t h[4], const uint8_t* p) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = le32(p + 4 * i);
  compress(h, m);
}

// The last block(s): the tail, 0x80, zeros, the bit length.
size_t pad(const uint8_t* tail_bytes, size_t rest, uint64_t total, uint8_t out[128]) {
  std::memset(out, 0, 128);
  if (rest) std::memcpy(out, tail_bytes, rest);
  out[rest] = 0x80;
  const size_t len = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bits = total * 8;
  for (int b = 0; b < 8; ++b) out[len - 8 + b] = static_cast<uint8_t>(bits >> (8 * b));
  return len;
}

void put_digest(const uint32_t h[4], Md5Digest& out) {
  for (int w = 0; w < 4; ++w)
    for (int b = 0; b < 4; ++b) out[4 * w + b] = static_cast<uint8_t>(h[w] >> (8 * b));
}

}  // namespace

Md5Digest md5(Bytes data) {
  Md5 m;
  m.update(data);
  return m.finish();
}

void Md5::update(Bytes data) {
  const uint8_t* p = data.data();
  size_t n = data.size();
  total_ += n;
  if (held_) {
    const size_t take = std::min(n, 64 - held_);
    std::memcpy(buf_ + held_, p, take);
    held_ += take, p += take, n -= take;
    if (held_ < 64) return;
    block(h_, buf_);
    held_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) block(h_, p);
  if (n) std::memcpy(buf_, p, n);
  held_ = n;
}

Md5Digest Md5::finish() {
  uint8_t tail[128];
  const size_t len = pad(buf_, held_, total_, tail);
  block(h_, tail);
  if (len == 128) block(h_, tail + 64);
  Md5Digest out;
  put_digest(h_, out);
  return out;
}

}  // namespace kseg
