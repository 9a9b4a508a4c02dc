// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <random>

#include "formats/time_index.h"

using namespace kseg;
namespace ti = kseg::time_index;

namespace {
Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }
}  // namespace

TEST_CASE("time index: encode/decode round trip (min, max, random)", "[formats]") {
  std::vector<ti::Entry> entries = {{0, 0}, {INT64_MIN, INT32_MIN}, {INT64_MAX, INT32_MAX}, {-1, -1}};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i)
    entries.push_back({static_cast<int64_t>(rng()), static_cast<int32_t>(rng())});
  const auto bytes = ti::encode(entries);
  REQUIRE(bytes.size() == entries.size() * 12);
  ti::View v(as_bytes(bytes), Offset{7});
  REQUIRE(v.slot_count() == static_cast<int64_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) CHECK(v.entry(static_cast<int64_t>(i)) == entries[i]);
}

TEST_CASE("time index: maybe_append follows TimeIndex.maybeAppend", "[formats]") {
  ti::Writer w(Offset{100});
  CHECK(w.maybe_append(-1, Offset{100}).value() == false);  // NO_TIMESTAMP never indexed
  CHECK(w.maybe_append(1000, Offset{110}).value() == true);
  CHECK(w.maybe_append(1000, Offset{120}).value() == false);  // equal timestamp skipped
  CHECK(!w.maybe_append(2000, Offset{105}).ok());             // offset went back
  CHECK(!w.maybe_append(999, Offset{130}).ok());              // timestamp went back
  CHECK(w.maybe_append(2000, Offset{110}).value() == true);   // same offset allowed
  CHECK(w.entries() == 2);
  ti::View v(as_bytes(w.bytes()), Offset{100});
  CHECK(ti::validate_entries(v, v.slot_count()).ok());
  CHECK(ti::sanity_check(v, "f").ok());
}

TEST_CASE("time index: zero tail and sanity check", "[formats]") {
  ti::Writer w(Offset{100});
  REQUIRE(w.maybe_append(5000, Offset{100}).ok());  // slot 0 relative 0
  REQUIRE(w.maybe_append(6000, Offset{140}).ok());
  auto bytes = w.bytes();
  bytes.resize(bytes.size() + 12 * 5, 0);
  ti::View v(as_bytes(bytes), Offset{100});
  CHECK(v.dump_entry_count() == 2);
  CHECK(v.live_entry_count() == 2);
  auto st = ti::sanity_check(v, "/p/t.timeindex");
  REQUIRE(!st.ok());  // untrimmed time index fails, unlike the offset index
  CHECK(st.error().message ==
        "Corrupt time index found, time index file (/p/t.timeindex) has non-zero size but the last timestamp is 0 "
        "which is less than the first timestamp 5000");
  CHECK(st.error().position == Position{12 * 6});

  std::vector<ti::Entry> neg = {{10, 0}, {20, -1}};
  auto nb = ti::encode(neg);
  st = ti::sanity_check(ti::View(as_bytes(nb), Offset{100}), "x");
  CHECK(st.error().message ==
        "Corrupt time index found, time index file (x) has non-zero size but the last offset is 99 which is less "
        "than the first offset 100");
  nb.push_back(0);
  st = ti::sanity_check(ti::View(Bytes(nb.data(), 13), Offset{100}), "x");
  CHECK(st.error().message == "Time index file x is corrupt, found 13 bytes which is neither positive nor a multiple of 12");
  CHECK(st.error().position == Position{12});
}

TEST_CASE("time index: lookup", "[formats]") {
  ti::Writer w(Offset{0});
  for (int i = 1; i <= 2000; ++i) REQUIRE(w.maybe_append(int64_t{i} * 10, Offset{int64_t{i} * 3}).value());
  ti::View v(as_bytes(w.bytes()), Offset{0});
  const int64_t n = v.slot_count();
  CHECK(ti::lookup(v, n, 9) == ti::TimestampOffset{-1, Offset{0}});
  CHECK(ti::lookup(v, n, 10) == ti::TimestampOffset{10, Offset{3}});
  CHECK(ti::lookup(v, n, 19) == ti::TimestampOffset{10, Offset{3}});
  CHECK(ti::lookup(v, n, 20000) == ti::TimestampOffset{20000, Offset{6000}});
  CHECK(ti::lookup(v, n, 5005) == ti::TimestampOffset{5000, Offset{1500}});
  CHECK(ti::lookup(v, 0, 5005) == ti::TimestampOffset{-1, Offset{0}});
}
