// SPDX-License-Identifier: Apache-2.0
// kseg-dump's exit status is kseg-verify's verdict: on every partition of the
// corpus, a dump in any mode exits 0 where kseg-verify finds nothing wrong
// (DumpLogSegments' own false positives, such as the zero slot of an index
// Kafka preallocated, are printed but do not fail it), and a full dump exits
// 1 where kseg-verify finds the data damaged.
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

TEST_CASE("kseg-dump exits as kseg-verify judges, on every corpus partition", "[golden][verdict]") {
  const fs::path root = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";
  const std::string dump = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
  const std::string verify = std::string(KSEG_BINARY_DIR) + "/kseg-verify";
  const std::vector<std::vector<std::string>> modes = {
      {}, {"--deep-iteration"}, {"--deep-iteration", "--print-data-log"}, {"--verify-index-only"}, {"--index-sanity-check"}};
  size_t healthy = 0, damaged = 0;
  for (const auto& c : fs::directory_iterator(root)) {
    if (!fs::exists(c.path() / "case.json")) continue;
    for (const auto& p : fs::directory_iterator(c.path())) {
      if (!p.is_directory() || p.path().filename() == "dump") continue;
      const std::string part = p.path().filename().string();
      const auto v = run_tool(verify, {"--deep", part}, c.path().string());
      INFO(c.path().filename().string() << "/" << part << ": kseg-verify exit " << v.exit_code << "\n" << v.out);
      REQUIRE((v.exit_code == 0 || v.exit_code == 1));
      // timeindex.preallocated_loaded: kseg-dump reads a .timeindex as
      // DumpLogSegments does, up to its zero tail, and finds the tail only
      // where Kafka's sanity check does (--index-sanity-check, which fails).
      size_t errors = 0, loaded = 0;
      for (size_t at = v.out.find("ERROR "); at != std::string::npos; at = v.out.find("ERROR ", at + 1)) {
        ++errors;
        loaded += v.out.compare(at, 35, "ERROR timeindex.preallocated_loaded") == 0;
      }
      if (v.exit_code == 0 || (errors > 0 && errors == loaded)) {
        ++healthy;
        for (const auto& m : modes) {
          auto args = m;
          args.push_back(part);
          const auto d = run_tool(dump, args, c.path().string());
          INFO("kseg-dump " << fmt::format("{}", fmt::join(args, " ")) << "\nstderr: " << d.err);
          CHECK(d.exit_code == (loaded > 0 && m == std::vector<std::string>{"--index-sanity-check"} ? 1 : 0));
        }
      } else {
        ++damaged;
        const auto d = run_tool(dump, {"--deep-iteration", part}, c.path().string());
        INFO("kseg-dump --deep-iteration\nstderr: " << d.err);
        CHECK(d.exit_code == 1);
      }
    }
  }
  std::printf("verdict: %zu healthy partitions (dump exits 0 in %zu modes), %zu damaged (dump exits 1)\n", healthy,
              modes.size(), damaged);
  CHECK(healthy >= 40);
  CHECK(damaged >= 5);
}
