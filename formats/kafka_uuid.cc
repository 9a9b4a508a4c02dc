// SPDX-License-Identifier: Apache-2.0
#include "formats/kafka_uuid.h"

#include <vector>

#include <fmt/format.h>

namespace kseg {

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  const size_t i = kAlphabet.find(c);
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

Error invalid(std::string msg) { return Error{Errc::bad_value, std::nullopt, std::move(msg)}; }

}  // namespace

Result<KafkaUuid> parse_kafka_uuid(std::string_view text) {
  if (text.size() > 24)
    return invalid(fmt::format("Input string with prefix `{}` is too long to be decoded as a base64 UUID",
                               text.substr(0, 24)));
  std::vector<uint8_t> out;
  uint32_t bits = 0;
  int nbits = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] != '='; ++i) {
    const int v = sextet(text[i]);
    if (v < 0) return invalid(fmt::format("Illegal base64 character {:x}", static_cast<uint8_t>(text[i])));
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<uint8_t>(bits >> nbits));
    }
  }
  const size_t data_chars = i;
  if (data_chars % 4 == 1) return invalid("Last unit does not have enough valid bits");
  if (i < text.size()) {  // padding must complete the last 4-character unit
    const size_t pad = text.size() - i;
    if (text.substr(i) != std::string_view("==").substr(0, pad) || (data_chars + pad) % 4 != 0 || data_chars % 4 == 0)
      return invalid(fmt::format("Input byte array has incorrect ending byte at {}", i));
  }
  if (out.size() != 16)
    return invalid(fmt::format("Input string `{}` decoded as {} bytes, which is not equal to the expected 16 bytes "
                               "of a base64-encoded UUID",
                               text, out.size()));
  KafkaUuid u;
  for (size_t k = 0; k < 16; ++k) u.bytes[k] = out[k];
  return u;
}

std::string format_kafka_uuid(const KafkaUuid& uuid) {
  std::string s;
  uint32_t bits = 0;
  int nbits = 0;
  for (uint8_t b : uuid.bytes) {
    bits = (bits << 8) | b;
    nbits += 8;
    while (nbits >= 6) {
      nbits -= 6;
      s += kAlphabet[(bits >> nbits) & 0x3f];
    }
  }
  if (nbits > 0) s += kAlphabet[(bits << (6 - nbits)) & 0x3f];
  return s;
}

}  // namespace kseg
