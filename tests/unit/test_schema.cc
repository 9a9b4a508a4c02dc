// SPDX-License-Identifier: Apache-2.0
// The table-driven message decoder (formats/schema.h) on inputs built by a
// tiny encoder here: version ranges, nullables, tagged fields and defaults,
// every truncation length, string escapes, and the base64 / Java double
// text helpers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "formats/message_reader.h"
#include "formats/schema.h"
#include "lib/base64.h"

using namespace kseg;
using namespace kseg::schema;

namespace {

// Writes Kafka's generated-message encoding, just enough for these tests.
struct Writer {
  std::vector<uint8_t> b;
  bool flexible = false;
  Writer& be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Writer& i16(int16_t v) { return be(static_cast<uint16_t>(v), 2); }
  Writer& i32(int32_t v) { return be(static_cast<uint32_t>(v), 4); }
  Writer& i64(int64_t v) { return be(static_cast<uint64_t>(v), 8); }
  Writer& uvarint(uint32_t v) {
    while (v >= 0x80) { b.push_back(static_cast<uint8_t>(v | 0x80)); v >>= 7; }
    b.push_back(static_cast<uint8_t>(v));
    return *this;
  }
  Writer& len(int32_t n, bool wide) {  // -1 = null
    if (flexible) return uvarint(static_cast<uint32_t>(n + 1));
    return wide ? i32(n) : i16(static_cast<int16_t>(n));
  }
  Writer& str(const char* s) {
    len(static_cast<int32_t>(std::strlen(s)), false);
    b.insert(b.end(), s, s + std::strlen(s));
    return *this;
  }
  Writer& uuid(uint8_t fill) { b.insert(b.end(), 16, fill); return *this; }
  Bytes bytes() const { return Bytes(b.data(), b.size()); }
};

constexpr Field kInner[] = {F("n", Kind::int32)};
constexpr Struct kInnerS{kInner};
constexpr Field kFields[] = {
    F("a", Kind::int32),
    F("b", Kind::int64).since(1),
    F("s", Kind::string).nullable(),
    A("xs", Kind::int32),
    F("t", Kind::int16).since(1).tagged(0, "-1"),
    F("u", Kind::uuid),
    AS("inner", &kInnerS).only(0, 0),
};
constexpr Struct kStruct{kFields};
constexpr Message kMessage{"Test", 1, &kStruct};

std::string json(int16_t version, const Writer& w) {
  auto d = decode(kMessage, version, w.bytes());
  REQUIRE(d.ok());
  CHECK(d.value().consumed == w.b.size());
  return d.value().json;
}

Writer v1_body(int16_t tagged_value, bool with_unknown_tag) {
  Writer w;
  w.flexible = true;
  w.i32(7).i64(-2).str("hé\"").len(1, true).i32(3).uuid(0xff);
  w.uvarint(with_unknown_tag ? 2 : 1);
  w.uvarint(0).uvarint(2).i16(tagged_value);
  if (with_unknown_tag) w.uvarint(9).uvarint(3).i16(0).b.push_back(0);
  return w;
}

}  // namespace

TEST_CASE("schema: non-flexible version skips fields outside their versions", "[topics]") {
  Writer w;
  w.i32(-5).i16(-1).i32(2).i32(1).i32(2).uuid(0).i32(1).i32(42);
  CHECK(json(0, w) == R"({"a":-5,"s":null,"xs":[1,2],"u":"AAAAAAAAAAAAAAAAAAAAAA","inner":[{"n":42}]})");
}

TEST_CASE("schema: tagged fields print only when not default, in schema order", "[topics]") {
  CHECK(json(1, v1_body(-1, false)) == R"({"a":7,"b":-2,"s":"hé\"","xs":[3],"u":"_____________________w"})");
  CHECK(json(1, v1_body(5, false)) == R"({"a":7,"b":-2,"s":"hé\"","xs":[3],"t":5,"u":"_____________________w"})");
  CHECK(json(1, v1_body(5, true)) == json(1, v1_body(5, false)));  // unknown tags are skipped
}

TEST_CASE("schema: a struct without tagged fields, written as it is read", "[topics]") {
  static constexpr Field kPlain[] = {F("a", Kind::int32), F("s", Kind::string), F("u", Kind::uuid).since(1)};
  static constexpr Struct kPlainS{kPlain};
  static constexpr Message kPlainMessage{"Plain", 1, &kPlainS};
  Writer w;
  w.flexible = true;
  w.i32(7).str("x\ty\x01\"\\").uuid(1);
  w.uvarint(1).uvarint(9).uvarint(2).i16(0);  // an unknown tag: read past
  auto d = decode(kPlainMessage, 1, w.bytes());
  REQUIRE(d.ok());
  CHECK(d.value().consumed == w.b.size());
  CHECK(d.value().json == R"({"a":7,"s":"x\ty\u0001\"\\","u":"AQEBAQEBAQEBAQEBAQEBAQ"})");
  for (size_t n = 0; n < w.b.size(); ++n) {
    INFO("length " << n);
    CHECK_FALSE(decode(kPlainMessage, 1, Bytes(w.b.data(), n)).ok());
  }
}

TEST_CASE("schema: strings are escaped as Jackson does, whatever the runs between escapes", "[topics]") {
  // Jackson's escapes, one byte at a time: the short forms, \u00XX for other
  // control bytes, every other byte as it is.
  auto one_at_a_time = [](std::string_view s) {
    static const std::pair<char, const char*> kShort[] = {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"},
                                                          {'\t', "\\t"}, {'\b', "\\b"}, {'\f', "\\f"}};
    std::string out = "\"";
    for (char c : s) {
      const auto* e = std::find_if(std::begin(kShort), std::end(kShort), [&](const auto& p) { return p.first == c; });
      if (e != std::end(kShort)) out += e->second;
      else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
      else out += c;
    }
    return out + '"';
  };
  std::mt19937 rng(11);
  const char pick[] = {'\0', '\x1f', '\t', '\n', '"', '\\', 'a', '\x7f', '\x80', '\xff'};
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = rng() % 2 ? 'x' : pick[rng() % sizeof pick];
    std::string got;
    append_json_string(got, s);
    REQUIRE(got == one_at_a_time(s));
  }
}

TEST_CASE("schema: every truncation fails cleanly, never reads past the end", "[topics]") {
  const Writer full = v1_body(5, true);
  for (size_t n = 0; n < full.b.size(); ++n) {
    INFO("length " << n);
    CHECK_FALSE(decode(kMessage, 1, Bytes(full.b.data(), n)).ok());
  }
}

TEST_CASE("schema: Kafka's reader errors", "[topics]") {
  Writer null_array;
  null_array.i32(1).i16(0).i32(-1);
  auto d = decode(kMessage, 0, null_array.bytes());
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "non-nullable field xs was serialized as null");

  Writer long_string;
  long_string.i32(1).i16(10).b.push_back('x');
  d = decode(kMessage, 0, long_string.bytes());
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "Error reading byte array of 10 byte(s): only 1 byte(s) available");

  Writer short_int;
  short_int.i16(1);
  d = decode(kMessage, 0, short_int.bytes());
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "null");  // BufferUnderflowException has no message
}

TEST_CASE("schema: base64 (RFC 4648 vectors) and Java's Double.toString layout", "[topics]") {
  auto b64 = [](const char* s) {
    std::string out;
    append_base64(out, Bytes(reinterpret_cast<const uint8_t*>(s), std::strlen(s)));
    return out;
  };
  CHECK(b64("") == "");
  CHECK(b64("f") == "Zg==");
  CHECK(b64("fo") == "Zm8=");
  CHECK(b64("foo") == "Zm9v");
  CHECK(b64("foobar") == "Zm9vYmFy");

  CHECK(java_double(1.0) == "1.0");
  CHECK(java_double(-0.0) == "-0.0");
  CHECK(java_double(123.456) == "123.456");
  CHECK(java_double(0.001) == "0.001");
  CHECK(java_double(0.0001) == "1.0E-4");
  CHECK(java_double(1234567.0) == "1234567.0");
  CHECK(java_double(1.0e7) == "1.0E7");
  CHECK(java_double(1.5e300) == "1.5E300");
}
