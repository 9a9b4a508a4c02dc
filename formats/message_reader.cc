// SPDX-License-Identifier: Apache-2.0
#include "formats/message_reader.h"

#include <iterator>

#include <fmt/format.h>

namespace kseg {

void MessageReader::append_uuid(std::string& out) {
  Bytes b = r_.bytes(Length{16});
  if (!r_.ok()) return;
  static constexpr char kUrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  char text[22];
  char* t = text;
  size_t i = 0;
  for (; i + 3 <= b.size(); i += 3) {
    const uint32_t v = (uint32_t{b[i]} << 16) | (uint32_t{b[i + 1]} << 8) | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) *t++ = kUrlAlphabet[(v >> s) & 63];
  }
  const uint32_t v = uint32_t{b[i]} << 16;  // 16 = 5*3 + 1: one byte left, two characters
  *t++ = kUrlAlphabet[(v >> 18) & 63];
  *t++ = kUrlAlphabet[(v >> 12) & 63];
  out.append(text, sizeof text);
}

std::optional<std::string> MessageReader::string() {
  int32_t n = flexible_ ? static_cast<int32_t>(r_.uvarint()) - 1 : r_.i16();
  if (!r_.ok() || n < 0) return std::nullopt;
  Bytes b = r_.bytes(Length{n});
  return std::string(as_chars(b));
}

std::optional<Bytes> MessageReader::bytes() {
  int32_t n = flexible_ ? static_cast<int32_t>(r_.uvarint()) - 1 : r_.i32();
  if (!r_.ok() || n < 0) return std::nullopt;
  return r_.bytes(Length{n});
}

int32_t MessageReader::array_length() {
  int32_t n = flexible_ ? static_cast<int32_t>(r_.uvarint()) - 1 : r_.i32();
  if (n > 0 && Length{n} > r_.remaining()) r_.fail();  // each element takes at least a byte
  return n;
}

void MessageReader::tagged_fields() {
  if (!flexible_) return;
  const uint32_t count = r_.uvarint();
  for (uint32_t i = 0; i < count && r_.ok(); ++i) {
    (void)r_.uvarint();  // tag
    const uint32_t size = r_.uvarint();
    r_.skip(Length{size});
  }
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Runs that need no escape are appended whole: a byte at a time was a
  // sixth of a --offsets-decoder dump.
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u != '"' && u != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (u) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04X}", u);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

}  // namespace kseg
