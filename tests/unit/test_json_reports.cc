// SPDX-License-Identifier: Apache-2.0
// Issue 47, item 6: one JSON convention. Every tool's report opens with the same envelope
// (schema, tool, version: kseg's own, as --version prints it) and validates against its
// schema in formats/, on real outputs of every status: planned, applied, unchanged, refused.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/json_schema.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

using kseg::test::read_text;
using kseg::test::run_tool;
using kseg::test::schema_violation;

namespace {

const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";

nlohmann::json schema_of(const std::string& tool) {
  return nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-" + tool + ".schema.json"));
}

// kseg's version as the tools print it: "kseg-dump 0.1.0".
std::string version() {
  const auto v = run_tool(kBin + "kseg-dump", {"--version"}, ".").out;
  return v.substr(v.find(' ') + 1, v.find('\n') - v.find(' ') - 1);
}

// The report of `tool args...`: the envelope checked, the body against the schema.
nlohmann::json report(const std::string& tool, const std::vector<std::string>& args, int exit_code) {
  auto r = run_tool(kBin + "kseg-" + tool, args, ".");
  INFO("kseg-" << tool << ": " << r.err);
  CHECK(r.exit_code == exit_code);
  auto doc = nlohmann::json::parse(r.out);
  const auto s = schema_of(tool);
  CHECK(schema_violation(s, s, doc) == "");
  CHECK(doc["schema"] == "kseg-" + tool + "/1");
  CHECK(doc["tool"] == "kseg-" + tool);
  CHECK(doc["version"] == version());
  CHECK(nlohmann::ordered_json::parse(r.out).begin().key() == "schema");  // the envelope first, in its order
  return doc;
}

}  // namespace

TEST_CASE("kseg-truncate and kseg-compact reports: the envelope and their schemas", "[json]") {
  kseg::test::ScratchLogDir s("v2-none", "orders-0", kseg::test::LogDirSetup().checkpoints(272));
  const std::string dir = s.dir();
  for (const char* flag : {"--json", "--format=json"}) {
    auto planned = report("truncate", {flag, "--dry-run", "--to-offset", "100", dir}, 1);
    CHECK(planned["partitions"][0]["status"] == "planned");
  }
  auto unchanged = report("truncate", {"--json", "--to-offset", "9999", dir}, 0);
  CHECK(unchanged["partitions"][0]["status"] == "unchanged");
  CHECK(unchanged["partitions"][0]["problems"][0]["code"] == "note.nothing_to_cut");
  auto applied = report("truncate", {"--json", "--no-backup", "--to-offset", "100", dir}, 0);
  CHECK(applied["partitions"][0]["status"] == "applied");
  auto refused = report("compact", {"--json", "--now", "1800000000000", dir}, 1);
  CHECK(refused["partitions"][0]["status"] == "error");
  CHECK(refused["partitions"][0]["problems"][0]["code"] == "refuse.not_compacted");

  kseg::test::ScratchLogDir c("compacted", "accounts-0");
  const std::vector<std::string> config = {"--config", "cleanup.policy=compact", "--now", "1800000000000"};
  auto args = [&](std::vector<std::string> a) {
    a.insert(a.begin(), config.begin(), config.end());
    a.push_back(c.dir());
    return a;
  };
  auto plan = report("compact", args({"--format", "json", "--dry-run"}), 1);
  CHECK(plan["partitions"][0]["status"] == "planned");
  CHECK(plan["partitions"][0]["rounds"].size() == 1);
  auto done = report("compact", args({"--json", "--no-backup"}), 0);
  CHECK(done["partitions"][0]["status"] == "compacted");
  auto again = report("compact", args({"--json", "--no-backup"}), 0);
  CHECK(again["partitions"][0]["status"] == "unchanged");
}

TEST_CASE("kseg-reindex's report: refused with both repairs priced, planned, applied, unchanged", "[json]") {
  kseg::test::ScratchLogDir s("crc-mismatch", "orders-0");
  auto refused = report("reindex", {"--format", "json", s.dir()}, 1);
  const auto& p = refused["partitions"][0];
  CHECK(p["status"] == "refused");
  CHECK(p["problems"][0]["code"] == "log.crc_mismatch");
  REQUIRE(p["repairs"].size() == 2);
  CHECK(p["repairs"][1]["repair"] == "--salvage");
  const int64_t salvage = p["repairs"][1]["removes"]["offsets"];
  auto planned = report("reindex", {"--json", "--salvage", "--dry-run", s.dir()}, 1);
  CHECK(planned["partitions"][0]["status"] == "planned");
  CHECK(planned["partitions"][0]["removed"]["offsets"] == salvage);  // what the refusal priced
  CHECK(!planned["partitions"][0]["actions"].empty());
  auto applied = report("reindex", {"--json", "--salvage", "--no-backup", s.dir()}, 0);
  CHECK(applied["partitions"][0]["status"] == "applied");
  auto again = report("reindex", {"--json", "--salvage", s.dir()}, 0);
  CHECK(again["partitions"][0]["status"] == "unchanged");
  CHECK(again["partitions"][0]["settings"]["index.interval.bytes"]["source"] == "default");
}

TEST_CASE("kseg-txn, kseg-info, kseg-dump and kseg-verify reports open with the same envelope", "[json]") {
  const std::string part = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/transactions/ledger-0";
  auto txn = report("txn", {"--format", "json", part}, 0);
  CHECK(txn["partitions"][0]["topic"] == "ledger");
  report("info", {"--format", "json", part}, 0);
  report("dump", {"--format", "json", part + "/00000000000000000000.index"}, 0);
  report("verify", {"--format", "json", part}, 0);
  // A hanging transaction (live-broker's last commit marker cut away): its coordinator entry.
  kseg::test::CaseCopy live("live-broker");
  CHECK(run_tool(kBin + "kseg-truncate", {"--no-backup", "--to-offset", "146", live.path("ledger-0")}, ".").exit_code == 0);
  auto hanging = report("txn", {"--format", "json", live.path("ledger-0")}, 1);
  CHECK(hanging["hanging"] == 1);
  CHECK(hanging["partitions"][0]["open_transactions"][0]["coordinator"].is_object());
  // --format is checked: a writer takes text or json.
  CHECK(run_tool(kBin + "kseg-truncate", {"--format", "yaml", "--to-offset", "1", part}, ".").exit_code == 2);
}

// --format jsonl on every tool (issue 47, item 6): each line is a whole
// document valid against the tool's schema, and the lines together hold
// what the one json document holds, item for item.
TEST_CASE("--format jsonl: a document per line, together the json document's items", "[json]") {
  kseg::test::CaseCopy copy("broker-log-dir");
  const std::string dir = copy.dir();
  struct Run {
    const char* tool;
    std::vector<std::string> args;
    const char* items;  // the array the lines share out
  };
  const std::vector<Run> runs = {
      {"verify", {"--deep"}, "targets"},          {"info", {}, "partitions"},
      {"txn", {}, "partitions"},                   {"reindex", {"--dry-run"}, "partitions"},
      {"truncate", {"--dry-run", "--log-start", "3"}, "partitions"},
      {"compact", {"--dry-run", "--force", "--now", "1800000000000"}, "partitions"}};
  for (const auto& r : runs) {
    INFO("kseg-" << r.tool);
    auto with = [&](const char* format) {
      std::vector<std::string> a = r.args;
      a.insert(a.end(), {"--format", format, dir});
      return run_tool(kBin + "kseg-" + r.tool, a, ".");
    };
    const auto json = with("json"), lines = with("jsonl");
    CHECK(lines.exit_code == json.exit_code);
    const auto doc = nlohmann::json::parse(json.out);
    const auto s = schema_of(r.tool);
    nlohmann::json items = nlohmann::json::array();
    std::istringstream in(lines.out);
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n) {
      const auto j = nlohmann::json::parse(line);
      CHECK(schema_violation(s, s, j) == "");
      CHECK(j["tool"] == doc["tool"]);
      for (const auto& i : j[r.items]) items.push_back(i);
    }
    CHECK(n >= 2);
    CHECK(items == doc[r.items]);
  }
  // dump's jsonl (objects, not documents) is checked in test_dump_json.cc.
}
