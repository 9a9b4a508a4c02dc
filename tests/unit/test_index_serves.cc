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

// A segment of `batches` batches of `records` records each (timestamps
// 1000, 1001...), written by kseg's encoders, and where each batch starts.
struct SmallLog {
  kseg::test::TempDir tmp;
  std::vector<size_t> positions;
  std::vector<uint8_t> log;
  SmallLog(const char* name, int batches, int records) : tmp(name) {
    kseg::test::PartitionBuilder b(tmp.root / "t-0");
    for (int i = 0; i < batches; ++i) b.batch({.records = records, .timestamp = 1000 + i});
    positions = b.positions();
    log = kseg::test::read_bytes(b.write().front());
  }
  kseg::Bytes bytes() const { return kseg::Bytes(log.data(), log.size()); }
  int64_t position(int batch) const { return static_cast<int64_t>(positions[static_cast<size_t>(batch)]); }
};

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

// Issue 51, item 3: KIP-1333's 12-byte .index entries are told from 8-byte
// ones by the size, then, for a size both divide, by which reading holds
// entries of the log. Every index of every spacing over logs of 1 to 40
// batches, at both widths, with and without a zero tail: the width found
// is the one written, or both readings serve the log (a lookup through
// either finds the batch, or one before it, whose offsets it asks).
TEST_CASE("index width: every index over small logs is read at the width it was written", "[index_serves]") {
  namespace oi = kseg::offset_index;
  kseg::test::TempDir tmp("width");
  int64_t sizes_both_divide = 0, ties = 0, checked = 0;
  for (int batches = 1; batches <= 40; batches += 3) {
    kseg::test::PartitionBuilder b(tmp.root / ("w-" + std::to_string(batches)));
    for (int i = 0; i < batches; ++i) b.batch({.records = 1 + i % 3, .timestamp = 1000 + i});
    const auto pos = b.positions();
    const auto log = kseg::test::read_bytes(b.write().front());
    const kseg::Bytes log_bytes(log.data(), log.size());
    // Last offsets: records 1, 2, 3, 1, 2, 3...
    std::vector<int32_t> last;
    for (int i = 0, o = -1; i < batches; ++i) last.push_back(o += 1 + i % 3);
    for (int every = 1; every <= 4; ++every)
      for (int first = 0; first < std::min(batches, 3); ++first)
        for (const int64_t width : {oi::kEntrySize, oi::kWideEntrySize})
          for (int tail : {0, 1, 2, 3}) {
            std::vector<oi::Entry> e;
            for (int i = first; i < batches; i += every) e.push_back({last[static_cast<size_t>(i)], static_cast<int64_t>(pos[static_cast<size_t>(i)])});
            auto idx = oi::encode(e, width);
            idx.resize(idx.size() + static_cast<size_t>(tail * width), 0);
            const kseg::Bytes ib(idx.data(), idx.size());
            ++checked;
            const oi::Width w = kseg::offset_index_width(ib, Offset{0}, log_bytes);
            if (idx.size() % 24 == 0) ++sizes_both_divide;
            if (w.entry_bytes == width) continue;
            // Only where both readings serve the log (the same lookups).
            ++ties;
            INFO("batches " << batches << " every " << every << " first " << first << " width " << width << " tail " << tail);
            CHECK(w.ambiguous);
            const oi::View as_read(ib, Offset{0}, kseg::Position{0}, w);
            CHECK(kseg::offset_index_serves(
                oi::View(ib.first(static_cast<size_t>(as_read.live_entry_count() * as_read.entry_size())), Offset{0},
                         kseg::Position{0}, w),
                log_bytes));
          }
  }
  WARN("indexes checked: " << checked << ", sizes both widths divide: " << sizes_both_divide << ", read at the other width: " << ties);
  CHECK(sizes_both_divide > 100);
}

TEST_CASE("index width: each case a size both widths divide leaves open", "[index_serves]") {
  namespace oi = kseg::offset_index;
  const SmallLog sl("width-cases", 8, 2);  // last offsets 1, 3, 5...
  const kseg::Bytes lb = sl.bytes();
  const auto p = [&](int i) { return sl.position(i); };
  auto width = [&](const std::vector<uint8_t>& idx, bool with_log) {
    const kseg::Bytes ib(idx.data(), idx.size());
    return with_log ? kseg::offset_index_width(ib, Offset{0}, lb) : oi::detect_width(ib);
  };
  using E = std::vector<oi::Entry>;
  // The size alone: 16 only 8 divides, 36 only 12, 20 neither (Kafka's length check fails it at 8).
  CHECK(width(oi::encode(E{{1, p(0)}, {3, p(1)}}, 8), false) == oi::Width{8, false});
  CHECK(width(oi::encode(E{{1, p(0)}, {3, p(1)}, {5, p(2)}}, 12), false) == oi::Width{12, false});
  CHECK(width(std::vector<uint8_t>(20, 1), false) == oi::Width{8, false});
  CHECK(width({}, true) == oi::Width{8, false});
  // 24 bytes: three 8-byte entries, or two 12-byte ones; each is read as written, with or without the log.
  const auto three = oi::encode(E{{1, p(0)}, {5, p(2)}, {9, p(4)}}, 8), two = oi::encode(E{{3, p(1)}, {7, p(3)}}, 12);
  for (bool with_log : {false, true}) CHECK(width(three, with_log).entry_bytes == 8);
  CHECK(width(two, true).entry_bytes == 12);
  CHECK(width(two, false).entry_bytes == 8);  // without the log, a size both divide is read as Kafka reads it
  // 8-byte entries from position 0 (a pre-0.10 broker's first): the 12-byte
  // reading is in order too, its positions past the log.
  const auto from_zero = oi::encode(E{{1, 0}, {5, p(2)}, {9, p(4)}}, 8);
  CHECK(width(from_zero, false) == oi::Width{8, true});
  CHECK(width(from_zero, true) == oi::Width{8, false});
  // One 12-byte entry and a zero tail: the 8-byte reading, (1, 0) (p, 0), is in order too, and does not serve the log.
  auto one_wide = oi::encode(E{{3, p(1)}}, 12);
  one_wide.resize(24, 0);
  CHECK(width(one_wide, false).ambiguous);
  CHECK(width(one_wide, true) == oi::Width{12, false});
  // Zeros only (a preallocated file): no entries either way.
  CHECK(width(std::vector<uint8_t>(48, 0), true) == oi::Width{8, true});
  // 48 bytes: six 8-byte entries or four 12-byte ones.
  CHECK(width(oi::encode(E{{1, p(0)}, {3, p(1)}, {5, p(2)}, {7, p(3)}, {9, p(4)}, {11, p(5)}}, 8), true).entry_bytes == 8);
  CHECK(width(oi::encode(E{{1, p(0)}, {3, p(1)}, {5, p(2)}, {7, p(3)}}, 12), true).entry_bytes == 12);
}

// From review: a damaged 8-byte index, and one with a torn tail whose size
// only 12 divides, stay 8-byte (Kafka's reading), with or without the log.
TEST_CASE("index width: damaged 8-byte indexes are read at 8", "[index_serves]") {
  namespace oi = kseg::offset_index;
  const SmallLog sl("width-damaged", 24, 3);  // last offsets 2, 5, 8...
  const kseg::Bytes lb = sl.bytes();
  const auto p = [&](int i) { return sl.position(i); };
  using E = std::vector<oi::Entry>;
  // A position going back in the third entry: in order as 12-byte entries if the log is not asked.
  const auto back = oi::encode(E{{8, p(2)}, {17, p(5)}, {1000, 5}}, 8);
  CHECK(oi::detect_width(kseg::Bytes(back.data(), back.size())).entry_bytes == 8);
  CHECK(kseg::offset_index_width(kseg::Bytes(back.data(), back.size()), Offset{0}, lb).entry_bytes == 8);
  // 19 entries and 4 bytes of a torn append: 156 bytes, which only 12 divides.
  E nineteen;
  for (int i = 0; i < 19; ++i) nineteen.push_back({3 * i + 2, p(i)});
  auto torn = oi::encode(nineteen, 8);
  torn.resize(torn.size() + 4, 0);
  REQUIRE(torn.size() % 12 == 0);
  CHECK(oi::detect_width(kseg::Bytes(torn.data(), torn.size())).entry_bytes == 8);
  CHECK(kseg::offset_index_width(kseg::Bytes(torn.data(), torn.size()), Offset{0}, lb).entry_bytes == 8);
  // The same 19 entries at 12 bytes (228, which only 12 divides) are 12-byte, the 8-byte reading out of order;
  // 18 of them (216 bytes, both divide) are 12-byte with the log, 8 (Kafka's reading) without.
  const auto wide = oi::encode(nineteen, 12);
  CHECK(kseg::offset_index_width(kseg::Bytes(wide.data(), wide.size()), Offset{0}, lb) == oi::Width{12, false});
  CHECK(oi::detect_width(kseg::Bytes(wide.data(), wide.size())) == oi::Width{12, false});
  const auto both = oi::encode(std::span(nineteen).first(18), 12);
  CHECK(kseg::offset_index_width(kseg::Bytes(both.data(), both.size()), Offset{0}, lb) == oi::Width{12, false});
  CHECK(oi::detect_width(kseg::Bytes(both.data(), both.size())).entry_bytes == 8);
}

TEST_CASE("offset index: an automatic width widens to 12 at the first position past 2^31 - 1", "[index_serves]") {
  namespace oi = kseg::offset_index;
  oi::Writer w(Offset{100}, oi::kAutoWidth);
  REQUIRE(w.append(Offset{110}, 4096).ok());
  REQUIRE(w.append(Offset{120}, INT32_MAX).ok());
  CHECK(w.entry_bytes() == 8);
  REQUIRE(w.append(Offset{130}, int64_t{INT32_MAX} + 1).ok());
  CHECK(w.entry_bytes() == 12);
  CHECK(w.bytes() == oi::encode(std::vector<oi::Entry>{{10, 4096}, {20, INT32_MAX}, {30, int64_t{INT32_MAX} + 1}}, 12));
  oi::Writer narrow(Offset{100});
  REQUIRE(narrow.append(Offset{110}, 4096).ok());
  CHECK(narrow.append(Offset{120}, int64_t{INT32_MAX} + 1).error().code == kseg::Errc::refused);
}
