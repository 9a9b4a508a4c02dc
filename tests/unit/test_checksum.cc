// SPDX-License-Identifier: Apache-2.0
// CRC-32, CRC-32C and XXH32: standard vectors, chaining, and agreement of the
// CRC-32C implementations (ISA-L, SSE4.2, table) on many lengths/alignments.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string_view>
#include <vector>

#include "lib/checksum.h"
#include "lib/xxhash32.h"

namespace {

using kseg::Bytes;

Bytes text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

}  // namespace

TEST_CASE("crc32 standard vectors", "[crc]") {
  CHECK(kseg::crc32(text("123456789")) == 0xCBF43926u);
  CHECK(kseg::crc32(Bytes{}) == 0u);
  CHECK(kseg::crc32(text("a")) == 0xE8B7BE43u);
}

TEST_CASE("crc32c standard and RFC 3720 vectors", "[crc]") {
  std::vector<uint8_t> zeros(32, 0x00), ones(32, 0xFF), ascending(32), descending(32);
  for (size_t i = 0; i < 32; ++i) {
    ascending[i] = static_cast<uint8_t>(i);
    descending[i] = static_cast<uint8_t>(31 - i);
  }
  CHECK(kseg::crc32c(text("123456789")) == 0xE3069283u);
  CHECK(kseg::crc32c(Bytes{}) == 0u);
  CHECK(kseg::crc32c(zeros) == 0x8A9136AAu);
  CHECK(kseg::crc32c(ones) == 0x62A8AB43u);
  CHECK(kseg::crc32c(ascending) == 0x46DD794Eu);
  CHECK(kseg::crc32c(descending) == 0x113FDB5Cu);
  INFO("implementation: " << kseg::crc32c_implementation());
  CHECK(std::string_view(kseg::crc32c_implementation()).size() > 0);
}

TEST_CASE("every crc32c implementation gives the standard vectors", "[crc]") {
  namespace d = kseg::crc_detail;
  std::vector<uint8_t> ones(32, 0xFF);
  CHECK(d::crc32c_table(text("123456789"), 0) == 0xE3069283u);
  CHECK(d::crc32c_table(ones, 0) == 0x62A8AB43u);
  if (d::crc32c_sse42_available()) {
    CHECK(d::crc32c_sse42(text("123456789"), 0) == 0xE3069283u);
    CHECK(d::crc32c_sse42(ones, 0) == 0x62A8AB43u);
  }
  if (d::crc32c_isal_available()) {
    CHECK(d::crc32c_isal(text("123456789"), 0) == 0xE3069283u);
    CHECK(d::crc32c_isal(ones, 0) == 0x62A8AB43u);
  }
  if (d::crc32c_fold_available()) {
    CHECK(d::crc32c_fold(text("123456789"), 0) == 0xE3069283u);
    CHECK(d::crc32c_fold(ones, 0) == 0x62A8AB43u);
  }
}

TEST_CASE("chained crc equals one-shot crc across random splits", "[crc]") {
  const auto data = random_bytes(5000, 1);
  const Bytes all(data);
  const uint32_t whole32 = kseg::crc32(all), whole32c = kseg::crc32c(all);
  std::mt19937 rng(2);
  for (int trial = 0; trial < 200; ++trial) {
    size_t a = rng() % (data.size() + 1), b = rng() % (data.size() + 1);
    if (a > b) std::swap(a, b);
    const Bytes p1 = all.first(a), p2 = all.subspan(a, b - a), p3 = all.subspan(b);
    CHECK(kseg::crc32(p3, kseg::crc32(p2, kseg::crc32(p1))) == whole32);
    CHECK(kseg::crc32c(p3, kseg::crc32c(p2, kseg::crc32c(p1))) == whole32c);
  }
}

TEST_CASE("crc32c implementations agree on many lengths and alignments", "[crc]") {
  namespace d = kseg::crc_detail;
  const auto data = random_bytes(70000, 3);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t n : {1023u, 1024u, 1025u, 4095u, 4096u, 4097u, 16383u, 16384u, 65536u, 69990u}) lengths.push_back(n);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n : lengths) {
      const Bytes b(data.data() + offset, n);
      const uint32_t seed = static_cast<uint32_t>(n * 2654435761u);
      const uint32_t expect = d::crc32c_table(b, seed);
      if (d::crc32c_sse42_available()) REQUIRE(d::crc32c_sse42(b, seed) == expect);
      if (d::crc32c_isal_available()) REQUIRE(d::crc32c_isal(b, seed) == expect);
      if (d::crc32c_fold_available()) REQUIRE(d::crc32c_fold(b, seed) == expect);
      REQUIRE(kseg::crc32c(b, seed) == expect);
    }
  }
}

TEST_CASE("xxh32 reference vectors", "[crc]") {
  CHECK(kseg::xxh32(Bytes{}) == 0x02CC5D05u);
  CHECK(kseg::xxh32(text("a")) == 0x550D7456u);
  CHECK(kseg::xxh32(text("abc")) == 0x32D153FFu);
  const uint8_t descriptor[] = {0x60, 0x40};
  const uint8_t with_magic[] = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40};
  CHECK(kseg::xxh32(descriptor) == 0x301A8268u);
  CHECK(kseg::xxh32(with_magic) == 0xC8581A3Au);
  // Lengths >= 16 take the four-lane path.
  CHECK(kseg::xxh32(text("Nobody inspects the spammish repetition")) == 0xE2293B2Fu);
}

TEST_CASE("crc32 agrees with zlib on many lengths, alignments and seeds", "[crc]") {
  const auto data = random_bytes(70000, 4);
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t n : {0u, 1u, 7u, 8u, 15u, 16u, 63u, 64u, 255u, 1023u, 4096u, 4097u, 65536u, 69990u}) {
      const Bytes b(data.data() + offset, n);
      const uint32_t seed = static_cast<uint32_t>(n * 2654435761u);
      REQUIRE(kseg::crc32(b, seed) == kseg::crc_detail::crc32_zlib(b, seed));
    }
}
