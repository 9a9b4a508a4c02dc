// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/json_writer.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace kseg {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The continuation bytes a lead byte allows first: UTF-8 without overlong
// forms, surrogates or code points past U+10FFFF (RFC 3629). {0, 0} for a
// byte that cannot lead.
struct Lead {
  uint8_t length;  // bytes in the sequence
  uint8_t lo, hi;  // the range of the first continuation byte
};

constexpr Lead lead_of(uint8_t b) {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

// Eight bytes at a time: a byte below 0x20, at or above 0x80, '"' or '\\'
// ends the run. The loop of one compare per byte was a fifth of a
// --print-data-log JSON dump.
namespace {

// Whether none of the 8 bytes at `p` needs escaping.
bool plain_word(const uint8_t* p) {
  constexpr uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  auto has_zero = [](uint64_t v) { return (v - ones) & ~v & high; };
  uint64_t x;
  std::memcpy(&x, p, 8);
  return ((x & high) | ((x - 0x20 * ones) & ~x & high) | has_zero(x ^ ('"' * ones)) | has_zero(x ^ ('\\' * ones))) == 0;
}

// For each ASCII byte, 0 when it is written as it is, else what follows
// the backslash of its escape ('u' for \u00XX).
constexpr std::array<char, 128> kEscape = [] {
  std::array<char, 128> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = 'u';
  t['"'] = '"';
  t['\\'] = '\\';
  t['\b'] = 'b';
  t['\f'] = 'f';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  return t;
}();

}  // namespace

size_t json_plain_prefix(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i + 8 <= n && plain_word(p + i)) i += 8;
  while (i < n && p[i] < 0x80 && kEscape[p[i]] == 0) ++i;
  return i;
}

// nlohmann's dump() with error_handler_t::replace decides byte by byte: a
// byte that cannot start a sequence becomes one U+FFFD; a sequence broken
// by a byte that cannot continue it becomes one U+FFFD and that byte is
// read again as the start of what follows; a sequence the string ends in
// becomes one U+FFFD. Control characters are escaped, DEL is not.
void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = json_plain_prefix(p, n);
  if (i == n) {  // nothing to escape, the common case: one write
    const size_t at = out.size();
    out.try_resize(at + n + 2);
    char* d = out.data() + at;
    *d++ = '"';
    d = std::copy(s.begin(), s.end(), d);
    *d = '"';
    return;
  }
  // Written through a pointer, a piece of the string at a time with room for
  // its worst case (a byte becomes at most 6): through an append per escape
  // the decoders' JSON text (a quote every few bytes) cost a third of a
  // --offsets-decoder JSON dump.
  constexpr size_t kPiece = 16384, kWorst = 6, kSlack = 8;  // slack: a UTF-8 sequence read past the piece
  static constexpr char kHex[] = "0123456789abcdef";
  size_t at = out.size();
  out.try_reserve(at + 1);
  out.try_resize(at + 1);
  out.data()[at++] = '"';
  i = 0;
  while (i < n) {
    const size_t lim = std::min(n, i + kPiece);
    out.try_reserve(at + (lim - i) * kWorst + kSlack);
    char* const begin = out.data();
    char* d = begin + at;
    while (i < lim) {
      // Eight plain bytes at a time where they are; escapes come every few
      // bytes in the decoders' text, so the rest goes byte by byte.
      if (i + 8 <= lim && plain_word(p + i)) {
        std::memcpy(d, p + i, 8);
        d += 8;
        i += 8;
        continue;
      }
      const uint8_t b = p[i];
      if (b < 0x80) {
        const char e = kEscape[b];
        if (e == 0) {
          *d++ = static_cast<char>(b);
        } else {
          *d++ = '\\';
          *d++ = e;
          if (e == 'u') {
            *d++ = '0';
            *d++ = '0';
            *d++ = kHex[b >> 4];
            *d++ = kHex[b & 15];
          }
        }
        ++i;
        continue;
      }
      const Lead l = lead_of(b);
      size_t k = 1;
      for (; k < l.length && i + k < n; ++k) {
        const uint8_t c = p[i + k];
        const bool ok = k == 1 ? (c >= l.lo && c <= l.hi) : (c >= 0x80 && c <= 0xBF);
        if (!ok) break;
      }
      if (l.length != 0 && k == l.length) {
        std::memcpy(d, p + i, k);
        d += k;
      } else {  // the breaking byte, if any, is read again
        std::memcpy(d, kReplacement.data(), kReplacement.size());
        d += kReplacement.size();
      }
      i += l.length == 0 ? 1 : k;
    }
    at = static_cast<size_t>(d - begin);
    out.try_resize(at);
  }
  out.push_back('"');
}

}  // namespace kseg
