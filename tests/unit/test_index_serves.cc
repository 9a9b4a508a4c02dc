// SPDX-License-Identifier: Apache-2.0
// formats/index_serves.h on a log of kseg's encoders (PartitionBuilder):
// indexes a broker may have written that serve it, and ones that do not.
// The broker-written cases (a 2.8.2 broker's, a 4.4.0 broker's) are in
// test_reindex.cc.
#include <catch2/catch.hpp>

#include "formats/index_serves.h"
#include "tests/unit/support/partition_builder.h"
#include "tests/unit/support/scratch.h"

using kseg::Offset;

namespace {

std::vector<uint8_t> offsets(std::initializer_list<std::pair<int32_t, int32_t>> slots) {
  std::vector<kseg::offset_index::Entry> e;
  for (const auto& [rel, pos] : slots) e.push_back({rel, pos});
  return kseg::offset_index::encode(e);
}

std::vector<uint8_t> times(std::initializer_list<std::pair<int64_t, int64_t>> slots) {
  kseg::time_index::Writer w{Offset{0}};
  for (const auto& [ts, off] : slots) REQUIRE(w.maybe_append(ts, Offset{off}).ok());
  return w.bytes();
}

}  // namespace

TEST_CASE("index_serves: entries at batch starts, offsets of the batch or of a later one", "[index_serves]") {
  kseg::test::TempDir tmp("serves");
  kseg::test::PartitionBuilder b(tmp.root / "t-0");
  // Four batches of 3 records, offsets 0-2, 3-5, 6-8, 9-11, timestamps 1000.., the third out of order.
  b.batch({.records = 3, .timestamp = 1000}).batch({.records = 3, .timestamp = 2000});
  b.batch({.records = 3, .timestamp = 1500}).batch({.records = 3, .timestamp = 3000});
  const auto pos = b.positions();
  const auto log = kseg::test::read_bytes(b.write().front());
  auto serves = [&](const std::vector<uint8_t>& idx) {
    return kseg::offset_index_serves(kseg::offset_index::View(idx, Offset{0}), log);
  };
  const auto p = [&](int i) { return static_cast<int32_t>(pos[static_cast<size_t>(i)]); };
  CHECK(serves(offsets({})));
  CHECK(serves(offsets({{2, p(0)}, {8, p(2)}})));            // per batch, sparse
  CHECK(serves(offsets({{5, p(0)}, {11, p(2)}})));           // whole appends of two batches
  CHECK(!serves(offsets({{4, p(0)}})));                      // inside the second batch
  CHECK(!serves(offsets({{2, p(0) + 1}})));                  // not a batch start
  CHECK(!serves(offsets({{8, p(2)}, {2, p(0)}})));           // going back
  CHECK(!serves(offsets({{5, p(0)}, {5, p(1)}})));           // an append's batch indexed again
  CHECK(!serves(offsets({{14, p(3)}})));                     // past the log

  auto time_serves = [&](const std::vector<uint8_t>& idx) {
    return kseg::time_index_serves(kseg::time_index::View(idx, Offset{0}), log);
  };
  // Largest timestamps: batch 0 1002 (offset 2), batch 1 2002 (5), batch 3 3002 (11).
  CHECK(time_serves(times({{1002, 2}, {2002, 5}, {3002, 11}})));
  CHECK(time_serves(times({{3002, 11}})));                   // the final entry alone
  CHECK(time_serves(times({{2002, 3}, {3002, 9}})));          // a first record of the batch (2.x-3.7)
  CHECK(!time_serves(times({{1002, 2}, {2002, 5}})));        // no final entry: the largest read back is low
  CHECK(!time_serves(times({{2002, 8}, {3002, 11}})));       // batch 2 did not reach the largest
  CHECK(!time_serves(times({{1002, 2}, {2000, 5}, {3002, 11}})));  // not the batch's largest
  CHECK(!time_serves(times({})));                            // timestamps, and no entry
}
