// SPDX-License-Identifier: Apache-2.0
// kseg-verify's command line: exit codes, text and JSON output (validated
// against formats/kseg-verify.schema.json), and the code catalogue kept in
// step with the schema and the man page.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/json_schema.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/verify_fixture.h"
#include "tools/ops/common/problem.h"

namespace fs = std::filesystem;
using namespace kseg::test;

namespace {
const std::string kVerifyBin = std::string(KSEG_BINARY_DIR) + "/kseg-verify";
const std::string kKsegBin = std::string(KSEG_BINARY_DIR) + "/kseg";
const std::string kSrc = std::string(KSEG_SOURCE_DIR);
const std::string kCases = kSrc + "/testdata/kafka/";

nlohmann::json verify_schema() { return nlohmann::json::parse(read_text(kSrc + "/formats/kseg-verify.schema.json")); }
}  // namespace

TEST_CASE("verify exit codes: 0 clean, 1 problems, 2 usage, 3 unreadable", "[verify]") {
  auto clean = run_tool(kVerifyBin, {"orders-0"}, kCases + "v2-zstd");
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.find("orders-0: 2 segments, ") != std::string::npos);
  CHECK(clean.out.find(": OK\n") != std::string::npos);
  CHECK(clean.err.empty());  // not a terminal: no progress

  auto bad = run_tool(kVerifyBin, {"orders-0"}, kCases + "crc-mismatch");
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.rfind("ERROR log.crc_mismatch orders-0/00000000000000000000.log:4195: ", 0) == 0);
  CHECK(bad.out.find("(expected 0x") != std::string::npos);

  CHECK(run_tool(kVerifyBin, {}, ".").exit_code == 2);
  CHECK(run_tool(kVerifyBin, {"--no-such-flag", "x"}, ".").exit_code == 2);
  CHECK(run_tool(kVerifyBin, {"--quick", "--deep", "x"}, ".").exit_code == 2);
  CHECK(run_tool(kVerifyBin, {"--fail-on", "sometimes", "x"}, ".").exit_code == 2);
  auto missing = run_tool(kVerifyBin, {"no-such-dir"}, ".");
  CHECK(missing.exit_code == 3);
  CHECK(missing.err.find("no-such-dir") != std::string::npos);
}

TEST_CASE("verify --fail-on warning turns warnings into exit 1", "[verify]") {
  CaseCopy copy("v2-none");
  fs::copy_file(copy.path("orders-0/00000000000000000000.log"), copy.path("orders-0/00000000000000000000.log.swap"));
  auto lenient = run_tool(kVerifyBin, {"orders-0"}, copy.dir());
  CHECK(lenient.exit_code == 0);
  CHECK(lenient.out.find("WARNING dir.leftover_swap orders-0/00000000000000000000.log.swap: ") != std::string::npos);
  CHECK(run_tool(kVerifyBin, {"--fail-on", "warning", "orders-0"}, copy.dir()).exit_code == 1);
  // Info findings (the preallocated active indexes) are counted, shown with -v.
  auto quiet = run_tool(kVerifyBin, {"orders-0"}, kCases + "v2-none");
  CHECK(quiet.out.find("INFO ") == std::string::npos);
  auto verbose = run_tool(kVerifyBin, {"-v", "orders-0"}, kCases + "v2-none");
  CHECK(verbose.out.find("INFO index.preallocated orders-0/00000000000000000259.index:8: ") != std::string::npos);
  CHECK(run_tool(kVerifyBin, {"--fail-on", "info", "orders-0"}, kCases + "v2-none").exit_code == 1);
}

TEST_CASE("verify JSON validates against the schema, clean and damaged", "[verify]") {
  const auto s = verify_schema();
  for (const char* c : {"broker-log-dir", "transactions", "cluster-metadata", "zero-tail", "corrupt-size"}) {
    INFO("case " << c);
    CaseCopy copy(c);
    auto run = verify_json({"--deep", "."}, copy.dir());
    REQUIRE(!run.report.is_discarded());
    CHECK(schema_violation(s, s, run.report) == "");
    CHECK(run.report["summary"]["exit_code"] == run.exit_code);
  }
  // A single file, and a missing one (I/O error listed, exit 3).
  auto one = verify_json({"orders-0/00000000000000000085.log", "nope.log"}, kCases + "crc-mismatch");
  CHECK(one.exit_code == 3);
  CHECK(schema_violation(s, s, one.report) == "");
  CHECK(one.report["io_errors"].size() == 1);
  CHECK(one.report["targets"][0]["kind"] == "file");
}

TEST_CASE("kseg verify equals kseg-verify; codes agree with schema and man page", "[verify]") {
  auto a = run_tool(kVerifyBin, {"--deep", "."}, kCases + "transactions");
  auto b = run_tool(kKsegBin, {"verify", "--deep", "."}, kCases + "transactions");
  CHECK(a.out == b.out);
  CHECK(a.exit_code == b.exit_code);
  auto list = run_tool(kVerifyBin, {"--list-codes"}, ".");
  CHECK(list.exit_code == 0);
  const auto codes = verify_schema()["$defs"]["code"]["enum"];
  const std::string man = read_text(kSrc + "/man/kseg-verify.1");
  // A line per code at the margin, its summary and fix indented below, all
  // within 80 columns.
  size_t heads = 0, fixes = 0;
  std::istringstream in(list.out);
  for (std::string line; std::getline(in, line);) {
    CHECK(line.size() <= 80);
    heads += !line.empty() && line.front() != ' ';
    fixes += line.rfind("    fix: ", 0) == 0;
  }
  CHECK(heads == codes.size());
  CHECK(fixes == codes.size());
  for (const auto& c : codes) {
    const std::string code = c;
    CHECK((list.out.find("\n" + code + "  ") != std::string::npos || list.out.rfind(code + "  ", 0) == 0));
    CHECK(man.find(".B " + code + "\n") != std::string::npos);
  }
}

// Issue 47, item 4: the fix is said under the first error of each code.
TEST_CASE("verify text names the fix once per code, JSON with every problem", "[verify]") {
  const std::string corpus = kSrc + "/testdata/kafka/";
  auto r = run_tool(kVerifyBin, {corpus + "crc-mismatch/orders-0", corpus + "crc-mismatch/orders-0/00000000000000000000.log",
                                 corpus + "torn-tail/orders-0"}, ".");
  CHECK(r.exit_code == 1);
  // For each ERROR line of a code: whether a fix line follows it.
  auto fixed = [&](const std::string& code) {
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::vector<bool> out;
    for (size_t i = 0; i + 1 < lines.size(); ++i)
      if (lines[i].rfind("ERROR " + code + " ", 0) == 0) out.push_back(lines[i + 1].rfind("  fix: ", 0) == 0);
    return out;
  };
  CHECK(fixed("log.crc_mismatch") == std::vector<bool>{true, false});
  CHECK(fixed("log.torn_tail") == std::vector<bool>{true});
  CHECK(r.out.find(std::string("  fix: ") + kseg::code_info(kseg::Code::log_crc_mismatch).remedy + "\n") !=
        std::string::npos);
  auto j = run_tool(kVerifyBin, {"--format", "json", corpus + "crc-mismatch/orders-0"}, ".");
  const auto doc = nlohmann::json::parse(j.out);
  REQUIRE(!doc["problems"].empty());
  for (const auto& p : doc["problems"]) CHECK(p["remedy"] == kseg::find_code(p["code"].get<std::string>())->remedy);
}

TEST_CASE("verify reports a log dir as it goes: order kept, JSON problems past memory come back whole", "[verify]") {
  // Hard-linked copies of one damaged partition: the report streams each
  // partition's result in name order (100 threads: more than the 64 results
  // it holds), and the JSON problems (which follow every target) pass the
  // 1 MiB the report keeps in memory.
  CaseCopy copy("crc-mismatch");
  const std::string log_dir = copy.path("logdir");
  fs::create_directory(log_dir);
  constexpr size_t kPartitions = 1500;
  for (size_t i = 0; i < kPartitions; ++i) {
    const std::string p = log_dir + "/t-" + std::to_string(i);
    fs::create_directory(p);
    for (const auto& e : fs::directory_iterator(copy.path("orders-0")))
      fs::create_hard_link(e.path(), p + "/" + e.path().filename().string());
  }
  // The root checkpoint is checked against the partitions' ends: one entry past t-9's.
  const std::string checkpoint = "0\n2\nt 7 0\nt 9 9999\n";
  write_text(log_dir + "/recovery-point-offset-checkpoint", checkpoint);
  const auto one = verify_json({"orders-0"}, copy.dir());
  const auto raw = run_tool(kVerifyBin, {"--format", "json", "--threads", "100", "logdir"}, copy.dir());
  CHECK(raw.exit_code == 1);
  // Byte for byte what one dump of the whole document prints.
  const auto ordered = nlohmann::ordered_json::parse(raw.out, nullptr, false);
  REQUIRE(!ordered.is_discarded());
  CHECK(raw.out == ordered.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  const nlohmann::json all = ordered;
  CHECK(schema_violation(verify_schema(), verify_schema(), all) == "");
  const auto& problems = all["problems"];
  const size_t per = one.report["problems"].size();
  REQUIRE(per > 0);
  REQUIRE(problems.size() == per * kPartitions + 1);
  CHECK(problems.dump(2).size() > (1u << 20));  // as written, nested deeper: more
  const auto& last = problems[per * kPartitions];
  CHECK(last["code"] == "checkpoint.past_log_end");
  CHECK(last["file"] == "logdir/recovery-point-offset-checkpoint");
  CHECK(std::string(last["message"]).rfind("t-9: ", 0) == 0);
  const auto& targets = all["targets"];
  REQUIRE(targets.size() == kPartitions + 1);
  CHECK(targets[kPartitions]["kind"] == "log_dir");
  for (size_t t = 0; t < kPartitions; ++t) {
    const std::string dir = targets[t]["path"];
    if (t > 0) CHECK(std::string(targets[t - 1]["path"]) < dir);
    for (size_t k = 0; k < per; ++k) {
      nlohmann::json p = problems[t * per + k], q = one.report["problems"][k];
      const std::string file = p["file"], want = q["file"];
      CHECK(file == dir + want.substr(std::string("orders-0").size()));
      p.erase("file");
      q.erase("file");
      CHECK(p == q);
    }
  }
  // Text: each partition's problems before its line, the partitions in order, the total last.
  const auto text = run_tool(kVerifyBin, {"--threads", "100", "logdir"}, copy.dir());
  size_t at = 0;
  for (size_t t = 0; t < kPartitions; ++t) {
    const std::string line = std::string(targets[t]["path"]) + ": 3 segments, ";
    const size_t found = text.out.find("\n" + line, at);
    REQUIRE(found != std::string::npos);
    at = found + 1;
  }
  CHECK(text.out.find("\nERROR checkpoint.past_log_end logdir/recovery-point-offset-checkpoint:", at) !=
        std::string::npos);
  CHECK(text.out.find("\ntotal: 1500 partitions, ", at) != std::string::npos);
}

TEST_CASE("verify: a missing path, then one with nothing to check; NOTHING CHECKED when that is all", "[verify]") {
  CaseCopy copy("v2-none");
  fs::create_directory(copy.path("empty"));
  const auto text = run_tool(kVerifyBin, {"no-such-dir", "empty", "orders-0"}, copy.dir());
  CHECK(text.exit_code == 3);
  const size_t missing = text.err.find("no-such-dir"), empty = text.err.find("empty: nothing to check");
  CHECK(missing != std::string::npos);
  CHECK(empty != std::string::npos);
  CHECK(missing < empty);
  CHECK(text.out.find(": I/O ERROR\n") != std::string::npos);
  const auto json = verify_json({"no-such-dir", "empty"}, copy.dir());
  REQUIRE(json.report["io_errors"].size() == 2);
  CHECK(std::string(json.report["io_errors"][0]).find("no-such-dir") != std::string::npos);
  CHECK(std::string(json.report["io_errors"][1]).find("empty: nothing to check") != std::string::npos);
  // Only a path with nothing to check: that is the verdict, not an I/O error.
  const auto nothing = run_tool(kVerifyBin, {"empty"}, copy.dir());
  CHECK(nothing.exit_code == 3);
  CHECK(nothing.out.find(": NOTHING CHECKED\n") != std::string::npos);
}
