// SPDX-License-Identifier: Apache-2.0
// kseg-excise's command line, its report against formats/kseg-excise.schema.json, and what it
// leaves: the records chosen gone, every other at its offset, the log end where it was, the
// segment's indexes as kseg-reindex rebuilds them, the same bytes on two copies. Kafka itself
// judges the result in tests/kafka/excise-oracle.py (its load, its recovery's indexes, crashes).
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/json_schema.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/cli/excise_cli.h"
#include "tools/ops/excise/excise.h"
#include "tools/ops/write/safe_write.h"

using kseg::test::read_text;
using kseg::test::run_tool;

namespace {

const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";

// The offsets of the partition's records, as kseg-dump reads them: its data records (`control`
// false) or its markers (true).
std::vector<int64_t> offsets(const std::string& dir, bool control = false) {
  auto r = run_tool(kBin + "kseg-dump", {"--deep-iteration", "--format", "jsonl", dir}, ".");
  std::vector<int64_t> out;
  std::istringstream in(r.out);
  bool in_control = false;
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["type"] == "batch") in_control = j["is_control"];
    if (j["type"] == "record" && in_control == control) out.push_back(j["offset"]);
  }
  return out;
}

int64_t log_end(const std::string& dir) {
  auto r = run_tool(kBin + "kseg-info", {"--format", "json", dir}, ".");
  return nlohmann::json::parse(r.out)["partitions"][0]["log_end_offset"];
}

nlohmann::json report(const std::vector<std::string>& args, int exit_code) {
  auto r = run_tool(kBin + "kseg-excise", args, ".");
  INFO(r.out << r.err);
  CHECK(r.exit_code == exit_code);
  auto doc = nlohmann::json::parse(r.out);
  const auto s = nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-excise.schema.json"));
  CHECK(kseg::test::schema_violation(s, s, doc) == "");
  CHECK(doc["schema"] == "kseg-excise/1");
  return doc;
}

}  // namespace

TEST_CASE("excise: offset lists as Kafka reads numbers", "[excise]") {
  using V = std::vector<std::pair<int64_t, int64_t>>;
  CHECK(kseg::parse_offset_list("5") == V{{5, 5}});
  CHECK(kseg::parse_offset_list("010") == V{{10, 10}});  // decimal, never octal
  CHECK(kseg::parse_offset_list("1,3..7,9..") == V{{1, 1}, {3, 7}, {9, INT64_MAX}});
  for (const char* bad : {"", ",", "1,", "0x10", "-1", "7..3", "..5", "1...3", "a", "99999999999999999999"})
    CHECK_FALSE(kseg::parse_offset_list(bad).has_value());
}

TEST_CASE("excise: a pattern of literal text matches as std::regex would", "[excise]") {
  const std::vector<std::string> patterns = {
      "^user-42$", "user-42", "^user", "42$", "", "^", "$", "^$", "a\\.b", "^a\\$$", "a\\$", "a\\\\$",
      "a.b", "^a.b$", "\\d+", "^(x|y)$", "a*", "[ab]", "\\^x", "x\\|y", "x/y", "(a)\\1", "^(x)\\1$"};
  const std::vector<std::string> texts = {"user-42", "xuser-42", "user-421", "user", "42", "", "a.b", "axb", "a$",
                                          "a\\", "a\\$", "x", "y", "^x", "x|y", "x/y", "123", "ab", "aa", "xx"};
  for (const auto& p : patterns) {
    const kseg::ExcisePattern mine(p);
    const std::regex re(p, std::regex::ECMAScript);
    for (const auto& t : texts) {
      INFO("pattern " << p << ", text " << t);
      CHECK(mine.search(t) == std::regex_search(t, re));
    }
  }
  CHECK(kseg::ExcisePattern("^user-42$").literal());
  CHECK(kseg::ExcisePattern("a\\.b").literal());
  CHECK_FALSE(kseg::ExcisePattern("a.b").literal());
  CHECK_FALSE(kseg::ExcisePattern("\\d").literal());
}

TEST_CASE("excise: the command line refuses what it cannot do safely", "[excise]") {
  kseg::test::ScratchLogDir s("v2-none", "orders-0");
  const auto before = kseg::test::tree_digest(s.root.string());
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : {Case{{s.dir()}, "say which records go"},
                        Case{{"--offsets", "1..x", s.dir()}, "not a list of offsets"},
                        Case{{"--key-hex", "abc", s.dir()}, "not hex digits"},
                        Case{{"--key", "(", "--yes", s.dir()}, "does not compile"},
                        Case{{"--offsets", "3", s.dir()}, "give --yes"},  // no terminal to ask on
                        Case{{"--producer-id", "010x", s.dir()}, ""}}) {
    auto r = run_tool(kBin + "kseg-excise", c.args, ".");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  CHECK(kseg::test::tree_digest(s.root.string()) == before);
}

TEST_CASE("excise: chosen records gone, every other at its offset, the log end where it was", "[excise]") {
  kseg::test::ScratchLogDir a("transactions", "ledger-0", kseg::test::LogDirSetup().checkpoints(240));
  kseg::test::ScratchLogDir b("transactions", "ledger-0", kseg::test::LogDirSetup().checkpoints(240));
  const auto all = offsets(a.dir());
  const auto markers = offsets(a.dir(), true);
  const int64_t end = log_end(a.dir());
  REQUIRE(all.size() > 100);
  const std::set<int64_t> chosen{all[1], all[50], all[51], all[52], all.back()};
  const std::string list = std::to_string(all[1]) + "," + std::to_string(all[50]) + ".." + std::to_string(all[52]) +
                           "," + std::to_string(all.back());

  const auto untouched = kseg::test::tree_digest(a.root.string());
  auto planned = report({"--dry-run", "--format", "json", "--offsets", list, a.dir()}, 1);
  const auto& p = planned["partitions"][0];
  CHECK(p["status"] == "planned");
  CHECK(p["removed"]["records"] == 5);
  std::set<int64_t> listed;
  for (const auto& r : p["records"]) listed.insert(r["offset"].get<int64_t>());
  CHECK(listed == chosen);
  CHECK(kseg::test::tree_digest(a.root.string()) == untouched);

  {  // a running broker's lock (or another run's): refused, nothing written
    auto held = kseg::safe::DirLock::acquire(a.root.string());
    REQUIRE(held.ok());
    auto r = run_tool(kBin + "kseg-excise", {"--yes", "--offsets", list, a.dir()}, ".");
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("refuse.locked") != std::string::npos);
  }
  CHECK(kseg::test::tree_digest(a.root.string()) == untouched);

  auto applied = report({"--yes", "--digest", "--no-backup", "--format", "json", "--offsets", list, a.dir()}, 0);
  auto again = report({"--yes", "--digest", "--no-backup", "--format", "json", "--offsets", list, b.dir()}, 0);
  CHECK(applied["partitions"][0]["status"] == "applied");
  CHECK(applied["partitions"][0]["digest"] == again["partitions"][0]["digest"]);  // replicas excised alike
  std::vector<int64_t> left;
  for (int64_t o : all)
    if (!chosen.contains(o)) left.push_back(o);
  CHECK(offsets(a.dir()) == left);
  CHECK(offsets(a.dir(), true) == markers);  // never chosen
  CHECK(log_end(a.dir()) == end);
  // The indexes as kseg-reindex rebuilds them (Kafka's recovery: excise-oracle.py), nothing to find.
  auto reindex = run_tool(kBin + "kseg-reindex", {"--dry-run", "-v", a.dir()}, ".");
  INFO(reindex.out << reindex.err);
  CHECK(reindex.exit_code == 0);
  CHECK(run_tool(kBin + "kseg-verify", {"--deep", a.dir()}, ".").exit_code == 0);
  auto nothing = run_tool(kBin + "kseg-excise", {"--yes", "--offsets", list, a.dir()}, ".");
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.out.find("no record selected") != std::string::npos);
}

TEST_CASE("excise: a segment it cannot read to its end is refused, nothing written", "[excise]") {
  // torn-tail: the last batch torn; a --key selector reads every segment, and the records past
  // the tear are not readable to choose from: kseg reindex --recover first.
  kseg::test::ScratchLogDir s("torn-tail", "orders-0");
  const auto before = kseg::test::tree_digest(s.root.string());
  auto r = run_tool(kBin + "kseg-excise", {"--yes", "--key", "key", s.dir()}, ".");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("refuse.excise_damaged") != std::string::npos);
  CHECK(kseg::test::tree_digest(s.root.string()) == before);
}
