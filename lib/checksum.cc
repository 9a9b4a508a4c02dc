// CRC-32 via ISA-L when built with it, else zlib; CRC-32C via ISA-L, else the SSE4.2
// crc32 instruction when the CPU has it, else slicing-by-8 tables.
#include "lib/checksum.h"

#include <array>
#include <climits>
#include <cstring>

#include <zlib.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
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
#else
bool crc32c_sse42_available() { return false; }
uint32_t crc32c_sse42(Bytes data, uint32_t crc) { return crc32c_table(data, crc); }
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
  if (crc_detail::crc32c_isal_available()) { *name = "isa-l"; return crc_detail::crc32c_isal; }
  if (crc_detail::crc32c_sse42_available()) { *name = "sse4.2"; return crc_detail::crc32c_sse42; }
  *name = "table";
  return crc_detail::crc32c_table;
}

struct Crc32cDispatch {
  const char* name = nullptr;
  Crc32cFn fn = pick_crc32c(&name);
};

const Crc32cDispatch& dispatch() {
  static const Crc32cDispatch d;
  return d;
}

}  // namespace

uint32_t crc32c(Bytes data, uint32_t crc) { return dispatch().fn(data, crc); }

const char* crc32c_implementation() { return dispatch().name; }

}  // namespace kseg
