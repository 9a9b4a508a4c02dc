#include "tools/ops/common/json_writer.h"

#include <algorithm>
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
size_t json_plain_prefix(const uint8_t* p, size_t n) {
  constexpr uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  auto has_zero = [](uint64_t v) { return (v - ones) & ~v & high; };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, p + i, 8);
    const uint64_t stop = (x & high) | ((x - 0x20 * ones) & ~x & high) | has_zero(x ^ ('"' * ones)) |
                          has_zero(x ^ ('\\' * ones));
    if (stop != 0) break;
  }
  while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\') ++i;
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
  out.push_back('"');
  i = 0;
  while (i < n) {
    // Runs that need nothing done are copied whole.
    const size_t j = i + json_plain_prefix(p + i, n - i);
    out.append(s.data() + i, s.data() + j);
    i = j;
    if (i == n) break;
    const uint8_t b = p[i];
    if (b < 0x80) {
      switch (b) {
        case '"': out.append(std::string_view("\\\"")); break;
        case '\\': out.append(std::string_view("\\\\")); break;
        case '\b': out.append(std::string_view("\\b")); break;
        case '\f': out.append(std::string_view("\\f")); break;
        case '\n': out.append(std::string_view("\\n")); break;
        case '\r': out.append(std::string_view("\\r")); break;
        case '\t': out.append(std::string_view("\\t")); break;
        default: fmt::format_to(fmt::appender(out), FMT_COMPILE("\\u{:04x}"), b);
      }
      ++i;
      continue;
    }
    const Lead l = lead_of(b);
    if (l.length == 0) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    size_t k = 1;
    for (; k < l.length && i + k < n; ++k) {
      const uint8_t c = p[i + k];
      const bool ok = k == 1 ? (c >= l.lo && c <= l.hi) : (c >= 0x80 && c <= 0xBF);
      if (!ok) break;
    }
    if (k == l.length) {
      out.append(s.data() + i, s.data() + i + k);
    } else {
      out.append(kReplacement);  // the breaking byte, if any, is read again
    }
    i += k;
  }
  out.push_back('"');
}

}  // namespace kseg
