// SPDX-License-Identifier: Apache-2.0
// lib/units.h: the sizes and durations options take, and sizes as text says them.
#include <catch2/catch.hpp>

#include "lib/units.h"

using namespace kseg;

TEST_CASE("parse_size: bytes, binary and decimal units", "[units]") {
  CHECK(parse_size("1073741824") == 1073741824);
  CHECK(parse_size("-1") == -1);  // Kafka's "unlimited"
  CHECK(parse_size("4096B") == 4096);
  CHECK(parse_size("64k") == 65536);
  CHECK(parse_size("64KiB") == 65536);
  CHECK(parse_size("512M") == 512LL << 20);
  CHECK(parse_size("512mib") == 512LL << 20);
  CHECK(parse_size("10G") == 10LL << 30);
  CHECK(parse_size("10GB") == 10'000'000'000LL);
  CHECK(parse_size("1T") == 1LL << 40);
  CHECK(parse_size("8191P") == 8191LL << 50);
  CHECK_FALSE(parse_size("8192P"));  // past int64
  CHECK_FALSE(parse_size(""));
  CHECK_FALSE(parse_size("G"));
  CHECK_FALSE(parse_size("1.5G"));
  CHECK_FALSE(parse_size("-1G"));
  CHECK_FALSE(parse_size("10 G"));
  CHECK_FALSE(parse_size("10X"));
  CHECK_FALSE(parse_size("0x10"));
}

TEST_CASE("parse_duration_ms: ms and units, and sums of them", "[units]") {
  CHECK(parse_duration_ms("604800000") == 604800000);
  CHECK(parse_duration_ms("-1") == -1);
  CHECK(parse_duration_ms("500ms") == 500);
  CHECK(parse_duration_ms("45s") == 45000);
  CHECK(parse_duration_ms("90m") == 90 * 60000);
  CHECK(parse_duration_ms("36h") == 36LL * 3600000);
  CHECK(parse_duration_ms("7d") == 604800000);
  CHECK(parse_duration_ms("1w") == 604800000);
  CHECK(parse_duration_ms("1h30m") == 5400000);
  CHECK(parse_duration_ms("1d12h") == 129600000);
  CHECK_FALSE(parse_duration_ms(""));
  CHECK_FALSE(parse_duration_ms("d"));
  CHECK_FALSE(parse_duration_ms("7y"));
  CHECK_FALSE(parse_duration_ms("1h30"));
  CHECK_FALSE(parse_duration_ms("-7d"));
  CHECK_FALSE(parse_duration_ms("99999999999999999d"));
}

TEST_CASE("human_duration: the two largest units", "[units]") {
  CHECK(human_duration(0) == "0ms");
  CHECK(human_duration(350) == "350ms");
  CHECK(human_duration(42000) == "42s");
  CHECK(human_duration(5400000) == "1h 30m");
  CHECK(human_duration(349330000) == "4d 1h");  // 4d 1h 2m 10s
  CHECK(human_duration(345720000) == "4d");     // 4d 0h 2m: the hours are the second unit, and zero
  CHECK(human_duration(-60000) == "-1m");
  CHECK(human_duration(INT64_MIN).front() == '-');
}

TEST_CASE("human_bytes", "[units]") {
  CHECK(human_bytes(int64_t{0}) == "0 B");
  CHECK(human_bytes(int64_t{1023}) == "1023 B");
  CHECK(human_bytes(int64_t{1536}) == "1.5 KiB");
  CHECK(human_bytes(int64_t{10} << 30) == "10.0 GiB");
  CHECK(human_bytes(int64_t{3} << 50) == "3.0 PiB");
}
