// SPDX-License-Identifier: Apache-2.0
// CRC-32 via ISA-L when built with it, else zlib. CRC-32C via ISA-L, else the SSE4.2
// crc32 instruction when the CPU has it, else slicing-by-8 tables; and below
// 16 KiB by carry-less multiplication (PCLMULQDQ) where the CPU has it.
#include "lib/checksum.h"

#include <array>
#include <climits>
#include <cstring>

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#ifdef KSEG_HAVE_ISAL
#include <isa-l/crc.h>
#endif

namespace kseg {

uint32_t crc32(Bytes data, uint32_t crc) {
#ifdef KSEG_HAVE_ISAL
  // Several times zlib's speed; legacy (v0/v1) segments are CRC-32 bound.
  return crc32_gzip_refl(crc, data.data(), data.size());
#else
  return crc_detail::crc32_zlib(data, crc);
#endif
}

uint32_t crc_detail::crc32_zlib(Bytes data, uint32_t crc) {
  // zlib takes uInt lengths; feed very large inputs in pieces.
  const uint8_t* p = data.data();
  size_t n = data.size();
  uLong c = crc;
  while (n > 0) {
    const auto piece = static_cast<uInt>(n < UINT_MAX ? n : UINT_MAX);
    c = ::crc32(c, p, piece);
    p += piece;
    n -= piece;
  }
  return static_cast<uint32_t>(c);
}

namespace crc_detail {
namespace {

constexpr uint32_t kCastagnoliReflected = 0x82F63B78u;

// tables[k][b]: CRC register after feeding byte b followed by k zero bytes.
using SliceTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr SliceTables make_tables() {
  SliceTables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t r = b;
    for (int i = 0; i < 8; ++i) r = (r >> 1) ^ ((r & 1u) ? kCastagnoliReflected : 0u);
    t[0][b] = r;
  }
  for (size_t k = 1; k < 8; ++k)
    for (size_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  return t;
}

constexpr SliceTables kTables = make_tables();

uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

uint32_t crc32c_table(Bytes data, uint32_t crc) {
  uint32_t r = ~crc;
  const uint8_t* p = data.data();
  size_t n = data.size();
  while (n >= 8) {
    const uint64_t v = load_le64(p) ^ r;
    r = kTables[7][v & 0xFF] ^ kTables[6][(v >> 8) & 0xFF] ^ kTables[5][(v >> 16) & 0xFF] ^
        kTables[4][(v >> 24) & 0xFF] ^ kTables[3][(v >> 32) & 0xFF] ^ kTables[2][(v >> 40) & 0xFF] ^
        kTables[1][(v >> 48) & 0xFF] ^ kTables[0][v >> 56];
    p += 8;
    n -= 8;
  }
  for (; n > 0; --n, ++p) r = (r >> 8) ^ kTables[0][(r ^ *p) & 0xFF];
  return ~r;
}

#if defined(__x86_64__)
bool crc32c_sse42_available() { return __builtin_cpu_supports("sse4.2"); }

__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(Bytes data, uint32_t crc) {
  uint64_t r = ~crc;
  const uint8_t* p = data.data();
  size_t n = data.size();
  for (; n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0; --n, ++p)
    r = _mm_crc32_u8(static_cast<uint32_t>(r), *p);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    r = _mm_crc32_u64(r, v);
  }
  for (; n > 0; --n, ++p) r = _mm_crc32_u8(static_cast<uint32_t>(r), *p);
  return ~static_cast<uint32_t>(r);
}

// Folding: the bytes are read in order, 64 at a time into four 16-byte
// accumulators, each moved forward past the next 64 bytes by carry-less
// multiplication and reduction by P, so that what is left is a 16-byte
// message with the same CRC, finished with the crc32 instruction.
//
// Bit-reflected, a 16-byte chunk loaded little-endian holds x^127 (bit 0)
// down to x^0 (bit 127): its low qword is a polynomial H of degree < 64 at
// x^64, its high one L at x^0. Moving it forward by d bits needs
// H * x^(d+64) + L * x^d mod P. PCLMULQDQ of two reflected 64-bit operands
// gives their product times x in the 128-bit reflected layout, hence the
// exponents d+63 and d-1 below; a multiplier of degree < 32 is its
// reflected 32-bit value (the CRC register's layout) in bits 63..32.
namespace {

constexpr uint64_t x_pow_operand(int e) {  // x^e mod P as a multiplier
  uint32_t r = 0x80000000u;                // x^0, reflected
  for (int i = 0; i < e; ++i) r = (r >> 1) ^ ((r & 1u) ? kCastagnoliReflected : 0u);
  return uint64_t{r} << 32;
}

// {low-qword multiplier, high-qword multiplier} for a move of d bits.
constexpr std::array<uint64_t, 2> fold_by(int d) {
  return {x_pow_operand(d + 63), x_pow_operand(d - 1)};
}

constexpr std::array<uint64_t, 2> kFold512 = fold_by(512), kFold384 = fold_by(384), kFold256 = fold_by(256),
                                  kFold128 = fold_by(128);

__attribute__((target("pclmul,sse4.2"))) __m128i load_pair(const std::array<uint64_t, 2>& k) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.data()));
}

__attribute__((target("pclmul,sse4.2"))) __m128i move_forward(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

__attribute__((target("pclmul,sse4.2"))) __m128i load16(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

}  // namespace

bool crc32c_fold_available() { return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2"); }

__attribute__((target("pclmul,sse4.2"))) uint32_t crc32c_fold(Bytes data, uint32_t crc) {
  uint64_t r = ~crc;
  const uint8_t* p = data.data();
  size_t n = data.size();
  if (n >= 64) {
    const __m128i k512 = load_pair(kFold512), k128 = load_pair(kFold128);
    // The running register enters as the first four message bytes XOR it.
    __m128i x0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128(static_cast<int>(static_cast<uint32_t>(r))));
    __m128i x1 = load16(p + 16), x2 = load16(p + 32), x3 = load16(p + 48);
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
      x0 = _mm_xor_si128(move_forward(x0, k512), load16(p));
      x1 = _mm_xor_si128(move_forward(x1, k512), load16(p + 16));
      x2 = _mm_xor_si128(move_forward(x2, k512), load16(p + 32));
      x3 = _mm_xor_si128(move_forward(x3, k512), load16(p + 48));
    }
    const __m128i x01 = _mm_xor_si128(move_forward(x0, load_pair(kFold384)), move_forward(x1, load_pair(kFold256)));
    __m128i x = _mm_xor_si128(x01, _mm_xor_si128(move_forward(x2, k128), x3));
    for (; n >= 16; p += 16, n -= 16) x = _mm_xor_si128(move_forward(x, k128), load16(p));
    r = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(x)));
    r = _mm_crc32_u64(r, static_cast<uint64_t>(_mm_extract_epi64(x, 1)));
  }
  return crc32c_sse42(Bytes(p, n), ~static_cast<uint32_t>(r));  // the last 0-63 bytes
}
#else
bool crc32c_sse42_available() { return false; }
uint32_t crc32c_sse42(Bytes data, uint32_t crc) { return crc32c_table(data, crc); }
bool crc32c_fold_available() { return false; }
uint32_t crc32c_fold(Bytes data, uint32_t crc) { return crc32c_table(data, crc); }
#endif

#ifdef KSEG_HAVE_ISAL
bool crc32c_isal_available() { return true; }

// ISA-L's crc32_iscsi works on the raw register (no final inversion, the
// caller supplies the initial register), so invert on the way in and out.
uint32_t crc32c_isal(Bytes data, uint32_t crc) {
  uint32_t r = ~crc;
  // ISA-L takes non-const pointers but only reads; lengths are int.
  auto* p = const_cast<unsigned char*>(data.data());
  size_t n = data.size();
  while (n > 0) {
    const int piece = static_cast<int>(n < (1u << 30) ? n : (1u << 30));
    r = crc32_iscsi(p, piece, r);
    p += piece;
    n -= static_cast<size_t>(piece);
  }
  return ~r;
}
#else
bool crc32c_isal_available() { return false; }
uint32_t crc32c_isal(Bytes data, uint32_t crc) { return crc32c_table(data, crc); }
#endif

}  // namespace crc_detail

namespace {

using Crc32cFn = uint32_t (*)(Bytes, uint32_t);

Crc32cFn pick_crc32c(const char** name) {
  const bool fold = crc_detail::crc32c_fold_available();
  if (crc_detail::crc32c_isal_available()) {
    *name = fold ? "pclmul+isa-l" : "isa-l";
    return crc_detail::crc32c_isal;
  }
  if (crc_detail::crc32c_sse42_available()) {
    *name = fold ? "pclmul+sse4.2" : "sse4.2";
    return crc_detail::crc32c_sse42;
  }
  *name = "table";
  return crc_detail::crc32c_table;
}

struct Crc32cDispatch {
  const char* name = nullptr;
  Crc32cFn fn = pick_crc32c(&name);
  bool fold = crc_detail::crc32c_fold_available();
  bool isal = crc_detail::crc32c_isal_available();
};

const Crc32cDispatch& dispatch() {
  static const Crc32cDispatch d;
  return d;
}

// ISA-L runs three crc32 chains over the thirds of a buffer: fastest when
// the bytes are in cache, but on batches of 2-8 KiB read from memory, as a
// segment scan reads them, at half the speed of folding, which reads in
// order (the thirds are likely too short for the hardware prefetcher).
// Below 1 KiB ISA-L again: entries that small are in cache when checked,
// requested by the scanner's prefetch. Figures: tests/bench/README.md,
// "Measurements behind the code".
constexpr size_t kFoldBelow = 16384;
constexpr size_t kIsalBelow = 1024;

}  // namespace

uint32_t crc32c(Bytes data, uint32_t crc) {
  const auto& d = dispatch();
  if (d.isal && data.size() < kIsalBelow) return d.fn(data, crc);
  if (d.fold && data.size() < kFoldBelow) return crc_detail::crc32c_fold(data, crc);
  return d.fn(data, crc);
}

const char* crc32c_implementation() { return dispatch().name; }

}  // namespace kseg
