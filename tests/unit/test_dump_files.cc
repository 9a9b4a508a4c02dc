// SPDX-License-Identifier: Apache-2.0
// kseg-dump beyond the segments (issue 47, item 8): the state files of a
// partition and a log dir Kafka wrote, a --files list with files of no
// known kind, and a segment on standard input.
#include <map>
#include <sstream>

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/json_schema.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

using kseg::test::read_text;
using kseg::test::run_tool;

namespace {

const std::string kDump = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
const std::string kVerify = std::string(KSEG_BINARY_DIR) + "/kseg-verify";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

std::vector<nlohmann::json> objects(const std::string& jsonl) {
  std::vector<nlohmann::json> out;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// Line `n` (from 0) of a file.
std::string line_of(const std::string& path, int n) {
  std::istringstream in(read_text(path));
  std::string line;
  for (int i = 0; i <= n; ++i) std::getline(in, line);
  return line;
}

}  // namespace

TEST_CASE("a log dir's dump prints every state file a broker wrote, valid against the schema", "[dump_files]") {
  const auto schema = nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-dump.schema.json"));
  for (const char* c : {"leader-epochs-retention", "live-broker", "live-crash-before"}) {
    INFO("case " << c);
    const std::string dir = kCorpus + c;
    auto run = run_tool(kDump, {"--format", "jsonl", "."}, dir);
    CHECK(run.exit_code == 0);
    std::map<std::string, int> kinds;
    for (const auto& j : objects(run.out)) {
      CHECK(kseg::test::schema_violation(schema, schema["$defs"]["object"], j) == "");
      const std::string type = j["type"];
      ++kinds[type];
      const std::string file = dir + "/" + j["file"].get<std::string>();
      // Each entry count is the file's own second line; the values its lines.
      if (type == "leader_epoch_checkpoint" || type == "offset_checkpoint") {
        // An empty file has no entries, as Kafka reads it.
        REQUIRE(std::to_string(j["entries"].size()) == (read_text(file).empty() ? "0" : line_of(file, 1)));
        for (size_t k = 0; k < j["entries"].size(); ++k) {
          const auto& e = j["entries"][k];
          const std::string want = type == "offset_checkpoint"
              ? fmt::format("{} {} {}", e["topic"].get<std::string>(), e["partition"].get<int>(), e["offset"].get<int64_t>())
              : fmt::format("{} {}", e["epoch"].get<int>(), e["start_offset"].get<int64_t>());
          CHECK(line_of(file, static_cast<int>(k) + 2) == want);
        }
      }
      if (type == "partition_metadata") CHECK(line_of(file, 1) == "topic_id: " + j["topic_id"].get<std::string>());
      if (type == "meta_properties")
        for (const auto& [k, v] : j["properties"].items())
          CHECK(read_text(file).find(k + "=" + v.get<std::string>()) != std::string::npos);
      if (type == "quorum_state") CHECK(nlohmann::json::parse(read_text(file)) == j["state"]);
    }
    CHECK(kinds["leader_epoch_checkpoint"] > 0);
    CHECK(kinds["partition_metadata"] > 0);
    CHECK(kinds["offset_checkpoint"] >= 3);
    CHECK(kinds["meta_properties"] == 1);
    if (std::string(c) == "live-broker") CHECK(kinds["quorum_state"] == 1);
    // The text form names the same files.
    auto text = run_tool(kDump, {"."}, dir);
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("/leader-epoch-checkpoint\nversion: 0 entries: ") != std::string::npos);
    CHECK(text.out.find("/meta.properties\n") != std::string::npos);
  }
}

TEST_CASE("a damaged state file is its verify code's problem in dump and verify", "[dump_files]") {
  kseg::test::CaseCopy copy("live-broker");
  const std::string q = copy.path("__cluster_metadata-0/quorum-state");
  kseg::test::write_text(q, "{\"leaderId\":1,\"leaderEpoch\":");
  auto dump = run_tool(kDump, {q}, ".");
  CHECK(dump.exit_code == 1);
  CHECK(dump.err.find("position 28: not JSON") != std::string::npos);
  auto verify = run_tool(kVerify, {copy.path("__cluster_metadata-0")}, ".");
  CHECK(verify.exit_code == 1);
  CHECK(verify.out.find("quorum.corrupt") != std::string::npos);
  kseg::test::write_text(q, "{\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":-1,\"data_version\":7}");
  CHECK(run_tool(kVerify, {copy.path("__cluster_metadata-0")}, ".").out.find("unknown data_version 7") != std::string::npos);
  const std::string e = copy.path("idempotent-0/leader-epoch-checkpoint");
  kseg::test::write_text(e, "0\n2\n0 0\n");
  auto epochs = run_tool(kDump, {"--format", "jsonl", "--files", e}, ".");
  CHECK(epochs.exit_code == 1);
  CHECK(epochs.out.find("\"problem_code\":\"epoch.corrupt\"") != std::string::npos);
}

TEST_CASE("files of no known kind among others are skipped with a warning", "[dump_files]") {
  const std::string seg = "orders-0/00000000000000000000.log";
  auto mixed = run_tool(kDump, {"--files", seg + ",case.json"}, kCorpus + "v2-lz4");
  CHECK(mixed.exit_code == 0);
  CHECK(mixed.err.find("kseg-dump: WARNING case.json: skipped: not a file kseg-dump reads") != std::string::npos);
  auto only = run_tool(kDump, {"--files", "case.json"}, kCorpus + "v2-lz4");
  CHECK(only.exit_code == 3);
  CHECK(only.err.find("nothing read") != std::string::npos);
  CHECK(run_tool(kDump, {"--files", seg + ",orders-0/00000000000000000999.log"}, kCorpus + "v2-lz4").exit_code == 3);
  // A state file under --files, in text: Kafka's output (the goldens hold it), a warning, exit 0.
  auto state = run_tool(kDump, {"--files", seg + ",orders-0/leader-epoch-checkpoint"}, kCorpus + "v2-lz4");
  CHECK(state.exit_code == 0);
  CHECK(state.out.ends_with("Dumping orders-0/leader-epoch-checkpoint\n"));
  CHECK(state.err.find("Ignoring unknown file orders-0/leader-epoch-checkpoint\n") != std::string::npos);
  CHECK(state.err.find("name it as a path") != std::string::npos);
  auto as_path = run_tool(kDump, {"orders-0/leader-epoch-checkpoint"}, kCorpus + "v2-lz4");
  CHECK(as_path.exit_code == 0);
  CHECK(as_path.out.find("version: 0 entries: ") != std::string::npos);
}

TEST_CASE("'-' dumps a segment from standard input, piped or redirected", "[dump_files]") {
  const std::string seg = kCorpus + "v2-zstd/orders-0/00000000000000000000.log";
  auto file = run_tool(kDump, {"--deep-iteration", "--print-data-log", "--files", seg}, ".");
  auto piped = run_tool("/bin/sh", {"-c", "cat '" + seg + "' | '" + kDump + "' --deep-iteration --print-data-log -"}, ".");
  auto redirected = run_tool("/bin/sh", {"-c", "'" + kDump + "' --deep-iteration --print-data-log - < '" + seg + "'"}, ".");
  REQUIRE(file.exit_code == 0);
  CHECK(piped.exit_code == 0);
  CHECK(redirected.exit_code == 0);
  // The same batches and records; only the file name and its base offset are unknown.
  auto body = [](const std::string& out) { return out.substr(out.find("baseOffset: ")); };
  CHECK(body(piped.out) == body(file.out));
  CHECK(body(redirected.out) == body(file.out));
  CHECK(piped.out.rfind("Dumping /dev/stdin\nLog starting offset: -1\n", 0) == 0);
  auto torn = run_tool("/bin/sh", {"-c", "head -c 300 '" + seg + "' | '" + kDump + "' -"}, ".");
  CHECK(torn.exit_code == 1);
}
