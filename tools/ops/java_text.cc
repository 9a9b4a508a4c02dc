#include "tools/ops/java_text.h"

#include <cstring>

namespace kseg {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

bool cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// Length of the malformed prefix of a 3-byte sequence (JDK rule).
size_t malformed3_len(uint8_t b1, uint8_t b2) { return ((b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !cont(b2)) ? 1 : 2; }

bool malformed4_lead(uint8_t b1, uint8_t b2) {
  return b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && (b2 & 0xF0) != 0x80) || !cont(b2);
}

}  // namespace

void append_java_utf8(std::string& out, Bytes in) {
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b1 = in[i];
    if (b1 < 0x80) {
      // Copy the whole ASCII run at once (the common case), 8 bytes a step.
      size_t j = i + 1;
      for (uint64_t w; j + 8 <= n; j += 8) {
        std::memcpy(&w, in.data() + j, 8);
        if (w & 0x8080808080808080u) break;
      }
      while (j < n && in[j] < 0x80) ++j;
      out.append(reinterpret_cast<const char*>(in.data() + i), j - i);
      i = j;
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (i + 1 < n && cont(in[i + 1])) {
        out.append(reinterpret_cast<const char*>(in.data() + i), 2);
        i += 2;
      } else {
        out.append(kReplacement);
        i += 1;
      }
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      if (i + 2 < n) {
        const uint8_t b2 = in[i + 1], b3 = in[i + 2];
        const bool bad = (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !cont(b2) || !cont(b3);
        if (bad) {
          out.append(kReplacement);
          i += malformed3_len(b1, b2);
        } else {
          if (b1 == 0xED && b2 >= 0xA0) out.append(kReplacement);  // a surrogate code point
          else out.append(reinterpret_cast<const char*>(in.data() + i), 3);
          i += 3;
        }
      } else if (i + 1 < n && ((b1 == 0xE0 && (in[i + 1] & 0xE0) == 0x80) || !cont(in[i + 1]))) {
        out.append(kReplacement);
        i += 1;
      } else {
        out.append(kReplacement);  // a truncated sequence at the end: one replacement
        return;
      }
    } else if (b1 >= 0xF0 && b1 <= 0xF7) {
      if (i + 3 < n) {
        const uint8_t b2 = in[i + 1], b3 = in[i + 2], b4 = in[i + 3];
        const uint32_t cp = ((b1 & 0x07u) << 18) | ((b2 & 0x3Fu) << 12) | ((b3 & 0x3Fu) << 6) | (b4 & 0x3Fu);
        if (!cont(b2) || !cont(b3) || !cont(b4) || cp < 0x10000 || cp > 0x10FFFF) {
          out.append(kReplacement);
          i += malformed4_lead(b1, b2) ? 1 : (!cont(b3) ? 2 : 3);
        } else {
          out.append(reinterpret_cast<const char*>(in.data() + i), 4);
          i += 4;
        }
      } else if (b1 > 0xF4 || (i + 1 < n && malformed4_lead(b1, in[i + 1]))) {
        out.append(kReplacement);
        i += 1;
      } else {
        // Truncated at the end: lead and second byte become one replacement;
        // a third byte that is no continuation is decoded on its own.
        out.append(kReplacement);
        i += 2;
        if (i < n && !cont(in[i])) continue;
        return;
      }
    } else {
      out.append(kReplacement);
      i += 1;
    }
  }
}

void append_base64(std::string& out, Bytes in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (const size_t left = in.size() - i; left > 0) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (left == 2 ? uint32_t{in[i + 1]} << 8 : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
}

void append_hex(std::string& out, Bytes in) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (uint8_t b : in) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
}

}  // namespace kseg
