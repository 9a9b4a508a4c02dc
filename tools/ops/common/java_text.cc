// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/java_text.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kseg {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

bool cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// Length of the malformed prefix of a 3-byte sequence (JDK rule).
size_t malformed3_len(uint8_t b1, uint8_t b2) { return ((b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !cont(b2)) ? 1 : 2; }

bool malformed4_lead(uint8_t b1, uint8_t b2) {
  return b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && (b2 & 0xF0) != 0x80) || !cont(b2);
}

// Length of the run of ASCII bytes at the start of `p`: 32 bytes a step
// where SSE2 is there (every x86-64), then 8, then 1. With `copy_to`, also
// copies the run there, the 32-byte steps storing what they just checked.
size_t ascii_run(const uint8_t* p, size_t n, char* copy_to) {
  size_t j = 0;
#if defined(__SSE2__)
  for (; j + 32 <= n; j += 32) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j + 16));
    if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) break;
    if (copy_to != nullptr) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(copy_to + j), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(copy_to + j + 16), b);
    }
  }
#endif
  const size_t stored = copy_to != nullptr ? j : 0;
  for (uint64_t w; j + 8 <= n; j += 8) {
    std::memcpy(&w, p + j, 8);
    if (w & 0x8080808080808080u) break;
  }
  while (j < n && p[j] < 0x80) ++j;
  if (copy_to != nullptr) std::memcpy(copy_to + stored, p + stored, j - stored);
  return j;
}

template <class Out>
void put(Out& out, const uint8_t* p, size_t n) {
  out.append(reinterpret_cast<const char*>(p), reinterpret_cast<const char*>(p) + n);
}

template <class Out>
void put(Out& out, std::string_view s) {
  out.append(s.data(), s.data() + s.size());
}

// Copies the run of ASCII bytes at the start of `p` to `out`; returns its length.
size_t copy_ascii(std::string& out, const uint8_t* p, size_t n) {
  const size_t len = ascii_run(p, n, nullptr);
  put(out, p, len);
  return len;
}

// The same into a text buffer, checked and copied in one pass: the payloads
// that kseg-dump prints go this way.
size_t copy_ascii(fmt::memory_buffer& out, const uint8_t* p, size_t n) {
  const size_t at = out.size();
  out.resize(at + n);  // fmt's buffers leave new bytes uninitialised
  const size_t len = ascii_run(p, n, out.data() + at);
  out.resize(at + len);
  return len;
}

template <class Out>
void append_utf8(Out& out, Bytes in) {
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b1 = in[i];
    if (b1 < 0x80) {
      i += copy_ascii(out, in.data() + i, n - i);  // the whole ASCII run (the common case)
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (i + 1 < n && cont(in[i + 1])) {
        put(out, in.data() + i, 2);
        i += 2;
      } else {
        put(out, kReplacement);
        i += 1;
      }
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      if (i + 2 < n) {
        const uint8_t b2 = in[i + 1], b3 = in[i + 2];
        const bool bad = (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !cont(b2) || !cont(b3);
        if (bad) {
          put(out, kReplacement);
          i += malformed3_len(b1, b2);
        } else {
          if (b1 == 0xED && b2 >= 0xA0) put(out, kReplacement);  // a surrogate code point
          else put(out, in.data() + i, 3);
          i += 3;
        }
      } else if (i + 1 < n && ((b1 == 0xE0 && (in[i + 1] & 0xE0) == 0x80) || !cont(in[i + 1]))) {
        put(out, kReplacement);
        i += 1;
      } else {
        put(out, kReplacement);  // a truncated sequence at the end: one replacement
        return;
      }
    } else if (b1 >= 0xF0 && b1 <= 0xF7) {
      if (i + 3 < n) {
        const uint8_t b2 = in[i + 1], b3 = in[i + 2], b4 = in[i + 3];
        const uint32_t cp = ((b1 & 0x07u) << 18) | ((b2 & 0x3Fu) << 12) | ((b3 & 0x3Fu) << 6) | (b4 & 0x3Fu);
        if (!cont(b2) || !cont(b3) || !cont(b4) || cp < 0x10000 || cp > 0x10FFFF) {
          put(out, kReplacement);
          i += malformed4_lead(b1, b2) ? 1 : (!cont(b3) ? 2 : 3);
        } else {
          put(out, in.data() + i, 4);
          i += 4;
        }
      } else if (b1 > 0xF4 || (i + 1 < n && malformed4_lead(b1, in[i + 1]))) {
        put(out, kReplacement);
        i += 1;
      } else {
        // Truncated at the end: lead and second byte become one replacement;
        // a third byte that is no continuation is decoded on its own.
        put(out, kReplacement);
        i += 2;
        if (i < n && !cont(in[i])) continue;
        return;
      }
    } else {
      put(out, kReplacement);
      i += 1;
    }
  }
}

}  // namespace

void append_java_utf8(std::string& out, Bytes in) { append_utf8(out, in); }
void append_java_utf8(fmt::memory_buffer& out, Bytes in) { append_utf8(out, in); }

void append_hex(std::string& out, Bytes in) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (uint8_t b : in) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
}

}  // namespace kseg
