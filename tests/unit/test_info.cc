// SPDX-License-Identifier: Apache-2.0
// kseg-info against Kafka's own text: for every corpus partition whose
// segments all have DumpLogSegments --deep-iteration goldens, the batches,
// records, offsets, max timestamps, codecs and producer ids Kafka printed,
// segment by segment, equal what kseg-info --format json reports; the JSON
// validates against formats/kseg-info.schema.json and the text fits 80 columns.
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/json_schema.h"
#include "tests/unit/support/run_tool.h"

namespace fs = std::filesystem;
using kseg::test::read_text;
using kseg::test::run_tool;
using kseg::test::schema_violation;

namespace {

const std::string kBin = std::string(KSEG_BINARY_DIR) + "/kseg-info";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

nlohmann::json schema() {
  return nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-info.schema.json"));
}

// What Kafka's deep dump of one .log says.
struct Golden {
  int64_t batches = 0, records = 0, max_ts = -1;
  std::optional<int64_t> first, last;
  std::map<std::string, int64_t> codecs;  // "magic/codec" -> batches
  std::set<int64_t> producers;
};

int64_t field(const std::string& line, const std::string& name) {
  const std::regex re("(^|[ |])" + name + ": (-?[0-9]+)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) throw std::runtime_error("no " + name + " in: " + line);
  return std::stoll(m[2]);
}

std::string word(const std::string& line, const std::string& name) {
  const std::regex re(" " + name + ": ([a-z0-9]+)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) throw std::runtime_error("no " + name + " in: " + line);
  return m[1];
}

// The batch line's timestamp (v2: maxTimestamp; legacy: the message's), after its position.
int64_t batch_timestamp(const std::string& line) {
  const std::regex re(" position: [0-9]+ (CreateTime|LogAppendTime|NoTimestampType): (-?[0-9]+)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) throw std::runtime_error("no timestamp in: " + line);
  return std::stoll(m[2]);
}

Golden parse_golden(const std::string& text) {
  Golden g;
  std::istringstream in(text);
  bool legacy_first_pending = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("baseOffset: ")) {
      g.batches++;
      if (!g.first) g.first = field(line, "baseOffset");
      g.last = field(line, "lastOffset");
      const int64_t ts = batch_timestamp(line);
      if (ts != -1) g.max_ts = std::max(g.max_ts, ts);
      g.codecs[std::to_string(field(line, "magic")) + "/" + word(line, "compresscodec")]++;
      if (field(line, "producerId") >= 0) g.producers.insert(field(line, "producerId"));
    } else if (line.starts_with("offset: ")) {  // a v0/v1 entry; its first record line has the first offset
      g.batches++;
      legacy_first_pending = !g.first;
      g.last = field(line, "offset");
      const int64_t ts = batch_timestamp(line);
      if (ts != -1) g.max_ts = std::max(g.max_ts, ts);
      g.codecs[std::to_string(field(line, "magic")) + "/" + word(line, "compresscodec")]++;
    } else if (line.starts_with("| offset: ")) {
      g.records++;
      if (legacy_first_pending) g.first = field(line, "offset");
      legacy_first_pending = false;
    }
  }
  return g;
}

// A deep dump that ends in an exception or prints anything on stderr but
// Kafka's "Non-consecutive offsets" summary shows damage Kafka did not read past.
bool golden_clean(const std::string& base) {
  if (read_text(base + ".exit").find('0') != 0) return false;
  std::istringstream err(read_text(base + ".err"));
  for (std::string line; std::getline(err, line);)
    if (!line.empty() && !line.starts_with("Non-consecutive offsets") && !line.starts_with("  ")) return false;
  return true;
}

}  // namespace

TEST_CASE("kseg-info agrees with Kafka's DumpLogSegments on every corpus partition", "[info]") {
  const auto s = schema();
  int partitions = 0, segments = 0, skipped = 0;
  int64_t records = 0;
  for (const auto& case_dir : fs::directory_iterator(kCorpus)) {
    const fs::path dump = case_dir.path() / "dump";
    if (!fs::is_directory(dump)) continue;
    for (const auto& part : fs::directory_iterator(case_dir.path())) {
      const std::string name = part.path().filename().string();
      if (!part.is_directory() || name == "dump") continue;
      std::vector<std::pair<int64_t, std::string>> logs;  // base offset, golden base path
      bool complete = true;
      for (const auto& f : fs::directory_iterator(part.path())) {
        const std::string fn = f.path().filename().string();
        if (!fn.ends_with(".log")) continue;
        const std::string golden = (dump / (name + "." + fn + ".deep")).string();
        // Without a golden for every segment, or with one that shows damage
        // (Kafka's dump throws past a zero tail: zero-tail, zero-appended,
        // preallocated-active), there is nothing of Kafka's to compare with.
        if (!fs::exists(golden + ".out") || !golden_clean(golden)) complete = false;
        logs.emplace_back(std::stoll(fn.substr(0, fn.find('.'))), golden);
      }
      if (logs.empty()) continue;
      if (!complete) {
        skipped++;
        continue;
      }
      std::sort(logs.begin(), logs.end());
      INFO(case_dir.path().filename().string() << "/" << name);
      auto run = run_tool(kBin, {"--format", "json", name}, case_dir.path().string());
      REQUIRE(run.exit_code == 0);
      const auto doc = nlohmann::json::parse(run.out);
      CHECK(schema_violation(s, s, doc) == "");
      REQUIRE(doc["partitions"].size() == 1);
      const auto& p = doc["partitions"][0];
      REQUIRE(p["segments"].size() == logs.size());
      Golden all;
      for (size_t i = 0; i < logs.size(); ++i) {
        INFO("segment " << logs[i].first);
        const Golden g = parse_golden(read_text(logs[i].second + ".out"));
        const auto& seg = p["segments"][i];
        CHECK(seg["base_offset"] == logs[i].first);
        CHECK(seg["batches"] == g.batches);
        CHECK(seg["records"] == g.records);
        CHECK(seg["max_timestamp"] == g.max_ts);
        CHECK(seg["first_offset"] == (g.first ? nlohmann::json(*g.first) : nlohmann::json(nullptr)));
        CHECK(seg["last_offset"] == (g.last ? nlohmann::json(*g.last) : nlohmann::json(nullptr)));
        all.batches += g.batches;
        all.records += g.records;
        all.max_ts = std::max(all.max_ts, g.max_ts);
        if (!all.first) all.first = g.first;
        if (g.last) all.last = g.last;
        for (const auto& [k, n] : g.codecs) all.codecs[k] += n;
        all.producers.insert(g.producers.begin(), g.producers.end());
        segments++;
      }
      CHECK(p["batches"] == all.batches);
      CHECK(p["records"] == all.records);
      CHECK(p["max_timestamp"] == all.max_ts);
      CHECK(p["first_offset"] == (all.first ? nlohmann::json(*all.first) : nlohmann::json(nullptr)));
      CHECK(p["last_offset"] == (all.last ? nlohmann::json(*all.last) : nlohmann::json(nullptr)));
      CHECK(p["producers"] == all.producers.size());
      std::map<std::string, int64_t> codecs;
      for (const auto& c : p["codecs"])
        codecs[std::to_string(c["magic"].get<int>()) + "/" + c["codec"].get<std::string>()] = c["batches"];
      CHECK(codecs == all.codecs);
      records += all.records;
      partitions++;

      // The text: every line within 80 columns; and the ISO form of the JSON still validates.
      auto text = run_tool(kBin, {name}, case_dir.path().string());
      CHECK(text.exit_code == 0);
      std::istringstream lines(text.out);
      for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 80);
      auto iso = run_tool(kBin, {"--format", "json", "--time-format", "iso", name}, case_dir.path().string());
      const auto iso_doc = nlohmann::json::parse(iso.out);
      CHECK(schema_violation(s, s, iso_doc) == "");
      if (all.max_ts >= 0) CHECK(iso_doc["partitions"][0]["max_timestamp"].is_string());
    }
  }
  // The comparison must have compared something: most of the corpus.
  CHECK(partitions >= 40);
  CHECK(segments >= 80);
  CHECK(records > 10000);
  CHECK(skipped <= 5);
  WARN("compared " << partitions << " partitions, " << segments << " segments, " << records << " records; skipped "
                   << skipped);
}

TEST_CASE("kseg-info on a log dir: partitions, then the totals", "[info]") {
  const auto s = schema();
  auto run = run_tool(kBin, {"--format", "json", "broker-log-dir"}, kCorpus);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  CHECK(schema_violation(s, s, doc) == "");
  REQUIRE(doc["log_dirs"].size() == 1);
  int64_t records = 0;
  for (const auto& p : doc["partitions"]) records += p["records"].get<int64_t>();
  CHECK(doc["log_dirs"][0]["records"] == records);
  CHECK(doc["log_dirs"][0]["partitions"] == doc["partitions"].size());
  // The checkpoint's line, read from the log dir.
  for (const auto& p : doc["partitions"])
    if (p["topic"] == "orders") CHECK(p["log_start_offset"] == 0);
  auto text = run_tool(kBin, {"broker-log-dir"}, kCorpus);
  CHECK(text.out.find("  total      ") != std::string::npos);
  // A partition named before the log dir is not counted in the log dir's totals.
  auto both = run_tool(kBin, {"--format", "json", "transactions/ledger-0", "broker-log-dir"}, kCorpus);
  REQUIRE(both.exit_code == 0);
  const auto two = nlohmann::json::parse(both.out);
  CHECK(two["partitions"].size() == doc["partitions"].size() + 1);
  REQUIRE(two["log_dirs"].size() == 1);
  CHECK(two["log_dirs"][0] == doc["log_dirs"][0]);
}

TEST_CASE("kseg-info reports how a damaged log ends and a zero index tail", "[info]") {
  auto torn = nlohmann::json::parse(run_tool(kBin, {"--format", "json", "orders-0"}, kCorpus + "torn-tail").out);
  CHECK(torn["partitions"][0]["end"]["state"] == "partial_tail");
  auto prealloc = nlohmann::json::parse(run_tool(kBin, {"--format", "json", "prealloc-0"}, kCorpus + "preallocated-active").out);
  CHECK(prealloc["partitions"][0]["end"]["state"] == "zero_tail");
  // Kafka's sanity check fails on the broker's untrimmed active .timeindex; its live entries pass.
  // The case's log dir holds .kafka_cleanshutdown, so Kafka would load the zeros as entries.
  auto broker = nlohmann::json::parse(run_tool(kBin, {"--format", "json", "orders-0"}, kCorpus + "broker-log-dir").out);
  const auto& ti = broker["partitions"][0]["segments"][0]["timeindex"];
  CHECK(ti["status"] == "preallocated_loaded");
  CHECK(ti["kafka_sanity_check"].get<std::string>().find("Corrupt time index found") != std::string::npos);
}

TEST_CASE("kseg-info exit codes and the schema's refusals", "[info]") {
  CHECK(run_tool(kBin, {"no-such-dir"}, kCorpus).exit_code == 3);
  CHECK(run_tool(kBin, {"--format", "yaml", "v2-none"}, kCorpus).exit_code == 2);
  CHECK(run_tool(kBin, {"v2-none/case.json"}, kCorpus).exit_code == 2);
  const auto s = schema();
  auto doc = nlohmann::json::parse(run_tool(kBin, {"--format", "json", "orders-0"}, kCorpus + "v2-none").out);
  CHECK(schema_violation(s, s, doc) == "");
  doc["partitions"][0]["records"] = "many";
  CHECK(schema_violation(s, s, doc) != "");
  doc["partitions"][0].erase("records");
  CHECK(schema_violation(s, s, doc) != "");
}
