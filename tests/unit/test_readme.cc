// SPDX-License-Identifier: Apache-2.0
// The README's corpus figures stay true: counted here from the tree, so a
// golden or a case added without the README failing this test.
#include <filesystem>
#include <regex>

#include <catch2/catch.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"

namespace fs = std::filesystem;

TEST_CASE("the README's corpus figures are the corpus's", "[readme]") {
  const std::string root = KSEG_SOURCE_DIR;
  const std::string readme = kseg::test::read_text(root + "/README.md");
  size_t goldens = 0, cases = 0;
  for (const auto& c : fs::directory_iterator(root + "/testdata/kafka")) {
    if (!c.is_directory()) continue;
    ++cases;
    if (fs::is_directory(c.path() / "dump"))
      for (const auto& f : fs::directory_iterator(c.path() / "dump")) goldens += f.path().extension() == ".args";
  }
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex("(\\d+) of (\\d+) goldens")));
  CHECK(std::stoul(m[1]) == goldens);
  CHECK(std::stoul(m[2]) == goldens);
  REQUIRE(std::regex_search(readme, m, std::regex("`testdata/kafka/` \\| (\\d+) cases")));
  CHECK(std::stoul(m[1]) == cases);
}
