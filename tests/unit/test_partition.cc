// SPDX-License-Identifier: Apache-2.0
// partition/partition: the one loader every tool asks, on the corpus
// partition Kafka 4.4.0 wrote with transactions (segments 0, 91, 178;
// snapshots 91, 178 and 240, the last written at its log end on close).
#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/unit/corrupt.h"
#include "tests/unit/support/partition_builder.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/verify/verify_partition.h"

namespace fs = std::filesystem;
using namespace kseg;
using kseg::test::LogDirSetup;
using kseg::test::PartitionBuilder;
using kseg::test::ScratchLogDir;
using kseg::test::write_text;

TEST_CASE("load_partition: segments, log end and the log start line", "[partition]") {
  ScratchLogDir s("transactions", "ledger-0", LogDirSetup().checkpoints(240).no_lock());
  auto p = load_partition(s.dir());
  REQUIRE(p.ok());
  REQUIRE(p->segments.size() == 3);
  CHECK(p->segments[1].base == 91);
  CHECK(p->segments[1].path(file_names::FileKind::log) == s.dir() + "/00000000000000000091.log");
  CHECK(p->segments[0].index_bytes % 8 == 0);
  CHECK(p->log_end == 240);  // where Kafka wrote its snapshot at close
  CHECK_FALSE(p->log_start_line);
  CHECK(p->log_start() == 0);
  auto hw = p->high_watermark(p->log_start());
  REQUIRE(hw.ok());
  CHECK(hw->offset == 240);
  CHECK(hw->from_checkpoint);
  write_text(s.file("log-start-offset-checkpoint"), "0\n1\nledger 0 120\n");
  p = load_partition(s.dir());
  REQUIRE(p.ok());
  CHECK(p->log_start() == 120);
  CHECK(p->first_base() == 0);
}

TEST_CASE("load_producers never starts from a snapshot at the log start", "[partition]") {
  ScratchLogDir s("transactions", "ledger-0", LogDirSetup().no_lock());
  fs::remove(s.part / "00000000000000000240.snapshot");
  write_text(s.file("log-start-offset-checkpoint"), "0\n1\nledger 0 91\n");
  auto p = load_partition(s.dir());
  REQUIRE(p.ok());
  auto state = load_producers(*p);
  REQUIRE(state.ok());
  CHECK(state->snapshot == 178);
  // Kafka 4.4.0 deletes the snapshot at the log start when it loads: the
  // state is the replay of the log from there.
  write_text(s.file("log-start-offset-checkpoint"), "0\n1\nledger 0 178\n");
  p = load_partition(s.dir());
  REQUIRE(p.ok());
  state = load_producers(*p);
  REQUIRE(state.ok());
  CHECK_FALSE(state->snapshot);
  CHECK(state->replayed > 0);
}

TEST_CASE("load_partition refuses a directory with no partition name unless asked", "[partition]") {
  ScratchLogDir s("transactions", "ledger-0", LogDirSetup().no_lock());
  const fs::path odd = s.root / "not_a_partition";
  fs::rename(s.part, odd);
  auto p = load_partition(odd.string());
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code == Errc::usage);
  auto r = load_partition(odd.string(), LoadOptions{.need_name = false});
  REQUIRE(r.ok());
  CHECK(r->topic.empty());
  CHECK(r->log_end == 240);
}

TEST_CASE("largest_timestamp reads a zero tail as 0, as Kafka's loaded index does", "[partition]") {
  ScratchLogDir s("transactions", "ledger-0", LogDirSetup().no_lock());
  auto p = load_partition(s.dir());
  REQUIRE(p.ok());
  const Segment& first = p->segments[0];
  auto ts = largest_timestamp(first);
  REQUIRE(ts.ok());
  CHECK(*ts > 1600000000000);  // the corpus's clock
  fs::resize_file(first.path(file_names::FileKind::timeindex), static_cast<uintmax_t>(first.timeindex_bytes + 12 * 4));
  p = load_partition(s.dir());
  REQUIRE(p.ok());
  ts = largest_timestamp(p->segments[0]);
  REQUIRE(ts.ok());
  CHECK(*ts == 0);  // KAFKA-10207: retention deletes such a segment
}

// Layouts no corpus case has, built on the encoders: the loader's log end is
// where the builder's offsets end (the next offset it would write).
TEST_CASE("load_partition on built layouts: the log end is the end of what was written", "[partition][builder]") {
  kseg::test::TempDir t("built");
  const fs::path dir = t.root / "built-0";
  PartitionBuilder b(dir);
  size_t segments = 0;
  int64_t last_base = 0;
  SECTION("an empty active segment after two with batches") {
    b.batches(5, {.records = 3}).roll().batches(2, {.codec = Codec::zstd}).roll();
    segments = 3, last_base = 17;
  }
  SECTION("a gap before the active segment") {
    b.batch({.records = 4}).skip(100).roll().batch();
    segments = 2, last_base = 104;
  }
  SECTION("legacy messages: a v1 wrapper, then v0 messages") {
    b.batch({.records = 5, .codec = Codec::gzip, .magic = 1}).roll().batch({.records = 3, .magic = 0});
    segments = 2, last_base = 5;
  }
  SECTION("a torn batch at the end of the active segment") {
    b.batches(3, {.records = 2});
    const auto kafka_batch = corrupt::first_entries(corrupt::view(corrupt::corpus_log("v2-none")), 1);
    b.raw(std::span(kafka_batch).first(30));
    segments = 1, last_base = 0;
  }
  b.write();
  auto p = load_partition(dir.string());
  REQUIRE(p.ok());
  REQUIRE(p->segments.size() == segments);
  CHECK(p->segments.back().base == last_base);
  CHECK(p->log_end == b.next_offset());
}

TEST_CASE("load_producers on a built transaction: open until its marker", "[partition][builder]") {
  kseg::test::TempDir t("built-txn");
  const fs::path dir = t.root / "txn-0";
  PartitionBuilder b(dir);
  const PartitionBuilder::Batch txn{.records = 2, .producer_id = 7, .producer_epoch = 3, .transactional = true};
  b.batch({.records = 4}).batch(txn).roll().batch(txn).batch({.records = 1, .producer_id = 9});
  b.write();
  auto open = load_partition(dir.string());
  REQUIRE(open.ok());
  auto state = load_producers(*open);
  REQUIRE(state.ok());
  auto entries = state->state.entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].producer_id == 7);
  CHECK(entries[0].current_txn_first_offset == 4);
  CHECK(entries[0].last_sequence == 3);
  CHECK_FALSE(entries[1].has_open_txn());
  b.marker(true, 7, 3).write();
  auto closed = load_partition(dir.string());
  REQUIRE(closed.ok());
  state = load_producers(*closed);
  REQUIRE(state.ok());
  CHECK_FALSE(state->state.entries()[0].has_open_txn());
  CHECK(closed->log_end == 10);
}

// kseg-doctor loads each partition from what kseg-verify read (partition.h,
// LoadOptions::listed and active_end): on every corpus partition Kafka wrote,
// that load equals the one that lists and reads the directory itself.
TEST_CASE("load_partition from verify's reading equals its own", "[partition]") {
  int compared = 0, from_verify = 0;
  for (const auto& logdir : fs::directory_iterator(std::string(KSEG_SOURCE_DIR) + "/testdata/kafka")) {
    if (!logdir.is_directory()) continue;
    for (const auto& e : fs::directory_iterator(logdir.path())) {
      if (!e.is_directory() || !file_names::parse_partition_dir_name(e.path().filename().string()).ok()) continue;
      const std::string dir = e.path().string();
      INFO(dir);
      auto own = load_partition(dir, LoadOptions{Unreadable::list, false, true});
      TargetResult r;
      r.target.path = dir;
      r.target.kind = Target::partition;
      verify_partition(LogCheckOptions{}, r);
      REQUIRE(r.listed);
      LoadOptions o{Unreadable::list, false, true};
      o.listed = &*r.listed;
      // doctor's condition: verify found nothing in the last segment's .log or .index
      const bool sound = r.last_segment_end && std::none_of(r.findings.problems.begin(), r.findings.problems.end(), [&](const Problem& p) {
        auto n = file_names::parse_segment_file_name(fs::path(p.file).filename().string());
        return !n.ok() || (n->offset.value == r.last_segment_end->first &&
                           (n->kind == file_names::FileKind::log || n->kind == file_names::FileKind::index));
      });
      if (sound) o.active_end = r.last_segment_end;
      auto given = load_partition(dir, o);
      REQUIRE(own.ok() == given.ok());
      if (!own.ok()) continue;
      ++compared;
      from_verify += sound;
      CHECK(given->log_end == own->log_end);
      REQUIRE(given->segments.size() == own->segments.size());
      for (size_t i = 0; i < own->segments.size(); ++i) {
        CHECK(given->segments[i].base == own->segments[i].base);
        CHECK(given->segments[i].size == own->segments[i].size);
        CHECK(given->segments[i].index_bytes == own->segments[i].index_bytes);
      }
      CHECK(given->snapshots == own->snapshots);
      CHECK(given->layout.state_files == own->layout.state_files);
    }
  }
  CHECK(compared > 40);
  CHECK(from_verify > 20);  // 28 in the corpus of 2026-12
}
