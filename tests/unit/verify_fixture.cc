// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/verify_fixture.h"
#include "tests/unit/support/dirs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "tests/unit/support/run_tool.h"

namespace kseg::test {

namespace fs = std::filesystem;

namespace {
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
const std::string kVerify = std::string(KSEG_BINARY_DIR) + "/kseg-verify";
}  // namespace

VerifyRun verify_json(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> a{"--format", "json"};
  a.insert(a.end(), args.begin(), args.end());
  auto r = run_tool(kVerify, a, cwd);
  VerifyRun v;
  v.exit_code = r.exit_code;
  v.err = r.err;
  v.report = nlohmann::json::parse(r.out, nullptr, false);
  return v;
}

std::vector<GoldenBatch> golden_batches(const std::string& case_name, const std::string& partition,
                                        const std::string& segment) {
  std::ifstream in(kCorpus + case_name + "/dump/" + partition + "." + segment + ".log.plain.out");
  static const std::regex re(R"(^baseOffset: (-?\d+) lastOffset: (-?\d+) .* position: (\d+) .* size: (\d+) )");
  std::vector<GoldenBatch> out;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, re))
      out.push_back({std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[4])});
  return out;
}

}  // namespace kseg::test
