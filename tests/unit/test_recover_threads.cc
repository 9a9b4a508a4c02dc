// SPDX-License-Identifier: Apache-2.0
// recover_segment judges batches on several threads, a chunk at a time,
// while one scans ahead; what it returns must be what one thread returns,
// across chunk boundaries, and work done past the first invalid batch must
// not leak into the result.
#include <catch2/catch.hpp>

#include "corrupt.h"
#include "formats/segment_recover.h"

namespace {

using namespace kseg;

// Kafka-written v2-none batches laid end to end past several 8 MiB chunks.
struct LongLog {
  std::vector<size_t> starts;  // of every entry
  corrupt::Buf bytes = corrupt::repeated_log("v2-none", 20u << 20, starts);
};

void same(const Result<recover::SegmentRecovery>& a, const Result<recover::SegmentRecovery>& b) {
  REQUIRE(a.ok() == b.ok());
  if (!a.ok()) {
    CHECK(a.error().position == b.error().position);
    CHECK(a.error().message == b.error().message);
    return;
  }
  CHECK(a.value().valid_end == b.value().valid_end);
  CHECK(a.value().stop == b.value().stop);
  CHECK(a.value().stop_detail == b.value().stop_detail);
  CHECK(a.value().valid_batches == b.value().valid_batches);
  CHECK(a.value().last_offset == b.value().last_offset);
  CHECK(a.value().max_timestamp_ms == b.value().max_timestamp_ms);
  CHECK(a.value().offset_index == b.value().offset_index);
  CHECK(a.value().time_index == b.value().time_index);
}

Result<recover::SegmentRecovery> recover_on(const corrupt::Buf& log, unsigned threads) {
  recover::Config c;
  c.threads = threads;
  return recover::recover_segment(corrupt::view(log), Offset{0}, c);
}

}  // namespace

TEST_CASE("recovery on several threads returns what one thread does", "[reindex]") {
  LongLog log;
  REQUIRE(log.starts.size() > 3 * 4096);  // several chunks by entry count too
  const size_t late = log.starts[log.starts.size() * 3 / 4];
  const size_t later = log.starts[log.starts.size() * 3 / 4 + 5];  // likely in the same chunk

  SECTION("a clean file") {
    auto one = recover_on(log.bytes, 1);
    REQUIRE(one.ok());
    CHECK(one->stop == SegmentEnd::clean);
    CHECK(one->valid_batches == static_cast<int64_t>(log.starts.size()));
    for (unsigned t : {2u, 3u}) same(recover_on(log.bytes, t), one);
  }
  SECTION("a CRC failure chunks in, with more faults after it") {
    log.bytes[late + v2::kRecordBatchOverhead] ^= 0x40;
    // Past the stop, judged by the other threads but never reached: another
    // CRC failure, and an offset the segment cannot hold.
    log.bytes[later + v2::kRecordBatchOverhead] ^= 0x40;
    corrupt::set_be64(log.bytes, log.starts.back(), uint64_t{1} << 40);
    corrupt::fix_crc(log.bytes, log.starts.back());
    auto one = recover_on(log.bytes, 1);
    REQUIRE(one.ok());
    CHECK(one->stop == SegmentEnd::bad_crc);
    CHECK(one->valid_end.value == static_cast<int64_t>(late));
    for (unsigned t : {2u, 3u}) same(recover_on(log.bytes, t), one);
  }
  SECTION("an offset overflow chunks in fails the same way") {
    corrupt::set_be64(log.bytes, late, uint64_t{1} << 40);
    corrupt::fix_crc(log.bytes, late);
    auto one = recover_on(log.bytes, 1);
    REQUIRE_FALSE(one.ok());
    CHECK(one.error().position == Position{static_cast<int64_t>(late)});
    for (unsigned t : {2u, 3u}) same(recover_on(log.bytes, t), one);
  }
}
