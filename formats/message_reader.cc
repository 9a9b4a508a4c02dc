#include "formats/message_reader.h"

#include <fmt/format.h>

namespace kseg {

std::string MessageReader::uuid() {
  Bytes b = r_.bytes(Length{16});
  if (!r_.ok()) return {};
  static constexpr char kUrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= b.size(); i += 3) {
    const uint32_t v = (uint32_t{b[i]} << 16) | (uint32_t{b[i + 1]} << 8) | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kUrlAlphabet[(v >> s) & 63];
  }
  const uint32_t v = uint32_t{b[i]} << 16;  // 16 = 5*3 + 1: one byte left, two characters
  out += kUrlAlphabet[(v >> 18) & 63];
  out += kUrlAlphabet[(v >> 12) & 63];
  return out;
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
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20) out += fmt::format("\\u{:04X}", u);
        else out += c;
    }
  }
  out += '"';
}

}  // namespace kseg
