// SPDX-License-Identifier: Apache-2.0
// Issue 44, defect 7: caps. --threads is clamped to the usable CPUs with one
// warning line (kseg-verify --threads 100000 started 100,000 threads), and
// kseg-compact --until-clean refuses an offset map too small to hold one
// segment's keys (a round per handful of keys: hours on a real partition),
// naming the map size that would do.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "lib/cpus.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";

using Scratch = kseg::test::ScratchLogDir;
}  // namespace

TEST_CASE("--threads above the usable CPUs: clamped with one warning line, same result", "[issue44][caps]") {
  Scratch s("v2-none", "orders-0");
  const unsigned cpus = kseg::usable_cpus();
  const std::string warning =
      fmt::format("warning: --threads 100000 is more than the {} usable CPU{}: using {}\n", cpus, cpus == 1 ? "" : "s", cpus);
  for (const auto& [tool, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"kseg-verify", {"orders-0"}},
           {"kseg-dump", {"--deep-iteration", "orders-0/00000000000000000000.log"}},
           {"kseg-reindex", {"--dry-run", "orders-0"}},
       }) {
    auto plain = run_tool(kBin + tool, args, s.root.string());
    std::vector<std::string> many = {"--threads", "100000"};
    many.insert(many.end(), args.begin(), args.end());
    auto capped = run_tool(kBin + tool, many, s.root.string());
    INFO(tool << ": " << capped.err);
    CHECK(capped.exit_code == plain.exit_code);
    CHECK(capped.out == plain.out);
    CHECK(capped.err == tool + ": " + warning + plain.err);
    // At or below the CPUs: no warning.
    std::vector<std::string> one = {"--threads", "1"};
    one.insert(one.end(), args.begin(), args.end());
    CHECK(run_tool(kBin + tool, one, s.root.string()).err == plain.err);
  }
}

TEST_CASE("compact --until-clean refuses a map smaller than a segment's keys, naming the size that does",
          "[issue44][caps]") {
  Scratch s("v2-none", "orders-0");
  const std::string p = (s.root / "orders-0").string();
  std::vector<std::string> args = {p, "--now", "1700000000000", "--config", "cleanup.policy=compact", "--until-clean",
                                   "--offset-map-bytes", "244"};
  const auto before = kseg::test::tree_digest(s.root.string());
  auto small = run_tool(kBin + "kseg-compact", args, s.root.string());
  INFO(small.out << small.err);
  CHECK(small.exit_code == 2);
  CHECK(small.err.find("an offset map of 244 bytes holds 9 keys") != std::string::npos);
  CHECK(kseg::test::tree_digest(s.root.string()) == before);
  std::smatch m;
  REQUIRE(std::regex_search(small.err, m, std::regex("give --offset-map-bytes ([0-9]+) or more")));
  const std::string enough = m[1];
  // The size it names is enough: the run goes through, a segment or more per round.
  args.back() = enough;
  auto ok = run_tool(kBin + "kseg-compact", args, s.root.string());
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("compacted in") != std::string::npos);
  // Bounded rounds keep Kafka's behaviour: a small map cleans what it holds.
  Scratch t("v2-zstd", "orders-0");
  auto bounded = run_tool(kBin + "kseg-compact", {(t.root / "orders-0").string(), "--now", "1700000000000", "--config",
                                                  "cleanup.policy=compact", "--rounds", "2", "--offset-map-bytes", "244"},
                          t.root.string());
  INFO(bounded.out << bounded.err);
  CHECK(bounded.exit_code == 0);
}
