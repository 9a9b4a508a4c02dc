// SPDX-License-Identifier: Apache-2.0
// The golden driver: kseg-dump against every output of Kafka's own
// DumpLogSegments in testdata/kafka/*/dump/ (made by tests/kafka/regen.sh).
//
// Where Kafka finished (exit 0), stdout must be byte-identical. Where Kafka
// crashed (exit 1), what it printed must be a prefix of our stdout (we go on
// with the next file instead of dying) and we must exit non-zero.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tools/ops/common/problem.h"

namespace fs = std::filesystem;
using kseg::test::read_lines;
using kseg::test::read_text;
using kseg::test::run_tool;

TEST_CASE("kseg-dump stdout matches Kafka's DumpLogSegments on every golden", "[golden]") {
  const fs::path root = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";
  const std::string bin = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
  std::vector<fs::path> goldens;
  for (const auto& c : fs::directory_iterator(root)) {
    if (!fs::is_directory(c.path() / "dump")) continue;
    for (const auto& f : fs::directory_iterator(c.path() / "dump"))
      if (f.path().extension() == ".args") goldens.push_back(f.path());
  }
  std::sort(goldens.begin(), goldens.end());
  REQUIRE(goldens.size() >= 100);
  size_t matched = 0, crashed = 0, kafka_false_positives = 0;
  for (const auto& args_path : goldens) {
    const fs::path case_dir = args_path.parent_path().parent_path();
    const std::string stem = (args_path.parent_path() / args_path.stem()).string();
    const std::string want = read_text(stem + ".out");
    const int kafka_exit = std::stoi(read_text(stem + ".exit"));
    const auto run = run_tool(bin, read_lines(args_path.string()), case_dir.string());
    INFO("golden " << stem << " (Kafka exit " << kafka_exit << ", ours " << run.exit_code << ")\nstderr: " << run.err);
    CHECK(run.exit_code < 64);  // no crash by signal
    if (kafka_exit == 0) {
      CHECK(run.out == want);
      if (run.out == want) ++matched;
    } else {
      ++crashed;
      const bool prefix = run.out.compare(0, want.size(), want) == 0;
      CHECK(prefix);
      // We fail too, unless kseg's own rules call what Kafka crashed on
      // healthy (an index Kafka itself left preallocated): then we exit 0 and
      // name it as a problem below error.
      bool healthy = false;
      if (run.exit_code == 0) {
        auto args = read_lines(args_path.string());
        args.insert(args.end(), {"--format", "jsonl"});
        const auto json = run_tool(bin, args, case_dir.string());
        size_t below_error = 0, errors = 0;
        std::istringstream lines(json.out);
        for (std::string line; std::getline(lines, line);) {
          const auto j = nlohmann::json::parse(line, nullptr, false);
          if (!j.is_object() || j.value("type", "") != "problem") continue;
          ++(j.value("severity", "") == "error" ? errors : below_error);
        }
        healthy = json.exit_code == 0 && errors == 0 && below_error > 0;
        INFO("jsonl: " << json.out);
        CHECK(healthy);
      }
      if (healthy) ++kafka_false_positives;
      if (prefix && (run.exit_code != 0 || healthy)) ++matched;
    }
  }
  std::printf("golden: %zu of %zu matched (%zu where Kafka crashed, %zu of them on what kseg finds healthy)\n", matched,
              goldens.size(), crashed, kafka_false_positives);
  CHECK(matched == goldens.size());
}

// JSON and text walk the same checks, so a script reading JSON gets the verdict a person reading
// text does: the same exit code on every golden's arguments.
TEST_CASE("kseg-dump --format jsonl exits as the text dump does on every golden", "[golden][json]") {
  const fs::path root = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";
  const std::string bin = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
  size_t compared = 0, failing = 0, problems = 0;
  std::map<std::string, size_t> codes;
  for (const auto& c : fs::directory_iterator(root)) {
    if (!fs::is_directory(c.path() / "dump")) continue;
    for (const auto& f : fs::directory_iterator(c.path() / "dump")) {
      if (f.path().extension() != ".args") continue;
      auto args = read_lines(f.path().string());
      const auto text = run_tool(bin, args, c.path().string());
      args.insert(args.end(), {"--format", "jsonl"});
      const auto json = run_tool(bin, args, c.path().string());
      INFO("golden " << f.path().string() << "\ntext stderr: " << text.err << "\njson stderr: " << json.err);
      CHECK(json.exit_code == text.exit_code);
      // Every problem in the data carries its code in the shared catalogue.
      std::istringstream lines(json.out);
      for (std::string line; std::getline(lines, line);) {
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object() || j.value("type", "") != "problem") continue;
        ++problems;
        INFO("problem " << line);
        const std::string errc = j["code"];
        if (errc == "io" || errc == "usage") {
          CHECK(j["problem_code"].is_null());
        } else {
          REQUIRE(j["problem_code"].is_string());
          const kseg::CodeInfo* info = kseg::find_code(j["problem_code"].get<std::string>());
          REQUIRE(info != nullptr);
          CHECK(j["severity"] == kseg::severity_name(info->severity));
          ++codes[info->code];
        }
      }
      ++compared;
      if (text.exit_code != 0) ++failing;
    }
  }
  std::printf("golden: text and jsonl exit alike on %zu goldens (%zu non-zero); %zu problems, %zu codes:", compared,
              failing, problems, codes.size());
  for (const auto& [code, n] : codes) std::printf(" %s=%zu", code.c_str(), n);
  std::printf("\n");
  CHECK(compared >= 1000);
}
