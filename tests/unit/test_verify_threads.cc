// SPDX-License-Identifier: Apache-2.0
// A segment's batches are examined by several threads a chunk at a time; the
// findings must be those of one thread, in the same order, across chunk
// boundaries.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/unit/support/scratch.h"
#include "corrupt.h"
#include "tools/ops/verify/verify_log.h"

namespace {

using namespace kseg;
namespace fs = std::filesystem;

std::vector<Problem> scan(const std::string& file, unsigned threads) {
  LogCheckOptions opts;
  opts.depth = VerifyDepth::deep;
  opts.segment_threads = threads;
  SegmentScan s;
  s.file = file;
  s.base_offset = Offset{0};
  Findings f;
  REQUIRE(scan_segment(opts, s, f));
  return f.problems;
}

}  // namespace

TEST_CASE("threads examine a segment with the findings of one thread", "[verify]") {
  // Kafka-written batches (uncompressed and gzip) repeated past several
  // chunks; every copy goes back in offsets, and some carry a record fault
  // under a fixed CRC or a broken CRC.
  const corrupt::Buf none = corrupt::corpus_log("v2-none");
  const corrupt::Buf gzip = corrupt::corpus_log("v2-gzip");
  const auto bounds = corrupt::entry_bounds(corrupt::view(none));
  REQUIRE(bounds.size() > 3);
  corrupt::Buf file;
  for (int copy = 0; file.size() < (20u << 20); ++copy) {
    const bool compressed = copy % 3 == 0;
    corrupt::Buf part = compressed ? gzip : none;
    if (!compressed && copy % 7 == 1) {  // first record's length varint made negative, CRC fixed: a record fault
      part[bounds[1] + v2::kRecordBatchOverhead] ^= 0x01;
      corrupt::fix_crc(part, bounds[1]);
    }
    if (!compressed && copy % 11 == 2) part[bounds[2] + v2::kRecordBatchOverhead + 5] ^= 0x40;  // CRC mismatch
    file.insert(file.end(), part.begin(), part.end());
  }
  kseg::test::TempDir tmp("verify-threads");
  const std::string path = tmp.file("00000000000000000000.log");
  kseg::test::write_bytes(path, file);
  const auto one = scan(path, 1);
  CHECK(one.size() > 2000);
  for (unsigned threads : {2u, 3u}) {
    const auto many = scan(path, threads);
    REQUIRE(many.size() == one.size());
    for (size_t i = 0; i < one.size(); ++i) {
      INFO("finding " << i << " with " << threads << " threads");
      CHECK(many[i].code == one[i].code);
      CHECK(many[i].position == one[i].position);
      CHECK(many[i].message == one[i].message);
    }
  }
  auto count = [&](const std::string& code) {
    return std::count_if(one.begin(), one.end(), [&](const Problem& p) { return code_name(p.code) == code; });
  };
  CHECK(count("log.record_decode") > 100);
  CHECK(count("log.crc_mismatch") > 100);
  CHECK(count("log.offset_order") > 1000);
}
