// SPDX-License-Identifier: Apache-2.0
// kseg-doctor on log dirs a real Kafka 4.4.0 broker wrote (live-broker: shut down cleanly;
// live-crash-before: killed with SIGKILL, and live-crash-after: the same after Kafka's own
// recovery of it), and on damaged copies. Kafka's start-up itself judges the predictions in
// tests/kafka/doctor-broker.sh; here: the prediction against the recovery Kafka already made,
// the plan's commands run until nothing is left to fix, the report against its schema, the exit
// statuses.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/unit/json_schema.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/write/safe_write.h"

namespace fs = std::filesystem;
using kseg::test::read_text;
using kseg::test::run_tool;
using kseg::test::schema_violation;

namespace {

const std::string kKseg = std::string(KSEG_BINARY_DIR) + "/kseg";

struct Doctor {
  int exit_code;
  std::string text;
  nlohmann::json doc;
};

// `kseg doctor` twice: text and JSON (valid against formats/kseg-doctor.schema.json).
Doctor doctor(const std::vector<std::string>& paths) {
  std::vector<std::string> args{"doctor"};
  args.insert(args.end(), paths.begin(), paths.end());
  auto text = run_tool(kKseg, args, ".");
  args.insert(args.begin() + 1, {"--format", "json"});
  auto json = run_tool(kKseg, args, ".");
  INFO(json.err);
  REQUIRE(json.exit_code == text.exit_code);
  auto doc = nlohmann::json::parse(json.out);
  const auto schema = nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-doctor.schema.json"));
  CHECK(schema_violation(schema, schema, doc) == "");
  return {text.exit_code, text.out, doc};
}

const nlohmann::json& partition(const nlohmann::json& doc, const std::string& name) {
  for (const auto& t : doc["targets"])
    if (t["type"] == "partition" && fs::path(t["dir"].get<std::string>()).filename() == name) return t;
  FAIL("no partition " << name);
  static const nlohmann::json none;
  return none;
}

// Flips one byte inside the record data of the batch in the middle of `log` (its CRC then fails).
void flip_mid_batch(const std::string& log) {
  auto r = run_tool(kKseg, {"dump", "--format", "jsonl", log}, ".");
  std::vector<int64_t> positions;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line); j["type"] == "batch") positions.push_back(j["position"]);
  REQUIRE(positions.size() > 2);
  std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(positions[positions.size() / 2] + 70);
  char c = 0;
  f.get(c);
  f.seekp(positions[positions.size() / 2] + 70);
  f.put(static_cast<char>(c ^ 0x5a));
}

// A copy of live-broker (a stopped broker's log dir: it holds .lock) with three damages: a CRC
// error mid codec-none-0 (a salvage), a .index of ledger-0 not a whole number of entries (a
// rebuild), no partition.metadata in kcat-lz4-0 (a stray).
struct DamagedLogDir : kseg::test::CaseCopy {
  DamagedLogDir() : CaseCopy("live-broker") {
    kseg::test::write_text(path(".lock"), "");
    flip_mid_batch(path("codec-none-0/00000000000000000000.log"));
    std::ofstream(path("ledger-0/00000000000000000000.index"), std::ios::app | std::ios::binary) << "abc";
    fs::remove(path("kcat-lz4-0/partition.metadata"));
  }
};

}  // namespace

TEST_CASE("doctor: a log dir a broker shut down cleanly has nothing to fix", "[doctor]") {
  kseg::test::CaseCopy c("live-broker");
  auto d = doctor({c.dir()});
  INFO(d.text);
  CHECK(d.exit_code == 0);
  CHECK(d.doc["summary"]["broker_starts"] == true);
  // Only the KRaft metadata log, which the raft layer recovers at every start.
  CHECK(d.doc["summary"]["recovery_segments"] == 1);
  CHECK(partition(d.doc, "__cluster_metadata-0")["startup"]["segments_recovered"] == 1);
  CHECK(d.doc["summary"]["kafka_loses"]["offsets"] == 0);
  CHECK(d.doc["plan"].empty());
  CHECK(d.text.find("plan, in the order that loses least:\n  nothing to do") != std::string::npos);
  CHECK(d.text.find("the broker starts: yes") != std::string::npos);
}

TEST_CASE("doctor: the recovery it predicts of a killed broker's log dir is the one Kafka made", "[doctor]") {
  // live-crash-after is live-crash-before after a 4.4.0 broker started on it and recovered it.
  kseg::test::CaseCopy before("live-crash-before");
  const std::string after = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/live-crash-after/flood-0";
  auto d = doctor({before.dir()});
  INFO(d.text);
  const auto& p = partition(d.doc, "flood-0");
  const auto& s = p["startup"];
  REQUIRE(s.is_object());
  CHECK(s["clean_shutdown"] == false);
  CHECK(d.doc["summary"]["unclean_log_dirs"].size() == 1);
  auto info = run_tool(kKseg, {"info", "--format", "json", after}, ".");
  REQUIRE(info.exit_code == 0);
  CHECK(s["log_end_after"] == nlohmann::json::parse(info.out)["partitions"][0]["log_end_offset"]);
  // Each segment as recovery leaves it: Kafka's own files after its recovery.
  std::map<int64_t, int64_t> predicted;  // base -> .log bytes after start-up
  for (const auto& e : fs::directory_iterator(before.dir() + "/flood-0"))
    if (e.path().extension() == ".log") predicted[std::stoll(e.path().stem().string())] = static_cast<int64_t>(e.file_size());
  REQUIRE(!s["segments"].empty());
  for (const auto& g : s["segments"]) {
    CHECK(g["recovered"] == true);
    if (g["deleted"] == true) predicted.erase(g["base_offset"].get<int64_t>());
    else predicted[g["base_offset"]] -= g["truncated_bytes"].get<int64_t>();
  }
  std::map<int64_t, int64_t> kafka;
  for (const auto& e : fs::directory_iterator(after))
    if (e.path().extension() == ".log") kafka[std::stoll(e.path().stem().string())] = static_cast<int64_t>(e.file_size());
  CHECK(predicted == kafka);
}

TEST_CASE("doctor: damage found, priced, and the plan's commands leave nothing to fix", "[doctor]") {
  DamagedLogDir c;
  auto d = doctor({c.dir()});
  INFO(d.text);
  CHECK(d.exit_code == 1);
  CHECK(d.text.find("ERROR log.crc_mismatch ") != std::string::npos);
  CHECK(d.text.find("Kafka: loads it as it is (the log dir was shut down cleanly)") != std::string::npos);
  CHECK(d.text.find("fix: kseg reindex --salvage ") != std::string::npos);
  CHECK(d.text.find(" or: kseg reindex --recover ") != std::string::npos);
  CHECK(d.text.find("Kafka: trusts it as it is") != std::string::npos);  // the index: nothing checks it at start-up
  CHECK(d.text.find("ERROR partition_metadata.stray ") != std::string::npos);
  CHECK(partition(d.doc, "kcat-lz4-0")["stray"] == true);
  CHECK(partition(d.doc, "codec-none-0")["action"] == "salvage");
  CHECK(partition(d.doc, "ledger-0")["action"] == "reindex");
  // The salvage's price is what the plan says the broker loses after it.
  const auto& salvage = partition(d.doc, "codec-none-0")["salvage_removes"];
  CHECK(d.doc["summary"]["plan_loses"]["offsets"] == salvage["offsets"]);
  CHECK(salvage["offsets"].get<int64_t>() > 0);
  REQUIRE(d.doc["plan"].size() == 3);
  for (const auto& step : d.doc["plan"]) {
    const std::string cmd = step["command"];
    INFO(cmd);
    auto r = run_tool("/bin/sh", {"-c", cmd.starts_with("kseg ") ? kKseg + cmd.substr(4) : cmd}, ".");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
  }
  auto again = doctor({c.dir()});
  INFO(again.text);
  CHECK(again.exit_code == 0);
  CHECK(again.doc["plan"].empty());
}

TEST_CASE("doctor: what stops the broker", "[doctor]") {
  kseg::test::CaseCopy c("live-broker");
  fs::create_directory(c.path("lost+found"));
  auto d = doctor({c.dir()});
  CHECK(d.exit_code == 1);
  CHECK(d.doc["summary"]["broker_starts"] == false);
  CHECK(d.text.find("the broker starts: no") != std::string::npos);
  CHECK(d.text.find("'lost+found' is not in the form of topic-partition") != std::string::npos);

  // Two log dirs of one broker formatted for different clusters.
  kseg::test::TempDir other("doctor-other");
  const std::string b = (other.root / "b").string();
  fs::create_directory(b);
  std::string meta = read_text(c.path("meta.properties"));
  const auto at = meta.find("cluster.id=");
  REQUIRE(at != std::string::npos);
  meta.replace(at + 11, 22, "AAAAAAAAAAAAAAAAAAAAAA");
  kseg::test::write_text(b + "/meta.properties", meta);
  fs::remove(c.path("lost+found"));
  auto two = doctor({c.dir(), b});
  CHECK(two.exit_code == 1);
  CHECK(two.text.find("cluster.id differs across the log dirs") != std::string::npos);
}

TEST_CASE("doctor: usage and unreadable paths", "[doctor]") {
  CHECK(run_tool(kKseg, {"doctor"}, ".").exit_code == 2);
  CHECK(run_tool(kKseg, {"doctor", "--format", "yaml", "."}, ".").exit_code == 2);
  CHECK(run_tool(kKseg, {"doctor", "/nonexistent/kseg-doctor"}, ".").exit_code == 3);
  kseg::test::TempDir empty("doctor-empty");
  auto r = run_tool(kKseg, {"doctor", empty.root.string()}, ".");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("no partition directory and no log dir file in it") != std::string::npos);
}

TEST_CASE("doctor --fix: the plan applied under the log dir's lock, nothing left after it", "[doctor]") {
  DamagedLogDir c;
  fs::remove(c.path("kcat-gzip-0/00000000000000000000.index"));  // Kafka would rebuild it: an optional step
  auto before = doctor({c.dir()});
  REQUIRE(before.exit_code == 1);
  REQUIRE(before.doc["plan"].size() == 4);
  CHECK(before.doc["plan"][3]["optional"] == true);
  const int64_t salvaged = partition(before.doc, "codec-none-0")["salvage_removes"]["offsets"];
  auto records = [&](const std::string& p) {
    auto r = run_tool(kKseg, {"info", "--format", "json", c.path(p)}, ".");
    return nlohmann::json::parse(r.out)["partitions"][0]["records"].get<int64_t>();
  };
  const int64_t records_before = records("codec-none-0");

  // No terminal to ask on: --yes is needed, and nothing is written.
  const auto digest = kseg::test::tree_digest(c.dir());
  auto asked = run_tool(kKseg, {"doctor", "--fix", c.dir()}, ".");
  CHECK(asked.exit_code == 2);
  CHECK(asked.err.find("give --yes") != std::string::npos);
  {  // A running broker's lock (or another run's): refused, nothing written.
    auto held = kseg::safe::DirLock::acquire(c.dir());
    REQUIRE(held.ok());
    auto locked = run_tool(kKseg, {"doctor", "--fix", "--yes", c.dir()}, ".");
    CHECK(locked.exit_code == 3);
    CHECK(locked.err.find("refuse.locked") != std::string::npos);
  }
  CHECK(kseg::test::tree_digest(c.dir()) == digest);

  auto fixed = run_tool(kKseg, {"doctor", "--fix", "--yes", c.dir()}, ".");
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.out.find("applying 1/4: kseg reindex --salvage ") != std::string::npos);
  CHECK(fixed.out.find("partition.metadata written") != std::string::npos);
  CHECK(fixed.out.find("after the fix:") != std::string::npos);
  auto after = doctor({c.dir()});
  INFO(after.text);
  CHECK(after.exit_code == 0);
  CHECK(after.doc["plan"].empty());
  CHECK(after.doc["summary"]["recovery_segments"] == 1);  // the metadata log's, at every start
  CHECK(partition(after.doc, "kcat-lz4-0")["stray"] == false);
  // The salvage lost what the plan said, no more: one record an offset in this topic.
  CHECK(records("codec-none-0") == records_before - salvaged);
}

TEST_CASE("doctor --fix after a broker was killed: its files as Kafka's recovery left them, marked clean", "[doctor]") {
  // live-crash-after is live-crash-before after a 4.4.0 broker restarted on it, recovered it and
  // was stopped: kseg's recovery of the same files must leave what Kafka's left.
  kseg::test::CaseCopy c("live-crash-before");
  kseg::test::write_text(c.path(".lock"), "");
  auto fixed = run_tool(kKseg, {"doctor", "--fix", "--yes", c.dir()}, ".");
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  CHECK(fs::exists(c.path(".kafka_cleanshutdown")));
  CHECK(fixed.out.find(".kafka_cleanshutdown written: the broker recovers nothing") != std::string::npos);
  const std::string kafka = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/live-crash-after/flood-0/";
  for (const char* f : {"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex",
                        "00000000000000001333.snapshot"}) {
    INFO(f);
    CHECK(kseg::test::read_bytes(c.path("flood-0/") + f) == kseg::test::read_bytes(kafka + f));
  }
  CHECK(read_text(c.path("recovery-point-offset-checkpoint")) == "0\n1\nflood 0 1333\n");
  auto after = doctor({c.dir()});
  CHECK(after.exit_code == 0);
  CHECK(after.doc["summary"]["recovery_segments"] == 0);

  // Given one partition of a log dir, its recovery point moves, but the marker would speak for
  // partitions it did not read: none is written.
  kseg::test::CaseCopy one("live-crash-before");
  kseg::test::write_text(one.path(".lock"), "");
  auto part = run_tool(kKseg, {"doctor", "--fix", "--yes", one.path("flood-0")}, ".");
  INFO(part.out << part.err);
  CHECK(part.exit_code == 0);
  CHECK(part.out.find("no clean-shutdown marker") != std::string::npos);
  CHECK(!fs::exists(one.path(".kafka_cleanshutdown")));
  CHECK(read_text(one.path("recovery-point-offset-checkpoint")) == "0\n1\nflood 0 1333\n");
}

TEST_CASE("doctor --fix: a topic id other than the metadata log's is left to a person", "[doctor]") {
  // Most often an older incarnation of a topic deleted and made again: Kafka sets it aside on
  // purpose, and writing today's id would serve the old records as the new topic's.
  kseg::test::CaseCopy c("live-broker");
  kseg::test::write_text(c.path(".lock"), "");
  const std::string other = "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ";
  kseg::test::write_text(c.path("kcat-snappy-0/partition.metadata"), other);
  auto d = doctor({c.dir()});
  REQUIRE(d.doc["plan"].size() == 1);
  CHECK(d.doc["plan"][0]["by_hand"] == true);
  auto fixed = run_tool(kKseg, {"doctor", "--fix", "--yes", c.dir()}, ".");
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 1);
  CHECK(fixed.out.find("nothing for --fix to do") != std::string::npos);
  CHECK(read_text(c.path("kcat-snappy-0/partition.metadata")) == other);
}

TEST_CASE("doctor --fix: an unreadable root checkpoint and an empty lost+found set aside, an unreadable epoch checkpoint rebuilt", "[doctor]") {
  // Both stop the broker (its log dir goes offline); tests/kafka/doctor-broker.sh starts one on
  // what --fix leaves, and tests/kafka/reindex-oracle.sh holds the rebuilt file to Kafka's recovery.
  kseg::test::CaseCopy c("live-broker");
  kseg::test::write_text(c.path(".lock"), "");
  const std::string epochs = read_text(c.path("ledger-0/leader-epoch-checkpoint"));
  kseg::test::write_text(c.path("ledger-0/leader-epoch-checkpoint"), "0\n1\ngarbage\n");
  kseg::test::write_text(c.path("replication-offset-checkpoint"), "garbage\n");
  fs::create_directory(c.path("lost+found"));  // what mkfs leaves at a file system's root: empty
  fs::create_directory(c.path("old"));         // not empty: a person's to move
  kseg::test::write_text(c.path("old/notes"), "kept");
  auto d = doctor({c.dir()});
  CHECK(d.exit_code == 1);
  CHECK(d.doc["summary"]["broker_starts"] == false);
  std::vector<std::string> commands;
  for (const auto& step : d.doc["plan"]) commands.push_back(step["command"]);
  REQUIRE(commands.size() == 4);
  CHECK(commands[0] == "kseg reindex " + c.path("ledger-0"));
  CHECK(commands[1].starts_with("set aside " + c.path("lost+found")));
  CHECK(commands[2].starts_with("set aside " + c.path("replication-offset-checkpoint")));
  CHECK(d.doc["plan"][2]["loses"].get<std::string>().starts_with("the high watermarks"));
  CHECK(commands[3].starts_with("(by hand) move " + c.path("old")));
  CHECK(d.doc["plan"][3]["by_hand"] == true);
  fs::rename(c.path("old"), c.path("../old"));  // as the person does

  auto fixed = run_tool(kKseg, {"doctor", "--fix", "--yes", c.dir()}, ".");
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  auto after = doctor({c.dir()});
  CHECK(after.doc["summary"]["broker_starts"] == true);
  CHECK(after.doc["plan"].empty());
  // The broker's own file again (its entries all start a batch's epoch), and the checkpoint kept.
  CHECK(read_text(c.path("ledger-0/leader-epoch-checkpoint")) == epochs);
  CHECK(!fs::exists(c.path("replication-offset-checkpoint")));
  CHECK(!fs::exists(c.path("lost+found")));
  std::vector<std::string> kept;
  for (const auto& e : fs::recursive_directory_iterator(c.dir()))
    if (e.path().filename() == "log-dir.replication-offset-checkpoint") kept.push_back(read_text(e.path().string()));
  CHECK(kept == std::vector<std::string>{"garbage\n"});
}

TEST_CASE("doctor --format json: bytes of a damaged file that are not UTF-8 are replaced, not thrown on", "[doctor]") {
  // The fault campaign's find: a message quoting a garbled partition.metadata aborted the JSON dump.
  kseg::test::CaseCopy c("live-broker");
  const std::vector<uint8_t> garbled{'v', 'e', 'r', 's', 'i', 'o', 'n', ':', ' ', 0xff, 0x80, '\n', 0xb5, 0x13};
  kseg::test::write_bytes(c.path("ledger-0/partition.metadata"), garbled);
  auto d = doctor({c.dir()});  // parses and validates the document
  CHECK(d.exit_code == 1);
  bool found = false;
  for (const auto& f : partition(d.doc, "ledger-0")["findings"]) found = found || f["code"] == "partition_metadata.corrupt";
  CHECK(found);
}

namespace {

// The findings of `code` in partition `name` of a doctor report.
std::vector<nlohmann::json> found(const nlohmann::json& doc, const std::string& name, const std::string& code) {
  std::vector<nlohmann::json> out;
  for (const auto& f : partition(doc, name)["findings"])
    if (f["code"] == code) out.push_back(f);
  return out;
}

const std::string kFuture = "2100-01-01T00:00:00Z";  // past every retention and transaction timeout

}  // namespace

TEST_CASE("doctor: a hanging transaction, with kseg txn's verdict", "[doctor]") {
  // The last commit marker of ledger-0 cut away (as in the txn oracle, where Kafka's own
  // truncation makes the same file): the transaction stays open, its coordinator has ended it.
  kseg::test::CaseCopy c("live-broker");
  const std::string part = c.path("ledger-0");
  auto healthy = doctor({"--now", kFuture, c.dir()});
  CHECK(found(healthy.doc, "ledger-0", "txn.hanging").empty());
  auto end = nlohmann::json::parse(run_tool(kKseg, {"info", "--format", "json", part}, ".").out)["partitions"][0]["log_end_offset"].get<int64_t>();
  REQUIRE(run_tool(kKseg, {"truncate", "--no-backup", "--to-offset", std::to_string(end - 1), part}, ".").exit_code == 0);
  auto txn = run_tool(kKseg, {"txn", "--format", "json", "--now", kFuture, part}, ".");
  REQUIRE(txn.exit_code == 1);
  const auto open = nlohmann::json::parse(txn.out)["partitions"][0]["open_transactions"];
  REQUIRE(open.size() == 1);
  REQUIRE(open[0]["verdict"] == "hanging");
  auto d = doctor({"--now", kFuture, c.dir()});
  INFO(d.text);
  CHECK(d.exit_code == 1);
  const auto hanging = found(d.doc, "ledger-0", "txn.hanging");
  REQUIRE(hanging.size() == 1);
  CHECK(hanging[0]["severity"] == "error");
  CHECK(hanging[0]["kafka_handles"] == false);
  const std::string first = std::to_string(open[0]["first_offset"].get<int64_t>());
  CHECK(hanging[0]["message"].get<std::string>().find("open from offset " + first) != std::string::npos);
  CHECK(hanging[0]["message"].get<std::string>().find(open[0]["why"].get<std::string>()) != std::string::npos);
  REQUIRE(hanging[0]["fixes"].size() == 1);
  CHECK(hanging[0]["fixes"][0]["command"].get<std::string>().find(
            "abort --topic ledger --partition 0 --start-offset " + first) != std::string::npos);
  // By hand: --fix cannot end it, so the plan names it and --fix leaves it.
  CHECK(d.doc["plan"].size() == 1);
  CHECK(d.doc["plan"][0]["by_hand"] == true);
}

TEST_CASE("doctor: producer snapshots missing after a clean shutdown, or stale", "[doctor]") {
  kseg::test::CaseCopy c("live-broker");
  kseg::test::write_text(c.path(".lock"), "");
  // The clock just after the idempotent producers' last write: Kafka would still know them.
  auto txn = nlohmann::json::parse(run_tool(kKseg, {"txn", "--format", "json", "--now", "1", c.path("idempotent-0")}, ".").out);  // a clock before every write: none expired
  int64_t last = 0;
  for (const auto& e : txn["partitions"][0]["producers"]) last = std::max(last, e["timestamp_ms"].get<int64_t>());
  REQUIRE(last > 0);
  const std::string now = std::to_string(last + 60000);
  for (const char* p : {"idempotent-0", "codec-none-0"})
    for (const auto& e : fs::directory_iterator(c.path(p)))
      if (e.path().extension() == ".snapshot") fs::remove(e.path());
  // accounts-0: the snapshot at the log end gone, the one at its second segment's base left.
  std::vector<fs::path> snaps;
  for (const auto& e : fs::directory_iterator(c.path("accounts-0")))
    if (e.path().extension() == ".snapshot") snaps.push_back(e.path());
  std::sort(snaps.begin(), snaps.end());
  REQUIRE(snaps.size() == 2);
  REQUIRE(snaps[0].filename() == "00000000000000000696.snapshot");
  fs::remove(snaps[1]);
  auto d = doctor({"--now", now, c.dir()});
  INFO(d.text);
  CHECK(d.exit_code == 1);
  // Idempotent producers in the log: Kafka would forget them.
  const auto idem = found(d.doc, "idempotent-0", "snapshot.missing");
  REQUIRE(idem.size() == 1);
  CHECK(idem[0]["severity"] == "warning");
  CHECK(idem[0]["kafka_handles"] == false);
  CHECK(partition(d.doc, "idempotent-0")["action"] == "producer_state");
  // No producer in the log (a producer without idempotence): nothing to forget.
  const auto plain = found(d.doc, "codec-none-0", "snapshot.missing");
  REQUIRE(plain.size() == 1);
  CHECK(plain[0]["severity"] == "info");
  CHECK(plain[0]["kafka_handles"] == true);
  CHECK(partition(d.doc, "codec-none-0")["needs_fix"] == false);
  // A day later the same producers have expired: forgetting them loses nothing.
  auto later = doctor({"--now", std::to_string(last + 2 * 86400000LL), c.dir()});
  REQUIRE(found(later.doc, "idempotent-0", "snapshot.missing").size() == 1);
  CHECK(found(later.doc, "idempotent-0", "snapshot.missing")[0]["severity"] == "info");
  // An older snapshot at a segment base: Kafka loads it and replays the segment after it.
  const auto stale = found(d.doc, "accounts-0", "snapshot.stale");
  REQUIRE(stale.size() == 1);
  CHECK(stale[0]["severity"] == "info");
  CHECK(stale[0]["kafka"].get<std::string>().find("replays the log from offset 696 ") != std::string::npos);
  CHECK(found(d.doc, "accounts-0", "snapshot.missing").empty());
  // The plan writes the snapshot Kafka's recovery would, at the log end.
  auto fixed = run_tool(kKseg, {"doctor", "--now", now, "--fix", "--yes", c.dir()}, ".");
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  auto after = doctor({"--now", now, c.dir()});
  CHECK(found(after.doc, "idempotent-0", "snapshot.missing").empty());
  CHECK(partition(after.doc, "idempotent-0")["needs_fix"] == false);

  // A killed broker: recovering its active segment snapshots the log end, so nothing is replayed
  // besides what the recovery reads.
  kseg::test::CaseCopy crash("live-crash-before");
  auto k = doctor({crash.dir()});
  CHECK(found(k.doc, "flood-0", "snapshot.stale").empty());
  CHECK(found(k.doc, "flood-0", "snapshot.missing").empty());
}

TEST_CASE("doctor: retention due and a dirty compacted partition, priced as kseg truncate and compact price them", "[doctor]") {
  kseg::test::CaseCopy c("live-broker");
  auto now = doctor({c.dir()});
  CHECK(found(now.doc, "accounts-0", "cleaner.dirty").empty());  // the live cleaner left it clean
  // The cleaner's checkpoint lost: every byte of accounts-0 is dirty again (min.cleanable.dirty.ratio 0.01).
  kseg::test::write_text(c.path("cleaner-offset-checkpoint"), "0\n1\naccounts 0 0\n");
  auto d = doctor({"--now", kFuture, c.dir()});
  INFO(d.text);
  CHECK(d.exit_code == 0);  // Kafka handles both in service
  const auto dirty = found(d.doc, "accounts-0", "cleaner.dirty");
  REQUIRE(dirty.size() == 1);
  CHECK(dirty[0]["kafka_handles"] == true);
  auto compact = run_tool(kKseg, {"compact", "--dry-run", "--now", kFuture, c.path("accounts-0")}, ".");
  INFO(compact.out << compact.err);
  const auto freed = compact.out.substr(compact.out.find("; ") + 2);
  CHECK(dirty[0]["fixes"][0]["loses"].get<std::string>().find("frees " + freed.substr(0, freed.find(" would be freed"))) !=
        std::string::npos);
  // Past every retention.ms: each delete-policy partition's prefix, where kseg truncate --retention cuts.
  int due = 0;
  for (const auto& t : d.doc["targets"]) {
    if (t["type"] != "partition") continue;
    const std::string dir = t["dir"], name = fs::path(dir).filename();
    auto plan = run_tool(kKseg, {"truncate", "--dry-run", "--retention", "--now", kFuture, "--format", "json", dir}, ".");
    const auto p = nlohmann::json::parse(plan.out)["partitions"][0];
    const int64_t before = p["log_start_offset"]["before"], after = p["log_start_offset"]["after"];
    const auto r = found(d.doc, name, "retention.due");
    INFO(name);
    if (name == "accounts-0" || name.rfind("__", 0) == 0) {  // compacted: no retention
      CHECK(r.empty());
      continue;
    }
    CHECK(r.size() == (after > before ? 1u : 0u));
    if (r.empty()) continue;
    ++due;
    CHECK(r[0]["message"].get<std::string>().rfind(fmt::format("offsets {}..{} ", before, after - 1), 0) == 0);
  }
  CHECK(due >= 10);
}

// A wrong .index entry in a segment Kafka does not recover (a clean shutdown): doctor works out
// Kafka's fetch through it (tests/kafka/doctor-broker.sh has a consumer judge the same damage).
// A log start line past the log end: Kafka deletes every segment, and the plan leaves the line
// to a person (salvage would not stop the deletion).
TEST_CASE("doctor: a fetch through a wrong .index entry; a log start past the end", "[doctor]") {
  kseg::test::CaseCopy c("leader-epochs-retention");
  const std::string index = c.path("metrics-0/00000000000000000000.index");
  auto bytes = read_text(index);
  REQUIRE(bytes.size() >= 12 * 8);
  auto be32 = [&](size_t at) {
    return static_cast<int32_t>(static_cast<uint8_t>(bytes[at]) << 24 | static_cast<uint8_t>(bytes[at + 1]) << 16 |
                                static_cast<uint8_t>(bytes[at + 2]) << 8 | static_cast<uint8_t>(bytes[at + 3]));
  };
  const int32_t asked = be32(7 * 8), pointed = be32(10 * 8 + 4);
  bytes.replace(7 * 8 + 4, 4, bytes.substr(10 * 8 + 4, 4));  // entry 7 points at entry 10's batch
  kseg::test::write_text(index, bytes);
  // The base offset of the batch it now points at, as kseg-dump reads the segment.
  auto dumped = run_tool(kKseg, {"dump", "--format", "jsonl", c.path("metrics-0/00000000000000000000.log")}, ".");
  int64_t served = -1;
  std::istringstream in(dumped.out);
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line); j["type"] == "batch" && j["position"] == pointed) served = j["base_offset"];
  REQUIRE(served > asked);
  auto d = doctor({c.dir()});
  INFO(d.text);
  std::vector<nlohmann::json> fetches;
  for (const auto& f : partition(d.doc, "metrics-0")["findings"])
    if (f.contains("fetch")) fetches.push_back(f["fetch"]);
  REQUIRE_FALSE(fetches.empty());
  CHECK(fetches[0]["from"] == asked);
  CHECK(fetches[0]["served_from"] == served);
  CHECK(fetches[0]["entries"] == 1);
  CHECK(d.text.find(fmt::format("a fetch from offset {} is served from offset {} on", asked, served)) != std::string::npos);

  kseg::test::write_text(c.path("log-start-offset-checkpoint"), "0\n1\nmetrics 0 999999\n");
  d = doctor({c.dir()});
  INFO(d.text);
  const auto& s = partition(d.doc, "metrics-0")["startup"];
  CHECK(s["deletes_all"] == true);
  CHECK(s["log_end_after"] == 999999);
  std::vector<std::string> steps;
  for (const auto& p : d.doc["plan"]) steps.push_back(p["command"]);
  INFO(nlohmann::json(steps).dump());
  CHECK(std::none_of(steps.begin(), steps.end(), [](const std::string& x) { return x.find("--salvage") != std::string::npos; }));
  CHECK(std::any_of(steps.begin(), steps.end(), [](const std::string& x) {
    return x.find("(by hand)") == 0 && x.find("log-start-offset-checkpoint line (999999)") != std::string::npos;
  }));
}
