// SPDX-License-Identifier: Apache-2.0
// One place maps an error's code to the exit status scripts act on: only a
// bad command line is 2; a problem in the data, even one Kafka refuses, is 1.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/common/exit_codes.h"

using namespace kseg;

TEST_CASE("exit_code_for: data problems are 1, never the usage code", "[exit]") {
  int data_codes = 0;
  for (int i = 0; i <= static_cast<int>(Errc::internal); ++i) {
    const auto c = static_cast<Errc>(i);
    INFO(errc_name(c));
    CHECK(std::string(errc_name(c)) != "unknown");  // every code has a name for the JSON problem objects
    if (c == Errc::ok) CHECK(exit_code_for(c) == kExitOk);
    else if (c == Errc::usage) CHECK(exit_code_for(c) == kExitUsage);
    else if (c == Errc::io || c == Errc::internal) CHECK(exit_code_for(c) == kExitIo);
    else { CHECK(exit_code_for(c) == kExitProblems); ++data_codes; }
  }
  CHECK(data_codes == 12);
  CHECK(exit_code_for(Errc::refused) == kExitProblems);
}

// The exit-status contract of every tool (README, man pages), on good,
// damaged, empty and wrong inputs:
//   0 something was read and found sound (dump, verify), or nothing to change (reindex --dry-run)
//   1 problems in the data, or (reindex --dry-run) the plan would change something
//   2 bad command line
//   3 a path is missing or unreadable, or names nothing the tool reads (an
//     empty directory, a file of no known kind; --allow-empty makes that 0)
TEST_CASE("exit status contract: every tool over good, damaged, empty and wrong inputs", "[exit]") {
  namespace fs = std::filesystem;
  using kseg::test::run_tool;
  kseg::test::TempDir tmp("exit");
  const fs::path root = tmp.root;
  fs::create_directories(root / "empty");
  fs::create_directories(root / "good");
  fs::create_directories(root / "damaged");
  const std::string corpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
  fs::copy(corpus + "v2-none/orders-0", root / "good/orders-0", fs::copy_options::recursive);
  fs::copy(corpus + "torn-tail/orders-0", root / "damaged/orders-0", fs::copy_options::recursive);
  { std::ofstream(root / "notes.txt") << "not a Kafka file\n"; }
  const std::string bin = std::string(KSEG_BINARY_DIR) + "/";
  const std::vector<std::string> cfg = {"--index-interval-bytes", "256", "--segment-index-bytes", "4096"};
  auto reindex = [&](std::vector<std::string> args) {
    args.insert(args.begin(), cfg.begin(), cfg.end());
    return run_tool(bin + "kseg-reindex", args, root.string()).exit_code;
  };
  // Reindexed once (Kafka leaves the active segment's indexes preallocated), the good copy has nothing to change.
  REQUIRE(reindex({"good/orders-0"}) == 0);
  struct Row {
    std::string tool;
    std::vector<std::string> args;
    int exit;
  };
  const std::vector<Row> rows = {
      {"kseg-dump", {"good/orders-0"}, 0},
      {"kseg-verify", {"good/orders-0"}, 0},
      {"kseg-reindex", {"--dry-run", "good/orders-0"}, 0},
      {"kseg-dump", {"damaged/orders-0"}, 1},
      {"kseg-verify", {"damaged/orders-0"}, 1},
      {"kseg-reindex", {"--dry-run", "--recover", "damaged/orders-0"}, 1},
      {"kseg-dump", {"empty"}, 3},
      {"kseg-verify", {"empty"}, 3},
      {"kseg-reindex", {"empty"}, 3},
      {"kseg-dump", {"--allow-empty", "empty"}, 0},
      {"kseg-verify", {"--allow-empty", "empty"}, 0},
      {"kseg-reindex", {"--allow-empty", "empty"}, 0},
      {"kseg-dump", {"notes.txt"}, 3},
      {"kseg-verify", {"notes.txt"}, 3},
      {"kseg-reindex", {"notes.txt"}, 3},
      {"kseg-dump", {"good/orders-9"}, 3},
      {"kseg-verify", {"good/orders-9"}, 3},
      {"kseg-reindex", {"good/orders-9"}, 3},
      {"kseg-verify", {"good/orders-0", "empty"}, 3},
      {"kseg-dump", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-verify", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-reindex", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-compact", {"good/orders-0"}, 1},  // cleanup.policy delete: refused
      {"kseg-compact", {"--dry-run", "--config", "cleanup.policy=compact", "good/orders-0"}, 1},
      {"kseg-compact", {"empty"}, 3},
      {"kseg-compact", {"--allow-empty", "empty"}, 0},
      {"kseg-compact", {"good/orders-9"}, 3},
      {"kseg-compact", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-doctor", {"good/orders-0"}, 0},
      {"kseg-doctor", {"--format", "json", "good/orders-0"}, 0},
      {"kseg-doctor", {"damaged/orders-0"}, 1},
      {"kseg-doctor", {"empty"}, 3},
      {"kseg-doctor", {"notes.txt"}, 2},
      {"kseg-doctor", {"good/orders-9"}, 3},
      {"kseg-doctor", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-txn", {"good/orders-0"}, 0},
      {"kseg-txn", {"--format", "json", "good/orders-0"}, 0},
      {"kseg-txn", {"empty"}, 3},
      {"kseg-txn", {"--allow-empty", "empty"}, 0},
      {"kseg-txn", {"good/orders-9"}, 3},
      {"kseg-txn", {"--no-such-option", "good/orders-0"}, 2},
      {"kseg-info", {"good/orders-0"}, 0},
      {"kseg-info", {"--format", "json", "good/orders-0"}, 0},
      {"kseg-info", {"damaged/orders-0"}, 0},  // reported, not judged
      {"kseg-info", {"empty"}, 3},
      {"kseg-info", {"--allow-empty", "empty"}, 0},
      {"kseg-info", {"notes.txt"}, 2},
      {"kseg-info", {"good/orders-9"}, 3},
      {"kseg-info", {"--no-such-option", "good/orders-0"}, 2},
  };
  for (const auto& r : rows) {
    const int got = r.tool == "kseg-reindex" ? reindex(r.args) : run_tool(bin + r.tool, r.args, root.string()).exit_code;
    INFO(r.tool << " " << r.args.back());
    CHECK(got == r.exit);
  }
  // The damaged copy is still as it was: the dry run wrote nothing.
  CHECK(run_tool(bin + "kseg-verify", {"damaged/orders-0"}, root.string()).exit_code == 1);
}
