// SPDX-License-Identifier: Apache-2.0
// Issue 47: the five incident stories of the README's table, replayed on copies of log dirs a
// real Kafka broker wrote (live-broker: 4.4.0, KRaft, real clients; compacted: Kafka's own
// writer, never cleaned), each with the commands the table names, through the `kseg` front end.
// What each writer's line claims (offsets, records, bytes freed) is checked against the log dir
// before and after: kseg-info's record count and log offsets, the files' sizes.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/unit/corrupt.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;
using kseg::test::tree_digest;

namespace {

const std::string kKseg = std::string(KSEG_BINARY_DIR) + "/kseg";

// A copy of a corpus case's log dir, with the .lock every broker's log dir has (the corpus
// leaves it out).
struct LogDirCopy : kseg::test::CaseCopy {
  explicit LogDirCopy(const std::string& name) : CaseCopy(name) { kseg::test::write_text(dir() + "/.lock", ""); }
};

nlohmann::json info(const std::string& partition) {
  auto r = run_tool(kKseg, {"info", "--format", "json", partition}, ".");
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["partitions"][0];
}

int64_t file_bytes(const fs::path& dir) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += static_cast<int64_t>(e.file_size());
  return n;
}

// The positions of the batches of a segment, as kseg dump reports them.
std::vector<int64_t> batch_positions(const std::string& log) {
  auto r = run_tool(kKseg, {"dump", "--format", "jsonl", log}, ".");
  std::vector<int64_t> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["type"] == "batch") out.push_back(j["position"]);
  }
  return out;
}

}  // namespace

TEST_CASE("incident: the broker will not start on a corrupt index", "[incidents]") {
  LogDirCopy c("live-broker");
  const std::string dir = c.dir(), part = dir + "/codec-none-0";
  const int64_t records = info(part)["records"];
  {  // three bytes appended: no longer a whole number of entries
    std::ofstream(part + "/00000000000000000000.index", std::ios::app | std::ios::binary) << "abc";
  }
  auto look = run_tool(kKseg, {"verify", part}, ".");
  CHECK(look.exit_code == 1);
  CHECK(look.out.find("ERROR index.size ") != std::string::npos);
  CHECK(look.out.find("  fix: kseg reindex") != std::string::npos);
  CHECK(run_tool(kKseg, {"reindex", "--dry-run", part}, ".").exit_code == 1);
  auto fix = run_tool(kKseg, {"reindex", part}, ".");
  INFO(fix.out << fix.err);
  CHECK(fix.exit_code == 0);
  CHECK(run_tool(kKseg, {"verify", part}, ".").exit_code == 0);
  CHECK(info(part)["records"] == records);
}

TEST_CASE("incident: consumers fail on a CRC error", "[incidents]") {
  LogDirCopy c("live-broker");
  const std::string dir = c.dir(), part = dir + "/codec-none-0";
  const std::string log = part + "/00000000000000000000.log";
  const int64_t records = info(part)["records"];
  const auto positions = batch_positions(log);
  REQUIRE(positions.size() >= 3);
  auto bytes = kseg::test::read_bytes(log);
  bytes[static_cast<size_t>(positions[1]) + kseg::v2::kRecordBatchOverhead + 5] ^= 0x40;  // the middle batch
  kseg::test::write_bytes(log, bytes);
  auto look = run_tool(kKseg, {"verify", "--deep", part}, ".");
  CHECK(look.exit_code == 1);
  CHECK(look.out.find("ERROR log.crc_mismatch ") != std::string::npos);
  // A plain run refuses to write and prices both repairs.
  const auto before = tree_digest(dir);
  auto plain = run_tool(kKseg, {"reindex", part}, ".");
  INFO(plain.out << plain.err);
  CHECK(plain.exit_code == 1);
  CHECK(tree_digest(dir) == before);
  std::smatch m;
  const std::regex salvage(R"(--salvage removes [^,]+, (\d+) offsets? \()");
  REQUIRE(std::regex_search(plain.out, m, salvage));
  const int64_t claimed = std::stoll(m[1]);
  auto fix = run_tool(kKseg, {"reindex", "--salvage", "--no-backup", part}, ".");
  INFO(fix.out << fix.err);
  CHECK(fix.exit_code == 0);
  CHECK(info(part)["records"].get<int64_t>() == records - claimed);  // codec-none: one record an offset
  CHECK(run_tool(kKseg, {"verify", "--deep", part}, ".").exit_code == 0);
}

TEST_CASE("incident: read_committed consumers stuck behind a hanging transaction", "[incidents]") {
  LogDirCopy c("live-broker");
  const std::string dir = c.dir(), part = dir + "/ledger-0";
  CHECK(run_tool(kKseg, {"txn", part}, ".").exit_code == 0);
  // The last commit marker lost (a cut just below it): the transaction stays open.
  const int64_t end = info(part)["log_end_offset"];
  auto cut = run_tool(kKseg, {"truncate", "--no-backup", "--to-offset", std::to_string(end - 1), part}, ".");
  INFO(cut.out << cut.err);
  CHECK(cut.out.find(fmt::format("removed offsets {}..{} (1)", end - 1, end - 1)) != std::string::npos);
  CHECK(info(part)["log_end_offset"] == end - 1);
  auto look = run_tool(kKseg, {"txn", part}, ".");
  CHECK(look.exit_code == 1);
  CHECK(look.out.find("HANGING") != std::string::npos);
  CHECK(look.out.find("kafka-transactions.sh --bootstrap-server ... abort --topic ledger --partition 0") !=
        std::string::npos);
}

TEST_CASE("incident: the disk is full", "[incidents]") {
  LogDirCopy c("live-broker");
  const std::string dir = c.dir(), part = dir + "/accounts-0";
  const auto start = info(part);
  auto plan = run_tool(kKseg, {"truncate", "--dry-run", "--retention-bytes", "1", dir, "--topic", "accounts"}, ".");
  CHECK(plan.exit_code == 1);
  const auto before = file_bytes(dir);
  auto cut = run_tool(kKseg, {"truncate", "--no-backup", "--json", "--retention-bytes", "1", dir, "--topic", "accounts"}, ".");
  REQUIRE(cut.exit_code == 0);
  const auto report = nlohmann::json::parse(cut.out)["partitions"][0];
  const auto after = info(part);
  CHECK(report["space"]["bytes_freed_now"].get<int64_t>() == before - file_bytes(dir));
  CHECK(before > file_bytes(dir));
  const int64_t new_start = report["log_start_offset"]["after"];
  CHECK(new_start > start["first_offset"].get<int64_t>());
  CHECK(after["first_offset"].get<int64_t>() >= new_start);
  CHECK(after["log_end_offset"] == start["log_end_offset"]);
}

TEST_CASE("incident: a compacted topic the cleaner never cleaned", "[incidents]") {
  LogDirCopy c("compacted");
  const std::string dir = c.dir(), part = dir + "/accounts-0";
  const int64_t records = info(part)["records"];
  const std::vector<std::string> common = {"--config", "cleanup.policy=compact", "--now", "1800000000000"};
  auto args = [&](std::vector<std::string> a) {
    a.insert(a.begin() + 1, common.begin(), common.end());
    return a;
  };
  CHECK(run_tool(kKseg, args({"compact", "--dry-run", part}), ".").exit_code == 1);
  auto fix = run_tool(kKseg, args({"compact", "--until-clean", "--no-backup", part}), ".");
  INFO(fix.out << fix.err);
  REQUIRE(fix.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(fix.out, m, std::regex(R"(removed (\d+) records?)")));
  const int64_t claimed = std::stoll(m[1]);
  CHECK(claimed > 0);
  CHECK(info(part)["records"].get<int64_t>() == records - claimed);
  CHECK(run_tool(kKseg, args({"compact", part}), ".").out.find("nothing to change") != std::string::npos);
}
