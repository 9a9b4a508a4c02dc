// SPDX-License-Identifier: Apache-2.0
// check_entry: the one decode-and-check of an entry that dump, verify and
// recovery share, on Kafka-written entries and on their damaged copies.
#include <catch2/catch.hpp>

#include "formats/batch_check.h"
#include "tests/unit/corrupt.h"

using namespace kseg;
using namespace kseg::corrupt;

namespace {

EntryCheck first(const Buf& log) {
  EntryScanner sc(view(log), Position{0});
  auto e = sc.next();
  REQUIRE(e);
  return check_entry(*e);
}

}  // namespace

TEST_CASE("check_entry reads every entry Kafka wrote as valid, with its offsets", "[batch_check]") {
  for (const char* c : {"v2-none", "v2-zstd", "v1-gzip", "v1-none", "v0-snappy", "v0-none", "v2-gzip"}) {
    INFO(c);
    const Buf log = corpus_log(c);
    EntryScanner sc(view(log), Position{0});
    int64_t entries = 0, prev_last = -1;
    while (auto e = sc.next()) {
      const EntryCheck k = check_entry(*e);
      CHECK(k.decoded);
      CHECK(k.fault() == SegmentEnd::clean);
      CHECK(k.codec_known);
      CHECK(k.base_offset > prev_last);
      CHECK(k.last_offset >= k.base_offset);
      CHECK(k.crc_stored == stored_crc(e->bytes));
      prev_last = k.last_offset;
      ++entries;
    }
    CHECK(entries > 3);
  }
}

TEST_CASE("check_entry names the fault Kafka's recovery stops at, worded once", "[batch_check]") {
  SECTION("a flipped byte in a v2 batch: bad_crc") {
    const Buf log = flip(view(corpus_log("v2-none")), 70, 0x01);
    const EntryCheck k = first(log);
    CHECK(k.fault() == SegmentEnd::bad_crc);
    CHECK(crc_mismatch_text(k).rfind("CRC-32C mismatch: stored 0x", 0) == 0);
  }
  SECTION("a flipped byte in a v0 message: bad_crc, CRC-32") {
    const Buf log = flip(view(corpus_log("v0-none")), 30, 0x01);
    const EntryCheck k = first(log);
    CHECK(k.fault() == SegmentEnd::bad_crc);
    CHECK(crc_mismatch_text(k).rfind("CRC-32 mismatch", 0) == 0);
  }
  SECTION("a v2 entry shorter than its header: too_small") {
    Buf log = first_entries(view(corpus_log("v2-none")), 1);
    set_be32(log, kOffsetFieldBytes, 40);  // size 40: 52 bytes, under the 61-byte header
    log.resize(kLogOverhead + 40);
    const EntryCheck k = first(log);
    CHECK_FALSE(k.decoded);
    CHECK(k.fault() == SegmentEnd::too_small);
  }
  SECTION("a magic above 2: read as v2, as Kafka reads it (the CRC does not cover the magic)") {
    Buf log = first_entries(view(corpus_log("v2-none")), 1);
    log[static_cast<size_t>(kMagicOffset)] = 3;
    const EntryCheck k = first(log);
    CHECK(k.v2());
    CHECK(k.decoded);
    CHECK(k.header.magic == 3);
    CHECK(k.fault() == SegmentEnd::clean);
    CHECK_FALSE(k.message);
  }
  SECTION("a v1 message whose key runs past it: not decoded, no message, CRC still read") {
    Buf log = first_entries(view(corpus_log("v1-none")), 1);
    set_be32(log, static_cast<size_t>(legacy::kTimestampOffsetV1 + 8), 0x7fffffff);  // key length
    fix_crc(log);
    const EntryCheck k = first(log);
    CHECK_FALSE(k.v2());
    CHECK_FALSE(k.decoded);
    CHECK_FALSE(k.message);
    CHECK(k.crc_ok());  // Kafka's recovery looks at size and CRC only
    CHECK(k.fault() == SegmentEnd::clean);
  }
  SECTION("zstd in a v1 wrapper: a codec the magic cannot hold, CRC still valid") {
    Buf log = first_entries(view(corpus_log("v1-gzip")), 1);
    log[static_cast<size_t>(legacy::kAttributesOffset)] = (log[static_cast<size_t>(legacy::kAttributesOffset)] & ~7) | 4;
    fix_crc(log);
    const EntryCheck k = first(log);
    CHECK(k.fault() == SegmentEnd::clean);
    CHECK_FALSE(k.codec_known);
    CHECK(unknown_codec_text(k) == "compression type id 4 is not allowed with magic 1");
  }
}
