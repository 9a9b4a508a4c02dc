// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <random>

#include "formats/txn_index.h"

using namespace kseg;
namespace tx = kseg::txn_index;

namespace {
Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }
}  // namespace

TEST_CASE("txn index: round trip (min, max, random)", "[formats]") {
  std::vector<tx::AbortedTxn> txns = {{0, 0, 0, 0, 0}, {0, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
                                      {0, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN}};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i)
    txns.push_back({0, static_cast<int64_t>(rng()), static_cast<int64_t>(rng()), static_cast<int64_t>(rng()),
                    static_cast<int64_t>(rng())});
  const auto bytes = tx::encode(txns);
  REQUIRE(bytes.size() == txns.size() * 34);
  auto decoded = tx::decode(tx::View(as_bytes(bytes)), "f");
  REQUIRE(decoded.ok());
  CHECK(decoded.value() == txns);
}

TEST_CASE("txn index: partial trailing entry is ignored, version must be 0", "[formats]") {
  std::vector<tx::AbortedTxn> txns = {{0, 1000, 100, 150, 100}, {0, 1001, 160, 170, 171}};
  auto bytes = tx::encode(txns);
  for (size_t extra = 0; extra < 34; ++extra) {
    std::vector<uint8_t> b(bytes.begin(), bytes.end());
    b.resize(b.size() + extra, 0xee);
    tx::View v(as_bytes(b));
    CHECK(v.entry_count() == 2);
    CHECK(tx::decode(v, "f").value() == txns);
    CHECK(tx::validate_entries(v).ok() == (extra == 0));
  }
  for (int hi : {0x00, 0x01, 0x80}) {
    for (int lo : {0x00, 0x01, 0xff}) {
      auto b = bytes;
      b[34] = static_cast<uint8_t>(hi);
      b[35] = static_cast<uint8_t>(lo);
      auto r = tx::decode(tx::View(as_bytes(b), Position{1000}), "/d/x.txnindex");
      if (hi == 0 && lo == 0) { CHECK(r.ok()); continue; }
      REQUIRE(!r.ok());
      CHECK(r.error().code == Errc::bad_magic);
      CHECK(r.error().position == Position{1034});
      const int16_t v = static_cast<int16_t>((hi << 8) | lo);
      CHECK(r.error().message == "Unexpected aborted transaction version " + std::to_string(v) +
                                     " in transaction index /d/x.txnindex, supported version range is 0 to 0");
    }
  }
}

TEST_CASE("txn index: sanity check and validation", "[formats]") {
  std::vector<tx::AbortedTxn> txns = {{0, 7, 90, 99, 100}};
  auto bytes = tx::encode(txns);
  auto st = tx::sanity_check(tx::View(as_bytes(bytes)), Offset{100}, "/d/00000000000000000100.txnindex");
  REQUIRE(!st.ok());
  CHECK(st.error().message ==
        "Last offset of aborted transaction AbortedTxn(producerId=7, firstOffset=90, lastOffset=99, "
        "lastStableOffset=100) in index /d/00000000000000000100.txnindex is less than start offset 100");
  CHECK(st.error().position == Position{18});
  CHECK(tx::sanity_check(tx::View(as_bytes(bytes)), Offset{99}, "f").ok());
  std::vector<tx::AbortedTxn> unordered = {{0, 1, 10, 20, 21}, {0, 2, 5, 20, 21}};
  auto ub = tx::encode(unordered);
  st = tx::validate_entries(tx::View(as_bytes(ub)));
  CHECK(st.error().position == Position{34 + 18});
}
