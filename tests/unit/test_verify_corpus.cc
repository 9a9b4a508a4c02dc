// SPDX-License-Identifier: Apache-2.0
// kseg-verify on every case of the Kafka corpus: no false positives, and
// the six damaged cases reported with the code and position of their recipe.
#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/verify_fixture.h"
#include "tools/ops/partition/log_dir.h"

namespace fs = std::filesystem;
using kseg::test::CaseCopy;
using kseg::test::verify_json;

namespace {

const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

using Finding = std::tuple<std::string, std::string, std::string, int64_t>;  // severity, code, file name, position

std::multiset<Finding> findings(const nlohmann::json& report) {
  std::multiset<Finding> out;
  for (const auto& p : report["problems"])
    out.insert({p["severity"], p["code"], fs::path(p["file"].get<std::string>()).filename().string(),
                p["position"].is_null() ? -1 : p["position"].get<int64_t>()});
  return out;
}

// What Kafka 4.4 itself leaves in a partition, judged from the files alone:
// the last segment's indexes stay preallocated (4096 / 4092 bytes in this
// corpus, segment.index.bytes=4096; the default 10 MiB in the live broker's
// KRaft metadata log, whose indexes its shutdown does not trim),
// preallocate=true pads the .log, and segments the live broker's cleaner
// replaced wait as .deleted files for file.delete.delay.ms.
std::multiset<std::pair<std::string, std::string>> expected_info(const std::string& case_dir) {
  std::multiset<std::pair<std::string, std::string>> out;
  for (const auto& part : fs::directory_iterator(case_dir)) {
    if (!part.is_directory()) continue;
    std::string last;
    for (const auto& f : fs::directory_iterator(part.path()))
      if (f.path().extension() == ".log") last = std::max(last, f.path().stem().string());
    const auto base = part.path() / last;
    auto size_is = [](const std::string& path, uintmax_t a, uintmax_t b) {
      return fs::exists(path) && (fs::file_size(path) == a || fs::file_size(path) == b);
    };
    if (size_is(base.string() + ".index", 4096, 10485760)) out.insert({"index.preallocated", last + ".index"});
    // In a log dir shut down cleanly (the in-process cases' UnifiedLog.close()
    // leaves the active .timeindex preallocated) Kafka loads those zeros as
    // entries (tests/kafka/timeindex-broker.sh): an error, counted apart.
    if (size_is(base.string() + ".timeindex", 4092, 10485756))
      out.insert({kseg::active_indexes_loaded_as_is(part.path().string()) ? "timeindex.preallocated_loaded"
                                                                           : "timeindex.preallocated",
                  last + ".timeindex"});
    for (const auto& f : fs::directory_iterator(part.path()))
      if (f.path().extension() == ".deleted") out.insert({"dir.leftover_deleted", f.path().filename().string()});
    if (fs::exists(base.string() + ".log") && fs::file_size(base.string() + ".log") == 16384)
      out.insert({"log.preallocated_tail", last + ".log"});
  }
  return out;
}

}  // namespace

TEST_CASE("every undamaged corpus case verifies with no errors or warnings but loaded preallocated time indexes", "[verify]") {
  const std::set<std::string> damaged = {"torn-tail", "torn-header", "zero-tail", "zero-appended", "corrupt-size",
                                         "crc-mismatch"};
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    const std::string name = e.path().filename().string();
    if (damaged.count(name)) continue;
    CaseCopy copy(name);
    for (const char* depth : {"--quick", "--deep"}) {
      INFO("case " << name << " " << depth);
      auto run = verify_json({depth, "--fail-on", "warning", "."}, copy.dir());
      const auto want = expected_info(copy.dir());
      const auto loaded = static_cast<int>(std::count_if(want.begin(), want.end(), [](const auto& w) {
        return w.first == "timeindex.preallocated_loaded";
      }));
      CHECK(run.exit_code == (loaded > 0 ? 1 : 0));
      CHECK(run.report["summary"]["errors"] == loaded);
      CHECK(run.report["summary"]["warnings"] == 0);
      std::multiset<std::pair<std::string, std::string>> info;
      for (const auto& [sev, code, file, pos] : findings(run.report)) info.insert({code, file});
      CHECK(info == want);
    }
    ++checked;
  }
  CHECK(checked == 40);
}

TEST_CASE("the damaged corpus cases are reported at their recipe's position", "[verify]") {
  // From each case.json recipe (positions located with Kafka's own reader).
  const std::vector<std::tuple<std::string, std::string, std::string, int64_t>> cases = {
      {"torn-tail", "log.torn_tail", "00000000000000000268.log", 1446},
      {"torn-header", "log.torn_tail", "00000000000000000260.log", 1445},
      {"zero-tail", "log.zero_tail", "00000000000000000171.log", 6454},
      {"zero-appended", "log.zero_tail", "00000000000000000259.log", 3564},
      {"corrupt-size", "log.bad_size", "00000000000000000000.log", 4030},
      {"crc-mismatch", "log.crc_mismatch", "00000000000000000000.log", 4195},
  };
  for (const auto& [name, code, file, position] : cases) {
    INFO("case " << name);
    CaseCopy copy(name);
    for (const char* depth : {"--quick", "--deep"}) {
      auto run = verify_json({depth, "."}, copy.dir());
      CHECK(run.exit_code == 1);
      // Exactly one error: its consequences (index entries into the lost
      // tail, snapshots above it) are not reported again.
      CHECK(run.report["summary"]["errors"] == 1);
      CHECK(run.report["summary"]["warnings"] == 0);
      CHECK(findings(run.report).count({"error", code, file, position}) == 1);
    }
  }
}
