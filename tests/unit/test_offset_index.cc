// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <random>

#include "formats/offset_index.h"

using namespace kseg;
namespace oi = kseg::offset_index;

namespace {
Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }
}  // namespace

TEST_CASE("offset index: encode/decode round trip (min, max, random)", "[formats]") {
  std::vector<oi::Entry> entries = {{0, 0}, {1, 1}, {INT32_MAX - 1, INT32_MAX - 1}, {INT32_MAX, INT32_MAX},
                                    {INT32_MIN, INT32_MIN}, {-1, -1}};
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i)
    entries.push_back({static_cast<int32_t>(rng()), static_cast<int32_t>(rng())});
  const auto bytes = oi::encode(entries);
  REQUIRE(bytes.size() == entries.size() * 8);
  oi::View view(as_bytes(bytes), Offset{1000}, Position{64});
  REQUIRE(view.slot_count() == static_cast<int64_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    CHECK(view.entry(static_cast<int64_t>(i)) == entries[i]);
    CHECK(view.offset(static_cast<int64_t>(i)) == Offset{1000 + int64_t{entries[i].relative_offset}});
  }
  CHECK(view.slot_position(2) == Position{64 + 16});
}

TEST_CASE("offset index: writer enforces Kafka's append rules", "[formats]") {
  oi::Writer w(Offset{100});
  REQUIRE(w.append(Offset{100}, 0).ok());
  REQUIRE(w.append(Offset{105}, 4096).ok());
  CHECK(w.append(Offset{105}, 5000).error().code == Errc::refused);      // not larger
  CHECK(w.append(Offset{99}, 5000).error().code == Errc::refused);       // below base
  CHECK(w.append(Offset{100 + int64_t{INT32_MAX} + 1}, 1).error().code == Errc::refused);  // overflow
  REQUIRE(w.append(Offset{100 + int64_t{INT32_MAX}}, 1).ok());
  oi::View v(as_bytes(w.bytes()), Offset{100}, Position{0}, oi::kEntrySize);  // positions go back: no width detection
  CHECK(v.slot_count() == 3);
  CHECK(oi::validate_entries(v, 2).ok());
}

TEST_CASE("offset index: zero tail rules", "[formats]") {
  oi::Writer w(Offset{50});
  REQUIRE(w.append(Offset{50}, 0).ok());  // slot 0 may be relative 0
  REQUIRE(w.append(Offset{60}, 4200).ok());
  REQUIRE(w.append(Offset{70}, 8400).ok());
  auto bytes = w.bytes();
  bytes.resize(bytes.size() + 8 * 100, 0);  // preallocated tail
  oi::View v(as_bytes(bytes), Offset{50});
  CHECK(v.slot_count() == 103);
  CHECK(v.dump_entry_count() == 3);
  CHECK(v.live_entry_count() == 3);
  // An untrimmed file passes Kafka's sanity check.
  CHECK(oi::sanity_check(v, "/d/00000000000000000050.index").ok());
  // A lower (non-zero) offset ends the live entries but not the dump rule.
  auto bad = w.bytes();
  oi::append_entry(bad, {5, 9000});
  oi::View v2(as_bytes(bad), Offset{50});
  CHECK(v2.dump_entry_count() == 4);
  CHECK(v2.live_entry_count() == 3);
  auto st = oi::validate_entries(v2, v2.slot_count());
  CHECK(st.error().position == Position{24});
}

TEST_CASE("offset index: sanity check messages are Kafka's", "[formats]") {
  std::vector<oi::Entry> entries = {{0, 0}, {-3, 10}};
  auto bytes = oi::encode(entries);
  oi::View v(as_bytes(bytes), Offset{10});
  auto st = oi::sanity_check(v, "/x/a.index");
  REQUIRE(!st.ok());
  CHECK(st.error().message ==
        "Corrupt index found, index file /x/a.index has non-zero size but the last offset is 7 which is less "
        "than the base offset 10");
  CHECK(st.error().position == Position{8});
  bytes.resize(bytes.size() - 8);  // now 8 bytes: valid
  bytes.push_back(1);
  oi::View v3(as_bytes(bytes), Offset{10});
  st = oi::sanity_check(v3, "/x/a.index");
  REQUIRE(!st.ok());
  CHECK(st.error().code == Errc::bad_length);
  CHECK(st.error().message == "Index file /x/a.index is corrupt, found 9 bytes which is neither positive nor a multiple of 8");
  CHECK(st.error().position == Position{8});
  CHECK(oi::sanity_check(oi::View(Bytes{}, Offset{0}), "e").ok());
}

TEST_CASE("offset index: lookup follows Kafka's search", "[formats]") {
  oi::Writer w(Offset{1000});
  for (int i = 0; i < 3000; ++i) REQUIRE(w.append(Offset{1000 + 10 * int64_t{i} + 5}, 100 * i).ok());
  oi::View v(as_bytes(w.bytes()), Offset{1000});
  const int64_t n = v.slot_count();
  CHECK(oi::lookup(v, n, Offset{0}) == oi::OffsetPosition{Offset{1000}, 0});
  CHECK(oi::lookup(v, n, Offset{1004}) == oi::OffsetPosition{Offset{1000}, 0});
  CHECK(oi::lookup(v, n, Offset{1005}) == oi::OffsetPosition{Offset{1005}, 0});
  CHECK(oi::lookup(v, n, Offset{1014}) == oi::OffsetPosition{Offset{1005}, 0});
  CHECK(oi::lookup(v, n, Offset{1015}) == oi::OffsetPosition{Offset{1015}, 100});
  CHECK(oi::lookup(v, n, Offset{1000 + 10 * 2999 + 5}) == oi::OffsetPosition{Offset{1000 + 10 * 2999 + 5}, 299900});
  CHECK(oi::lookup(v, n, Offset{INT64_MAX}) == oi::OffsetPosition{Offset{1000 + 10 * 2999 + 5}, 299900});
  // In the cold part (before the 1024 warm entries).
  CHECK(oi::lookup(v, n, Offset{1000 + 10 * 500 + 7}) == oi::OffsetPosition{Offset{1000 + 10 * 500 + 5}, 50000});
  // Empty index: (base offset, 0).
  CHECK(oi::lookup(v, 0, Offset{5000}) == oi::OffsetPosition{Offset{1000}, 0});
  // Zero tail included (as Kafka does on an opened untrimmed file): the
  // warm check sees the base offset and falls back to the cold half.
  auto tail = w.bytes();
  tail.resize(tail.size() + 8 * 10, 0);
  oi::View vt(as_bytes(tail), Offset{1000});
  CHECK(oi::lookup(vt, vt.slot_count(), Offset{1000 + 10 * 2999 + 5}).offset.value >= 1000);
}
