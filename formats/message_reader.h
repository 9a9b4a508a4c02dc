// SPDX-License-Identifier: Apache-2.0
// Reading Kafka's generated-message encoding (the schema-described bodies of
// control records, KRaft metadata records and coordinator records): fixed
// ints, (compact) strings and arrays, UUIDs and tagged-field sections.
// Flexible versions use compact forms (unsigned varint length + 1) and end
// each struct with tagged fields, which we skip.
#pragma once

#include <optional>
#include <string>

#include "lib/byte_reader.h"

namespace kseg {

class MessageReader {
 public:
  MessageReader(Bytes b, bool flexible) : r_(b, Position{0}), flexible_(flexible) {}

  bool ok() const { return r_.ok(); }
  ByteReader& raw() { return r_; }
  bool flexible() const { return flexible_; }

  int8_t i8() { return r_.i8(); }
  int16_t i16() { return r_.i16(); }
  uint16_t u16() { return r_.u16(); }
  int32_t i32() { return r_.i32(); }
  int64_t i64() { return r_.i64(); }
  bool boolean() { return r_.u8() != 0; }
  // Kafka's Uuid.toString(): URL-safe base64 without padding.
  std::string uuid() {
    std::string s;
    append_uuid(s);
    return s;
  }
  // The same, appended to `out` (nothing after a short read).
  void append_uuid(std::string& out);
  // nullopt for a null string.
  std::optional<std::string> string();
  std::optional<Bytes> bytes();
  // Element count of an array; -1 for null.
  int32_t array_length();
  // Skips the tagged-field section that ends each flexible struct.
  void tagged_fields();

 private:
  ByteReader r_;
  bool flexible_;
};

// Appends `s` as a JSON string the way Jackson writes it.
void append_json_string(std::string& out, std::string_view s);

}  // namespace kseg
