// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <random>

#include "formats/producer_snapshot.h"
#include "lib/checksum.h"

using namespace kseg;
namespace ps = kseg::producer_snapshot;

namespace {

Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }

std::vector<ps::ProducerEntry> sample_entries() {
  ps::ProducerEntry a;
  a.producer_id = 1000;
  a.producer_epoch = 0;
  a.last_sequence = 9;
  a.last_offset = 109;
  a.offset_delta = 9;
  a.timestamp_ms = 1700000000000;
  a.coordinator_epoch = 0;
  a.current_txn_first_offset = -1;
  ps::ProducerEntry b;  // marker-only producer: no batch metadata, open txn
  b.producer_id = INT64_MAX;
  b.producer_epoch = INT16_MAX;
  b.current_txn_first_offset = 42;
  return {a, b};
}

}  // namespace

TEST_CASE("producer snapshot: CRC-32C check value", "[formats]") {
  const std::string check = "123456789";
  CHECK(crc32c(Bytes(reinterpret_cast<const uint8_t*>(check.data()), check.size())) == 0xE3069283u);
}

TEST_CASE("producer snapshot: round trip (empty, min, max, random)", "[formats]") {
  std::vector<std::vector<ps::ProducerEntry>> cases = {{}, sample_entries()};
  ps::ProducerEntry mn{INT64_MIN, INT16_MIN, INT32_MIN, INT64_MIN, INT32_MIN, INT64_MIN, INT32_MIN, INT64_MIN};
  ps::ProducerEntry mx{INT64_MAX, INT16_MAX, INT32_MAX, INT64_MAX, INT32_MAX, INT64_MAX, INT32_MAX, INT64_MAX};
  cases.push_back({mn, mx});
  std::mt19937_64 rng(5);
  std::vector<ps::ProducerEntry> random;
  for (int i = 0; i < 50; ++i)
    random.push_back({static_cast<int64_t>(rng()), static_cast<int16_t>(rng()), static_cast<int32_t>(rng()),
                      static_cast<int64_t>(rng()), static_cast<int32_t>(rng()), static_cast<int64_t>(rng()),
                      static_cast<int32_t>(rng()), static_cast<int64_t>(rng())});
  cases.push_back(random);
  for (const auto& entries : cases) {
    const auto bytes = ps::encode(entries);
    REQUIRE(bytes.size() == 10 + 46 * entries.size());
    auto r = ps::read(as_bytes(bytes));
    REQUIRE(r.ok());
    CHECK(r->entries == entries);
    CHECK(r->entry_count == static_cast<int32_t>(entries.size()));
    CHECK(r->trailing_bytes == Length{0});
    CHECK(r->crc == ps::compute_crc(as_bytes(bytes)));
  }
}

TEST_CASE("producer snapshot: first sequence wraps like Kafka", "[formats]") {
  ps::ProducerEntry e;
  e.last_sequence = 9;
  e.offset_delta = 9;
  CHECK(e.first_sequence() == 0);
  e.last_sequence = 2;
  e.offset_delta = 5;
  CHECK(e.first_sequence() == INT32_MAX - 2);
}

TEST_CASE("producer snapshot: every truncation is an error at the right position", "[formats]") {
  const auto full = ps::encode(sample_entries());
  for (size_t len = 0; len < full.size(); ++len) {
    Bytes cut(full.data(), len);
    auto d = ps::decode(cut, Position{500});
    REQUIRE(!d.ok());
    CHECK(d.error().code == Errc::truncated);
    auto r = ps::read(cut, Position{500});
    REQUIRE(!r.ok());
    INFO("length " << len << ": " << r.error().message);
    int64_t expected_pos;  // the field whose read fails
    if (len < 2) expected_pos = 0;
    else if (len < 6) expected_pos = 2;
    else if (len < 10) expected_pos = 6;
    else {
      // Within the entries: the first field not fully present.
      static const int widths[] = {8, 2, 4, 8, 4, 8, 4, 8};
      int64_t at = 10;
      for (;;) {
        bool found = false;
        for (int w : widths) {
          if (at + w > static_cast<int64_t>(len)) { found = true; break; }
          at += w;
        }
        if (found) break;
      }
      expected_pos = at;
    }
    CHECK(d.error().position == Position{500 + expected_pos});
    if (len >= 10 && len < 12) {  // count 2 > bytes remaining
      CHECK(r.error().message ==
            "Snapshot failed schema validation: Tried to allocate a collection of size 2, but there are only " +
                std::to_string(len - 10) + " bytes remaining.");
      CHECK(r.error().position == Position{506});
    } else {
      CHECK(r.error().message == "Snapshot failed schema validation: null");
      CHECK(r.error().position == Position{500 + expected_pos});
    }
  }
}

TEST_CASE("producer snapshot: every single-byte flip is a CRC or schema error", "[formats]") {
  const auto good = ps::encode(sample_entries());
  for (size_t i = 0; i < good.size(); ++i) {
    for (int mask : {0x01, 0x80, 0xff}) {
      auto b = good;
      b[i] = static_cast<uint8_t>(b[i] ^ mask);
      auto r = ps::read(as_bytes(b));
      REQUIRE(!r.ok());
      INFO("byte " << i << " mask " << int(mask) << ": " << r.error().message);
      if (i < 2) {
        CHECK(r.error().code == Errc::bad_magic);
        CHECK(r.error().position == Position{0});
        CHECK_THAT(r.error().message,
                   Catch::StartsWith("Snapshot failed schema validation: Snapshot contained an unknown file version "));
      } else if (i >= 6 && i < 10) {
        CHECK((r.error().message.rfind("Snapshot failed schema validation: ", 0) == 0 ||
               r.error().code == Errc::bad_crc));
      } else {
        CHECK(r.error().code == Errc::bad_crc);
        CHECK(r.error().position == Position{2});
        CHECK_THAT(r.error().message, Catch::StartsWith("Snapshot is corrupt (CRC is no longer valid). Stored crc: "));
      }
    }
  }
}

TEST_CASE("producer snapshot: schema errors", "[formats]") {
  auto b = ps::encode({});
  b[6] = 0xff;  // count -1 (CRC is checked after the schema)
  b[7] = 0xff;
  b[8] = 0xff;
  b[9] = 0xff;
  auto r = ps::read(as_bytes(b));
  CHECK(r.error().message == "Snapshot failed schema validation: non-nullable field producerEntries was serialized as null");
  CHECK(ps::decode(as_bytes(b)).error().code == Errc::bad_length);
  // Trailing bytes: accepted by the parser, covered by the CRC.
  auto t = ps::encode(sample_entries());
  t.push_back(0);
  CHECK(ps::read(as_bytes(t)).error().code == Errc::bad_crc);
  auto d = ps::decode(as_bytes(t));
  REQUIRE(d.ok());
  CHECK(d->trailing_bytes == Length{1});
  // Stored crc printed unsigned, as Kafka's long.
  auto c = ps::encode(sample_entries());
  c[2] = 0xff;
  auto rc = ps::read(as_bytes(c));
  CHECK_THAT(rc.error().message, Catch::Contains("Stored crc: 4"));
}
