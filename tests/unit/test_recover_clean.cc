// SPDX-License-Identifier: Apache-2.0
// recover_clean reads a segment in blocks and recovers it when every byte is
// a valid batch; it must then return exactly what recover_segment returns
// over the mapped file, whatever the block size, and give up on anything
// else (recover_segment then says what).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/scratch.h"
#include "corrupt.h"
#include "formats/segment_recover.h"
#include "lib/mapped_file.h"
#include "tools/ops/reindex/reindex.h"

namespace {

using namespace kseg;
namespace fs = std::filesystem;

recover::Config config() {
  recover::Config c;
  c.index_interval_bytes = 256;  // the corpus cases' setting: many index entries
  return c;
}

// Checks recover_clean against recover_segment on one file; true when the
// file was clean (so recover_clean had to succeed).
bool agrees(const std::string& path, size_t block) {
  auto log = MappedFile::open(path);
  REQUIRE(log.ok());
  const auto base = Offset{std::stoll(fs::path(path).stem().string())};
  auto want = recover::recover_segment(log->bytes(), base, config());
  const bool clean = want.ok() && want->stop == SegmentEnd::clean;
  for (unsigned threads : {1u, 2u, 3u, 4u}) {  // blocks read by the calling thread alone, or by several
    recover::Config c = config();
    c.threads = threads;
    auto got = recover_clean(*log, base, c, block);
    INFO(path << ", blocks of " << block << ", " << threads << " threads");
    if (!clean) {
      CHECK_FALSE(got.has_value());
      continue;
    }
    REQUIRE(got.has_value());
    CHECK(got->valid_end == want->valid_end);
    CHECK(got->file_size.bytes == want->file_size.bytes);
    CHECK(got->stop == want->stop);
    CHECK(got->stop_detail == want->stop_detail);
    CHECK(got->valid_batches == want->valid_batches);
    CHECK(got->first_offset == want->first_offset);
    CHECK(got->last_offset == want->last_offset);
    CHECK(got->max_timestamp_ms == want->max_timestamp_ms);
    CHECK(got->offset_index == want->offset_index);
    CHECK(got->time_index == want->time_index);
  }
  return clean;
}

}  // namespace

TEST_CASE("recover_clean equals recover_segment on every corpus segment", "[reindex]") {
  int clean = 0, damaged = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(KSEG_SOURCE_DIR) + "/testdata/kafka")) {
    if (e.path().extension() != ".log") continue;
    // 61: headers and entries cut by block ends, blocks an entry covers whole.
    for (size_t block : {size_t{61}, size_t{4096}, size_t{5003}, size_t{2} << 20})
      (agrees(e.path().string(), block) ? clean : damaged)++;
  }
  CHECK(clean > 300);  // 81 clean files and 7 damaged, each at 4 block sizes
  CHECK(damaged > 24);  // torn, zero-filled, bad CRC, bad size: all given up
}

TEST_CASE("recover_clean equals recover_segment where record values are whole batches", "[reindex]") {
  // Valid batches inside values: where a block's thread guesses its first
  // batch starts, it can find one of these and judge a wrong run of batches.
  const std::string log =
      std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/nested-batches/nested-0/00000000000000000000.log";
  for (size_t block : {size_t{100}, size_t{257}, size_t{1000}, size_t{2048}, size_t{3000}, size_t{4096}, size_t{7777}})
    CHECK(agrees(log, block));
}

TEST_CASE("recover_clean gives up where every 73rd byte looks like a batch", "[reindex]") {
  // A Kafka-written batch, then 8 MiB of copies of the first 73 bytes of
  // one, each claiming a 3 MiB batch that ends where another copy starts:
  // plausible starts that fail their CRC, 28,000 per 2 MiB block. Before
  // the guesses per block were bounded this took 5.8 s, since 0.04 s.
  const corrupt::Buf one = corrupt::first_entries(corrupt::view(corrupt::corpus_log("v2-none")), 1);
  corrupt::Buf file = one;
  corrupt::Buf fake(one.begin(), one.begin() + 73);
  const uint32_t claim = (3u << 20) / 73 * 73 - kLogOverhead;  // 12 + claim is a multiple of 73
  corrupt::set_be32(fake, kOffsetFieldBytes, claim);
  while (file.size() < (8u << 20)) file.insert(file.end(), fake.begin(), fake.end());
  kseg::test::TempDir tmp("fakes");
  const fs::path path = tmp.root / "00000000000000000000.log";
  kseg::test::write_bytes(path, file);
  CHECK_FALSE(agrees(path.string(), 2u << 20));
}

TEST_CASE("recover_clean equals recover_segment across many blocks, and gives up on damage", "[reindex]") {
  // Kafka-written batches repeated to 3 MiB, offsets moved up per copy.
  std::vector<size_t> starts;
  const corrupt::Buf file = corrupt::repeated_log("v2-none", 3u << 20, starts);
  kseg::test::TempDir tmp("clean");
  const fs::path path = tmp.root / "00000000000000000000.log";
  auto write = [&](const corrupt::Buf& b) { kseg::test::write_bytes(path, b); };
  write(file);
  for (size_t block : {size_t{509}, size_t{4096}, size_t{65537}, size_t{1} << 20}) CHECK(agrees(path.string(), block));
  const size_t mid = starts[starts.size() / 2];
  corrupt::Buf torn = corrupt::cut(corrupt::view(file), file.size() - 7);
  corrupt::Buf bad_crc = file;
  bad_crc[mid + v2::kRecordBatchOverhead] ^= 0x01;
  corrupt::Buf zeros = file;
  zeros.insert(zeros.end(), 4096, 0);
  corrupt::Buf bad_size = file;
  corrupt::set_be32(bad_size, mid + kOffsetFieldBytes, 3);
  for (const auto* damaged : {&torn, &bad_crc, &zeros, &bad_size}) {
    write(*damaged);
    for (size_t block : {size_t{4096}, size_t{1} << 20}) CHECK_FALSE(agrees(path.string(), block));
  }
  // A byte changed: agreement, whichever way recovery goes. Half anywhere
  // (mostly a CRC mismatch); half in a batch header with that batch's CRC
  // fixed after, so that size fields and offsets reach the rules after the
  // CRC, and some files stay clean.
  std::mt19937 rng(20261130);
  int clean_flips = 0;
  for (int i = 0; i < 30; i++) {
    corrupt::Buf flipped = file;
    const size_t batch = starts[rng() % starts.size()];
    const size_t at = i % 2 ? std::uniform_int_distribution<size_t>(0, file.size() - 1)(rng)
                            : batch + rng() % v2::kRecordBatchOverhead;
    flipped[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    const auto size = static_cast<int32_t>(load_be32(flipped.data() + batch + kOffsetFieldBytes));
    if (i % 2 == 0 && size >= v2::kRecordBatchOverhead - kLogOverhead && batch + kLogOverhead + size <= flipped.size())
      corrupt::fix_crc(flipped, batch);
    write(flipped);
    for (size_t block : {size_t{4096}, size_t{65537}}) clean_flips += agrees(path.string(), block);
  }
  CHECK(clean_flips > 10);  // 24 of 60 runs: both outcomes are exercised
  CHECK(clean_flips < 50);
}
