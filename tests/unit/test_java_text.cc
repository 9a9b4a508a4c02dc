// SPDX-License-Identifier: Apache-2.0
// append_java_utf8 copies valid UTF-8 and replaces malformed bytes wherever
// they fall relative to its 32- and 8-byte ASCII steps, and its two outputs
// (a string, and kseg-dump's text buffer, which checks and copies in one
// pass) agree. The JDK's rules for malformed sequences are checked against
// Kafka's own output by the golden tests (binary keys and values of the
// internal topics, all shorter than the 512 bytes from which kseg-dump
// decodes a value into its buffer), so the agreement here is what carries
// them over to that output.
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tools/ops/common/java_text.h"

using kseg::Bytes;

namespace {

Bytes as_bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// Both outputs, each appended after some text already there.
std::pair<std::string, std::string> both(const std::string& in) {
  std::string s = "head:";
  kseg::append_java_utf8(s, as_bytes(in));
  fmt::memory_buffer b;
  b.append(std::string_view("head:"));
  kseg::append_java_utf8(b, as_bytes(in));
  return {s, fmt::to_string(b)};
}

std::string ascii(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}

}  // namespace

TEST_CASE("append_java_utf8 copies valid UTF-8 at every alignment") {
  for (const std::string mb : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}) {
    for (size_t at = 0; at <= 70; ++at) {
      const std::string in = ascii(at) + mb + ascii(70 - at);
      const auto [s, b] = both(in);
      CHECK(s == "head:" + in);
      CHECK(b == "head:" + in);
    }
  }
}

TEST_CASE("append_java_utf8 replaces a stray byte at every alignment") {
  for (size_t n : {0, 1, 7, 8, 31, 32, 33, 64, 100}) {
    for (size_t at = 0; at <= n; ++at) {
      // Spliced by concatenation: GCC 12 at -O2/-O3 gives a false -Wrestrict
      // inside std::string::insert here.
      const std::string text = ascii(n);
      const std::string in = text.substr(0, at) + "\xFF" + text.substr(at);
      const std::string want = "head:" + text.substr(0, at) + "\xEF\xBF\xBD" + text.substr(at);
      const auto [s, b] = both(in);
      CHECK(s == want);
      CHECK(b == want);
    }
  }
}

TEST_CASE("append_java_utf8 gives the same text in both outputs on random bytes") {
  std::mt19937 rng(20261130);
  for (int round = 0; round < 2000; ++round) {
    // Mostly ASCII with a few high bytes, so the ASCII steps stop and resume.
    const size_t n = rng() % 300;
    const int high_every = 1 + static_cast<int>(rng() % 64);
    std::string in;
    for (size_t i = 0; i < n; ++i)
      in += static_cast<char>(static_cast<int>(rng() % high_every) == 0 ? 0x80 + rng() % 128 : 0x20 + rng() % 95);
    const auto [s, b] = both(in);
    REQUIRE(s == b);
  }
}
