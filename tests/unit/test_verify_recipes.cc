// SPDX-License-Identifier: Apache-2.0
// A catalogue of corruption recipes applied to copies of Kafka-written
// cases; each must be reported with its code at the position the recipe
// damaged. Positions come from Kafka's golden dumps and the recipe, never
// from running kseg.
#include <filesystem>

#include <catch2/catch.hpp>

#include "formats/producer_snapshot.h"
#include "tests/unit/corrupt.h"
#include "tests/unit/verify_fixture.h"

namespace fs = std::filesystem;
using namespace kseg::test;
namespace corrupt = kseg::corrupt;

namespace {

const std::string kSeg0 = "orders-0/00000000000000000000";

bool has(const VerifyRun& run, const std::string& code, const std::string& file_suffix, int64_t position) {
  for (const auto& p : run.report["problems"]) {
    const std::string f = p["file"];
    const int64_t pos = p["position"].is_null() ? -1 : p["position"].get<int64_t>();
    if (p["code"] == code && f.size() >= file_suffix.size() &&
        f.compare(f.size() - file_suffix.size(), file_suffix.size(), file_suffix) == 0 && pos == position)
      return true;
  }
  return false;
}

// Applies `damage` to a copy of `case_name` and verifies it (--deep).
template <class F>
VerifyRun damaged(const std::string& case_name, F damage) {
  CaseCopy copy(case_name);
  damage(copy);
  return verify_json({"--deep", "."}, copy.dir());
}

void edit(const CaseCopy& c, const std::string& rel, const std::function<void(corrupt::Buf&)>& fn) {
  auto b = read_bytes(c.path(rel));
  fn(b);
  write_bytes(c.path(rel), b);
}

}  // namespace

TEST_CASE("recipes on a v2 segment: CRC, header, payload, truncation, zero tail", "[verify]") {
  const auto batches = golden_batches("v2-none", "orders-0", "00000000000000000000");
  REQUIRE(batches.size() > 12);
  const auto& b = batches[10];
  const size_t p = static_cast<size_t>(b.position);
  const std::string log = kSeg0 + ".log";

  SECTION("bit flip in the stored CRC") {
    auto run = damaged("v2-none", [&](auto& c) { edit(c, log, [&](auto& x) { x[p + 17] ^= 0x10; }); });
    CHECK(run.exit_code == 1);
    CHECK(has(run, "log.crc_mismatch", log, b.position));
  }
  SECTION("bit flip in a header field covered by the CRC (lastOffsetDelta)") {
    auto run = damaged("v2-none", [&](auto& c) { edit(c, log, [&](auto& x) { x[p + 26] ^= 0x01; }); });
    CHECK(has(run, "log.crc_mismatch", log, b.position));
  }
  SECTION("header field changed and the CRC fixed: recordsCount one too many") {
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, log, [&](auto& x) {
        corrupt::set_be32(x, p + 57, static_cast<uint32_t>(b.last_offset - b.base_offset + 2));
        corrupt::fix_crc(x, p);
      });
    });
    CHECK(has(run, "log.record_count", log, b.position + 57));
  }
  SECTION("header field changed and the CRC fixed: lastOffsetDelta below the second record's") {
    REQUIRE(b.last_offset > b.base_offset);
    int64_t second = -1;  // where the batch's second record starts
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, log, [&](auto& x) {
        size_t q = p + 61;  // the first record's length, a zigzag varint
        uint32_t raw = 0;
        for (int shift = 0;; shift += 7) {
          const uint8_t byte = x[q++];
          raw |= static_cast<uint32_t>(byte & 0x7f) << shift;
          if ((byte & 0x80) == 0) break;
        }
        second = static_cast<int64_t>(q) + static_cast<int64_t>((raw >> 1) ^ (0u - (raw & 1)));
        corrupt::set_be32(x, p + 23, 0);
        corrupt::fix_crc(x, p);
      });
    });
    CHECK(has(run, "log.offset_delta", log, second));
  }
  SECTION("header field changed and the CRC fixed: maxTimestamp above every record's") {
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, log, [&](auto& x) {
        corrupt::set_be64(x, p + 35, kseg::load_be64(&x[p + 35]) + 1);
        corrupt::fix_crc(x, p);
      });
    });
    CHECK(has(run, "log.max_timestamp", log, b.position + 35));
  }
  SECTION("magic byte (outside the v2 CRC) set to 3") {
    auto run = damaged("v2-none", [&](auto& c) { edit(c, log, [&](auto& x) { x[p + 16] = 3; }); });
    CHECK(has(run, "log.bad_magic", log, b.position + 16));
  }
  SECTION("bit flip in the payload") {
    auto run = damaged("v2-none", [&](auto& c) { edit(c, log, [&](auto& x) { x[p + 70] ^= 0x04; }); });
    CHECK(has(run, "log.crc_mismatch", log, b.position));
  }
  SECTION("payload damaged and the CRC fixed: the first record's length runs past the batch") {
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, log, [&](auto& x) {
        x[p + 61] = 0xfe;  // length varint 0xfe 0x7f: zigzag 0x3ffe -> 8191 bytes,
        x[p + 62] = 0x7f;  // far more than the batch holds
        corrupt::fix_crc(x, p);
      });
    });
    CHECK(has(run, "log.record_decode", log, b.position + 61));
  }
  SECTION("non-active segment cut in the middle of a batch") {
    auto run = damaged("v2-none", [&](auto& c) {
      fs::resize_file(c.path(log), static_cast<uintmax_t>(b.position + b.size / 2));
    });
    CHECK(has(run, "log.bad_size", log, b.position));
  }
  SECTION("active segment cut in the middle of its last batch") {
    const auto active = golden_batches("v2-none", "orders-0", "00000000000000000259");
    const auto& last = active.back();
    auto run = damaged("v2-none", [&](auto& c) {
      fs::resize_file(c.path("orders-0/00000000000000000259.log"), static_cast<uintmax_t>(last.position + last.size / 2));
    });
    CHECK(has(run, "log.torn_tail", "orders-0/00000000000000000259.log", last.position));
  }
  SECTION("active segment zeroed from a batch to the end, length kept") {
    const auto active = golden_batches("v2-none", "orders-0", "00000000000000000259");
    const auto& from = active[active.size() - 2];
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, "orders-0/00000000000000000259.log", [&](auto& x) {
        std::fill(x.begin() + from.position, x.end(), 0);
      });
    });
    CHECK(has(run, "log.zero_tail", "orders-0/00000000000000000259.log", from.position));
  }
}

TEST_CASE("recipes on indexes", "[verify]") {
  const auto batches = golden_batches("v2-none", "orders-0", "00000000000000000000");
  const std::string index = kSeg0 + ".index", timeindex = kSeg0 + ".timeindex";
  SECTION("an index entry pointing into the middle of a batch") {
    // Golden entry 2 is "offset: 13 position: 1055".
    auto run = damaged("v2-none", [&](auto& c) { edit(c, index, [&](auto& x) { corrupt::set_be32(x, 2 * 8 + 4, 1056); }); });
    CHECK(has(run, "index.entry_mismatch", index, 16));
  }
  SECTION("an index entry naming the wrong offset for its batch") {
    auto run = damaged("v2-none", [&](auto& c) { edit(c, index, [&](auto& x) { corrupt::set_be32(x, 2 * 8, 12); }); });
    CHECK(has(run, "index.entry_mismatch", index, 16));
  }
  SECTION("two index entries swapped: out of order, but each still names its batch") {
    // Golden entries 2 and 3: "offset: 13 position: 1055", "offset: 16 position: 1329".
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, index, [&](auto& x) { std::swap_ranges(x.begin() + 16, x.begin() + 24, x.begin() + 24); });
    });
    CHECK(has(run, "index.not_increasing", index, 24));
    for (const auto& p : run.report["problems"]) CHECK(p["code"] != "index.entry_mismatch");
  }
  SECTION("an entry naming a later batch's last offset (a pre-KAFKA-806 follower append)") {
    // Golden index entries 14 and 15 are (72, 6538) and (79, 6819); the golden
    // dump's batches there: 72 at 6538, 73 at 6676, 74..79 at 6819.
    auto set_offset = [&](uint32_t relative) {
      return damaged("v2-none", [&](auto& c) { edit(c, index, [&](auto& x) { corrupt::set_be32(x, 14 * 8, relative); }); });
    };
    auto accepted = set_offset(73);  // the next batch's last offset: lookups stay right
    for (const auto& p : accepted.report["problems"]) CHECK(p["code"] != "index.entry_mismatch");
    CHECK(has(set_offset(78), "index.entry_mismatch", index, 14 * 8));  // no batch from 6538 on ends at 78
  }
  SECTION("an index entry with a negative relative offset before a zero slot") {
    // The active segment's index is (271, 557), then zeros. Relative offset
    // -1 makes the zero slot 1 a live one (offset 259 > 258), but zeros end
    // the entries: only slot 0 is judged.
    const std::string active = "orders-0/00000000000000000259.index";
    auto run = damaged("v2-none", [&](auto& c) { edit(c, active, [&](auto& x) { corrupt::set_be32(x, 0, 0xffffffff); }); });
    CHECK(has(run, "index.entry_mismatch", active, 0));
    CHECK_FALSE(has(run, "index.entry_mismatch", active, 8));
  }
  SECTION("a missing .index") {
    auto run = damaged("v2-none", [&](auto& c) { fs::remove(c.path(index)); });
    CHECK(run.exit_code == 0);  // a warning: the broker rebuilds it
    CHECK(has(run, "index.missing", kSeg0 + ".log", -1));
  }
  SECTION("two time index entries swapped") {
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, timeindex, [&](auto& x) { std::swap_ranges(x.begin() + 24, x.begin() + 36, x.begin() + 36); });
    });
    CHECK(has(run, "timeindex.not_monotonic", timeindex, 36));
  }
  SECTION("a preallocated time index with its first entry zeroed and a stray entry after it") {
    // The active segment's index holds one entry, then zeros: with slot 0
    // zeroed it reads as empty, so slot 5 is the first out of place (kseg
    // read the entry before slot 0 here, out of bounds, until 2026-11-30).
    const std::string active = "orders-0/00000000000000000259.timeindex";
    auto run = damaged("v2-none", [&](auto& c) {
      edit(c, active, [&](auto& x) {
        std::fill(x.begin(), x.begin() + 12, 0);
        x[5 * 12 + 11] = 1;
      });
    });
    CHECK(has(run, "timeindex.not_monotonic", active, 5 * 12));
  }
  SECTION("a time index entry whose timestamp is not the log's running max") {
    // Golden entry 1 is "timestamp: 1700000000071 offset: 10".
    auto run = damaged("v2-none", [&](auto& c) { edit(c, timeindex, [&](auto& x) { corrupt::set_be64(x, 12, 1700000000070); }); });
    CHECK(has(run, "timeindex.entry_mismatch", timeindex, 12));
  }
  SECTION("the final time index entry of a rolled segment removed") {
    auto run = damaged("v2-none", [&](auto& c) {
      fs::resize_file(c.path(timeindex), fs::file_size(c.path(timeindex)) - 12);
    });
    // 204 bytes = 17 entries; cut to 16, the last is at 15 * 12.
    CHECK(has(run, "timeindex.final_entry", timeindex, 15 * 12));
  }
}

TEST_CASE("recipes on producer state, transactions and checkpoints", "[verify]") {
  SECTION("a producer snapshot with a bad CRC") {
    auto run = damaged("idempotent", [&](auto& c) {
      edit(c, "payments-0/00000000000000000104.snapshot", [&](auto& x) { x[20] ^= 0x01; });
    });
    CHECK(has(run, "snapshot.crc", "payments-0/00000000000000000104.snapshot", 2));
  }
  SECTION("a .txnindex missing an aborted transaction") {
    // Golden: 91.txnindex entry 1 is pid 2000, first 107, last 117, LSO 113.
    auto run = damaged("transactions", [&](auto& c) {
      edit(c, "ledger-0/00000000000000000091.txnindex", [&](auto& x) { x.erase(x.begin() + 34, x.begin() + 68); });
    });
    CHECK(has(run, "txnindex.missing_abort", "ledger-0/00000000000000000091.txnindex", 34));
  }
  SECTION("a .txnindex entry with the wrong last stable offset") {
    auto run = damaged("transactions", [&](auto& c) {
      edit(c, "ledger-0/00000000000000000091.txnindex", [&](auto& x) { corrupt::set_be64(x, 34 + 26, 114); });
    });
    CHECK(has(run, "txnindex.entry_mismatch", "ledger-0/00000000000000000091.txnindex", 34));
  }
  SECTION("a recovery point past the log end") {
    // broker-log-dir: orders-0 ends at 77 (its clean-shutdown snapshot).
    auto run = damaged("broker-log-dir", [&](auto& c) {
      write_bytes(c.path("recovery-point-offset-checkpoint"),
                  corrupt::Buf{'0', '\n', '1', '\n', 'o', 'r', 'd', 'e', 'r', 's', ' ', '0', ' ', '9', '9', '\n'});
    });
    CHECK(has(run, "checkpoint.past_log_end", "recovery-point-offset-checkpoint", 4));
  }
  SECTION("a leader-epoch-checkpoint line that is not UTF-8, in the JSON report") {
    // The message quotes the line; the report must still be JSON (it aborted before 2026-11-30).
    auto run = damaged("v2-none", [&](auto& c) {
      write_bytes(c.path("orders-0/leader-epoch-checkpoint"), corrupt::Buf{'0', '\n', '1', '\n', 0xa2, '\n'});
    });
    CHECK(run.exit_code == 1);
    CHECK(has(run, "epoch.corrupt", "orders-0/leader-epoch-checkpoint", 4));
  }
  SECTION("a leader-epoch-checkpoint entry past the log end") {
    auto run = damaged("v2-none", [&](auto& c) {
      write_bytes(c.path("orders-0/leader-epoch-checkpoint"), corrupt::Buf{'0', '\n', '2', '\n', '0', ' ', '0', '\n',
                                                                           '5', ' ', '9', '9', '9', '\n'});
    });
    CHECK(has(run, "epoch.past_log_end", "orders-0/leader-epoch-checkpoint", 8));
  }
  SECTION("a leader-epoch-checkpoint entry whose offsets hold another epoch's batches") {
    // Kafka wrote 0 3, 1 92, 3 176: offsets 150-175 are epoch 1's batches.
    auto run = damaged("leader-epochs-retention", [&](auto& c) {
      write_bytes(c.path("metrics-0/leader-epoch-checkpoint"),
                  corrupt::Buf{'0', '\n', '4', '\n', '0', ' ', '3', '\n', '1', ' ', '9', '2', '\n', '2', ' ', '1', '5', '0',
                               '\n', '3', ' ', '1', '7', '6', '\n'});
    });
    CHECK(has(run, "epoch.mismatch", "metrics-0/leader-epoch-checkpoint", 13));
  }
  SECTION("a leftover .swap and an orphan index") {
    auto run = damaged("v2-none", [&](auto& c) {
      fs::copy_file(c.path(kSeg0 + ".log"), c.path(kSeg0 + ".log.swap"));
      fs::copy_file(c.path(kSeg0 + ".index"), c.path("orders-0/00000000000000099999.index"));
    });
    CHECK(run.exit_code == 0);  // warnings only
    CHECK(has(run, "dir.leftover_swap", kSeg0 + ".log.swap", -1));
    CHECK(has(run, "dir.orphan_index", "orders-0/00000000000000099999.index", -1));
  }
  SECTION("an interrupted kseg writer's tmp file and a repair's backup directory (issue 20)") {
    auto run = damaged("v2-none", [&](auto& c) {
      fs::copy_file(c.path(kSeg0 + ".index"), c.path(kSeg0 + ".index.kseg-tmp"));
      fs::create_directory(c.path("orders-0/.kseg-backup-20261201T120000Z"));
    });
    CHECK(run.exit_code == 0);  // warnings only
    CHECK(has(run, "dir.leftover_kseg_tmp", kSeg0 + ".index.kseg-tmp", -1));
    CHECK(has(run, "dir.kseg_backup", "orders-0/.kseg-backup-20261201T120000Z", -1));
  }
}

// Issue 19, class 5: what the log cleaner leaves between passes. Kafka's
// Cleaner removes an aborted transaction's data but keeps its ABORT marker and
// the .txnindex entry (whose firstOffset and LSO now name removed offsets),
// and keeps a producer's last batch as of the cleaning, so an older snapshot
// may name a batch since removed. Both the in-process Cleaner's output and the
// live broker's own intermediate segment are healthy; damage to them is not.
TEST_CASE("what the log cleaner leaves is healthy, and damage in it is still found", "[verify]") {
  SECTION("one Cleaner pass over transactions and overwritten idempotent batches") {
    auto run = damaged("cleaned-transactions", [](auto&) {});
    CHECK(run.exit_code == 0);
    CHECK(run.report["summary"]["errors"] == 0);
    CHECK(run.report["summary"]["warnings"] == 0);
  }
  SECTION("the live broker's cleaned segment of a pass before the last, kept as .deleted") {
    CaseCopy copy("live-broker");
    const std::string from = copy.path("accounts-0/00000000000000000000");
    const std::string to = copy.path("accounts-pass-0");
    fs::create_directory(to);
    for (const char* ext : {".log", ".index", ".timeindex", ".txnindex"})
      fs::copy_file(from + ext + ".deleted", to + "/00000000000000000000" + ext);
    const auto txn = read_bytes(to + "/00000000000000000000.txnindex");
    REQUIRE(txn.size() == 68);  // two entries whose aborted data the cleaner removed
    auto run = verify_json({"--deep", "accounts-pass-0"}, copy.dir());
    CHECK(run.exit_code == 0);
    CHECK(run.report["summary"]["errors"] == 0);
    CHECK(run.report["summary"]["warnings"] == 0);
  }
  // Golden: 0.txnindex holds pid 5100, first 5, last 11, LSO 12; offset 11 is
  // 5100's ABORT marker, its data (5-10) removed.
  SECTION("a .txnindex entry of the cleaned segment naming another producer") {
    auto run = damaged("cleaned-transactions", [&](auto& c) {
      edit(c, "balances-0/00000000000000000000.txnindex", [&](auto& x) { corrupt::set_be64(x, 2, 5200); });
    });
    CHECK(has(run, "txnindex.unexpected_entry", "balances-0/00000000000000000000.txnindex", 0));
  }
  SECTION("a .txnindex entry of the cleaned segment whose first offset is past its marker") {
    auto run = damaged("cleaned-transactions", [&](auto& c) {
      edit(c, "balances-0/00000000000000000000.txnindex", [&](auto& x) { corrupt::set_be64(x, 10, 12); });
    });
    CHECK(has(run, "txnindex.unexpected_entry", "balances-0/00000000000000000000.txnindex", 0));
  }
  // Golden: 19.snapshot entry 1 (position 56) is pid 5000, lastOffset 4, a
  // batch the cleaner removed. Offset 16 lies in pid 5200's retained batch 14-18.
  SECTION("a snapshot naming, as a producer's last batch, an offset a retained batch holds") {
    auto run = damaged("cleaned-transactions", [&](auto& c) {
      edit(c, "balances-0/00000000000000000019.snapshot", [&](auto& x) {
        auto snap = kseg::producer_snapshot::decode(kseg::Bytes(x.data(), x.size()));
        REQUIRE(snap.ok());
        REQUIRE(snap->entries.at(1).producer_id == 5000);
        snap->entries[1].last_offset = 16;
        x = kseg::producer_snapshot::encode(snap->entries);
      });
    });
    CHECK(has(run, "snapshot.mismatch", "balances-0/00000000000000000019.snapshot", 56));
  }
}
