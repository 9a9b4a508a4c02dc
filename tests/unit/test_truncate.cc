// SPDX-License-Identifier: Apache-2.0
// kseg-truncate: its command line, bad input, the refusals and the write
// protocol's edges. That each cut leaves what Kafka's own cut leaves, and
// that Kafka loads it, is tests/kafka/truncate-oracle.py (it needs a JVM).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "formats/producer_snapshot.h"
#include "formats/producer_state.h"
#include "lib/mapped_file.h"
#include "formats/log_entry.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "lib/units.h"
#include "tools/ops/write/safe_write.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;
using kseg::test::read_text;

namespace {
const std::string kTruncate = std::string(KSEG_BINARY_DIR) + "/kseg-truncate";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
const std::string kSeg0 = "00000000000000000000";

// A copy of a corpus partition with checkpoints (another partition's line
// first) and a clean-shutdown marker as a broker leaves them.
struct Scratch : kseg::test::ScratchLogDir {
  Scratch(const std::string& case_name, const std::string& partition, int64_t end)
      : ScratchLogDir(case_name, partition, kseg::test::LogDirSetup().checkpoints(end, {"other 3 17"}).marker()) {}
};

std::vector<std::string> tree(const fs::path& dir) { return kseg::test::tree_digest(dir.string()); }
}  // namespace

TEST_CASE("command line: one mode, numbers, --help and --version", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  const auto before = tree(s.root);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {s.dir()},                                              // no mode
           {"--to-offset", "10", "--log-start", "5", s.dir()},     // two modes
           {"--to-offset", "10", "--retention-ms", "5", s.dir()},  // a mode and retention
           {"--to-offset", "ten", s.dir()},                        // not a number
           {"--to-offset", "10"},                                  // no path
           {"--to-offset", "10", "--no-backup", "--backup-dir", "/tmp", s.dir()},
       }) {
    auto r = run_tool(kTruncate, args, ".");
    INFO(r.err);
    CHECK(r.exit_code == 2);
  }
  CHECK(tree(s.root) == before);
  CHECK(run_tool(kTruncate, {"--help"}, ".").exit_code == 0);
  auto v = run_tool(kTruncate, {"--version"}, ".");
  CHECK(v.exit_code == 0);
  CHECK(v.out.find("kseg-truncate ") == 0);
}

TEST_CASE("sizes, durations and times with units plan what their numbers plan", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  const auto before = tree(s.root);
  auto plan = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "--dry-run");
    args.push_back(s.dir());
    return run_tool(kTruncate, args, ".");
  };
  for (const auto& [units, number] : std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>{
           {{"--retention-bytes", "1K", "--now", "1700604800000"}, {"--retention-bytes", "1024", "--now", "1700604800000"}},
           {{"--retention-ms", "7d", "--now", "2023-11-21T22:13:20Z"}, {"--retention-ms", "604800000", "--now", "1700604800000"}},
           {{"--to-time", "2023-11-14T22:13:20.100Z"}, {"--to-time", "1700000000100"}},
       }) {
    const auto a = plan(units), b = plan(number);
    INFO(a.err);
    CHECK(a.exit_code == b.exit_code);
    CHECK(a.out == b.out);
    CHECK(a.err == b.err);
  }
  auto bad = plan({"--retention-bytes", "10X"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("'10X' is not a size") != std::string::npos);
  auto bad_time = plan({"--to-time", "yesterday"});
  CHECK(bad_time.exit_code == 2);
  CHECK(bad_time.err.find("'yesterday' is not a time") != std::string::npos);
  CHECK(tree(s.root) == before);
}

// The bytes of the regular files under `root`: what `du -b` counts, less
// the directories' own entries.
int64_t file_bytes(const fs::path& root) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) n += static_cast<int64_t>(e.file_size());
  return n;
}

TEST_CASE("the summary says what the disk holds now, and what the backup keeps", "[truncate]") {
  for (const bool backup : {true, false}) {
    Scratch s("v2-none", "orders-0", 272);
    const int64_t before = file_bytes(s.root);
    std::vector<std::string> args = {"--retention-bytes", "1K", "--now", "1700604800000", s.dir()};
    if (!backup) args.insert(args.begin(), "--no-backup");
    auto r = run_tool(kTruncate, args, ".");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const int64_t freed_now = before - file_bytes(s.root);
    if (backup) {
      // The originals stay on this disk: it holds the new files on top.
      CHECK(freed_now < 0);
      CHECK(r.out.find(fmt::format("the disk holds {} more now", kseg::human_bytes(-freed_now))) != std::string::npos);
      // Once the backup is removed, what the cut frees.
      for (const auto& e : fs::directory_iterator(s.part))
        if (e.path().filename().string().starts_with(".kseg-backup-")) fs::remove_all(e.path());
      const int64_t eventually = before - file_bytes(s.root);
      CHECK(eventually > 0);
      CHECK(r.out.find(fmt::format("frees {} once ", kseg::human_bytes(eventually))) != std::string::npos);
    } else {
      CHECK(freed_now > 0);
      CHECK(r.out.find(fmt::format("{} freed now (no backup)", kseg::human_bytes(freed_now))) != std::string::npos);
    }
  }
  // JSON: the exact bytes.
  Scratch s("v2-none", "orders-0", 272);
  const int64_t before = file_bytes(s.root);
  auto j = run_tool(kTruncate, {"--json", "--retention-bytes", "1K", "--now", "1700604800000", s.dir()}, ".");
  REQUIRE(j.exit_code == 0);
  const auto space = nlohmann::json::parse(j.out)["partitions"][0]["space"];
  CHECK(space["bytes_freed_now"].get<int64_t>() == before - file_bytes(s.root));
  CHECK(space["bytes_kept_in_backup"].get<int64_t>() > 0);
}

TEST_CASE("refusals change nothing: negative, above the high watermark, not a partition", "[truncate]") {
  Scratch s("v2-none", "orders-0", 200);  // high watermark 200 of 272
  const auto before = tree(s.root);
  auto negative = run_tool(kTruncate, {"--to-offset", "-1", s.dir()}, ".");
  CHECK(negative.exit_code == 2);
  auto hw = run_tool(kTruncate, {"--log-start", "201", s.dir()}, ".");
  CHECK(hw.exit_code == 2);
  CHECK(hw.err.find("above the high watermark (replication-offset-checkpoint) 200") != std::string::npos);
  auto file = run_tool(kTruncate, {"--to-offset", "5", s.dir() + "/" + kSeg0 + ".log"}, ".");
  CHECK(file.exit_code == 2);
  auto missing = run_tool(kTruncate, {"--to-offset", "5", s.dir() + "/nope"}, ".");
  CHECK(missing.exit_code == 3);
  fs::create_directories(s.root / "empty-log-dir");
  auto none = run_tool(kTruncate, {"--to-offset", "5", (s.root / "empty-log-dir").string()}, ".");
  CHECK(none.exit_code == 3);
  CHECK(run_tool(kTruncate, {"--allow-empty", "--to-offset", "5", (s.root / "empty-log-dir").string()}, ".").exit_code == 0);
  fs::remove(s.root / "empty-log-dir");
  CHECK(tree(s.root) == before);
  // Nothing to cut at the end itself: exit 0, nothing written.
  auto at_end = run_tool(kTruncate, {"--to-offset", "272", s.dir()}, ".");
  CHECK(at_end.exit_code == 0);
  CHECK(at_end.out.find("nothing to change") != std::string::npos);
  CHECK(tree(s.root) == before);
}

// Issue 44, defect 8: Kafka's truncateTo does nothing at or past the log end
// (it exited 2 here), so a cut that an interruption finished failed when run
// again.
TEST_CASE("--to-offset at or past the log end: nothing cut, exit 0 and a note; a cut run again changes nothing",
          "[truncate][issue44]") {
  Scratch s("v2-none", "orders-0", 272);
  const auto before = tree(s.root);
  for (const std::string offset : {"273", "9223372036854775807"}) {
    auto r = run_tool(kTruncate, {"--to-offset", offset, s.dir()}, ".");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err == "kseg-truncate: INFO note.nothing_to_cut " + s.dir() + ": offset " + offset +
                       " is at or past the log end 272: nothing to cut\n");
    CHECK(r.out.find("nothing to change") != std::string::npos);
    CHECK(tree(s.root) == before);
  }
  auto j = run_tool(kTruncate, {"--json", "--to-offset", "273", s.dir()}, ".");
  CHECK(j.exit_code == 0);
  const auto note = nlohmann::json::parse(j.out)["partitions"][0]["problems"][0];
  CHECK(note["code"] == "note.nothing_to_cut");
  CHECK(note["severity"] == "info");
  auto cut = run_tool(kTruncate, {"--no-backup", "--to-offset", "100", s.dir()}, ".");
  INFO(cut.err);
  REQUIRE(cut.exit_code == 0);
  const auto after = tree(s.root);
  auto again = run_tool(kTruncate, {"--no-backup", "--to-offset", "100", s.dir()}, ".");
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("offset 100 is at or past the log end 95: nothing to cut") != std::string::npos);
  CHECK(tree(s.root) == after);
  // Past the end, the leader epochs from the end on still go (truncateTo cuts the cache there too).
  std::ofstream(s.dir() + "/leader-epoch-checkpoint") << "0\n2\n0 0\n3 95\n";
  auto epochs = run_tool(kTruncate, {"--no-backup", "--to-offset", "100", s.dir()}, ".");
  CHECK(epochs.exit_code == 0);
  CHECK(read_text(s.dir() + "/leader-epoch-checkpoint") == "0\n1\n0 0\n");
}

TEST_CASE("a cut killed at each step of each plan, then run again: exit 0, as an uninterrupted cut leaves it",
          "[truncate][issue44]") {
  const std::vector<std::string> cmd = {"--no-backup", "--to-offset", "100"};
  std::vector<std::string> want;
  {
    Scratch s("v2-none", "orders-0", 272);
    std::vector<std::string> args = cmd;
    args.push_back(s.dir());
    REQUIRE(run_tool(kTruncate, args, ".").exit_code == 0);
    want = tree(s.root);
  }
  int crashed = 0;
  // The journal, the log start lowered first, the cut, the marker, the
  // journal's removal: up to five plans, each reaching a step once.
  for (const char* step : {"tmp-written", "removed", "rename-partial", "done"})
    for (int n = 1; n <= 5; ++n) {
      Scratch s("v2-none", "orders-0", 272);
      std::vector<std::string> args = {fmt::format("KSEG_CRASH_AT={}:{}", step, n), kTruncate};
      args.insert(args.end(), cmd.begin(), cmd.end());
      args.push_back(s.dir());
      auto crash = run_tool("/usr/bin/env", args, ".");
      INFO(step << ":" << n << "\n" << crash.err);
      REQUIRE((crash.exit_code == kseg::safe::kCrashExitCode || crash.exit_code == 0));
      if (crash.exit_code == kseg::safe::kCrashExitCode) ++crashed;
      auto rerun = run_tool(kTruncate, {args.begin() + 2, args.end()}, ".");
      INFO(rerun.out << rerun.err);
      CHECK(rerun.exit_code == 0);
      CHECK(tree(s.root) == want);
    }
  CHECK(crashed >= 10);
}

TEST_CASE("a corrupt batch before the cut point is refused; one after it is cut away", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  const std::string log = s.dir() + "/00000000000000000088.log";
  {  // flip a byte inside the first batch of segment 88 (its CRC no longer holds)
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(70);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x40);
    f.seekp(70);
    f.write(&c, 1);
  }
  const auto before = tree(s.root);
  auto r = run_tool(kTruncate, {"--to-offset", "120", s.dir()}, ".");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find(log + ":0: bad_crc in a batch before the cut point") != std::string::npos);
  CHECK(r.err.find("kseg-reindex --recover") != std::string::npos);
  CHECK(r.err.rfind("kseg-truncate: ERROR refuse.corrupt_before_cut " + log + ":0: ", 0) == 0);
  auto j = run_tool(kTruncate, {"--json", "--to-offset", "120", s.dir()}, ".");
  CHECK(j.exit_code == 1);
  const auto problem = nlohmann::json::parse(j.out)["partitions"][0]["problems"][0];
  CHECK(problem["code"] == "refuse.corrupt_before_cut");
  CHECK(problem["position"] == 0);
  CHECK(tree(s.root) == before);
  // A cut at that batch removes it with everything after: allowed.
  auto cut = run_tool(kTruncate, {"--no-backup", "--to-offset", "88", s.dir()}, ".");
  INFO(cut.err);
  CHECK(cut.exit_code == 0);
  CHECK(fs::file_size(log) == 0);
}

TEST_CASE("dry run: the plan as text and JSON, nothing written, exit 1", "[truncate]") {
  Scratch s("transactions", "ledger-0", 240);
  const auto before = tree(s.root);
  auto r = run_tool(kTruncate, {"--dry-run", "-v", "--to-offset", "150", s.dir()}, ".");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("00000000000000000178.log: remove:") != std::string::npos);
  CHECK(r.out.find("recovery-point-offset-checkpoint: write: ledger-0: 240 -> 91") != std::string::npos);
  CHECK(r.out.find("nothing written") != std::string::npos);
  auto j = run_tool(kTruncate, {"--dry-run", "--json", "--to-offset", "150", s.dir()}, ".");
  CHECK(j.exit_code == 1);
  const auto doc = nlohmann::json::parse(j.out);
  const auto& p = doc["partitions"][0];
  CHECK(p["status"] == "planned");
  CHECK(p["log_end_offset"]["before"] == 240);
  CHECK(p["log_end_offset"]["after"].get<int64_t>() <= 150);
  CHECK(p["bytes_freed"].get<int64_t>() > 0);
  CHECK_FALSE(p["actions"].empty());
  CHECK(tree(s.root) == before);
}

TEST_CASE("the marker: written back when there was one, none made when there was none; other lines kept",
          "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  const std::string marker = read_text(s.root / ".kafka_cleanshutdown");
  auto r = run_tool(kTruncate, {"--to-offset", "100", s.dir()}, ".");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(read_text(s.root / ".kafka_cleanshutdown") == marker);
  CHECK(read_text(s.root / "recovery-point-offset-checkpoint") == "0\n2\nother 3 17\norders 0 95\n");
  CHECK_FALSE(fs::exists(s.dir() + "/truncate.kseg-journal"));
  // The originals are in one backup directory, the marker and checkpoints with them.
  int backups = 0;
  for (const auto& e : fs::directory_iterator(s.dir()))
    if (e.path().filename().string().starts_with(".kseg-backup-")) {
      ++backups;
      CHECK(fs::exists(e.path() / "log-dir..kafka_cleanshutdown"));
      CHECK(fs::exists(e.path() / "log-dir.recovery-point-offset-checkpoint"));
      CHECK(read_text(e.path() / "log-dir.recovery-point-offset-checkpoint") == "0\n2\nother 3 17\norders 0 272\n");
    }
  CHECK(backups == 1);
  fs::remove(s.root / ".kafka_cleanshutdown");
  auto again = run_tool(kTruncate, {"--no-backup", "--to-offset", "50", s.dir()}, ".");
  CHECK(again.exit_code == 0);
  CHECK_FALSE(fs::exists(s.root / ".kafka_cleanshutdown"));
}

TEST_CASE("a crash leaves a journal: a re-run finishes the same cut, another cut is refused", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  const std::string marker = read_text(s.root / ".kafka_cleanshutdown");
  auto crash = run_tool("/usr/bin/env", {"KSEG_CRASH_AT=renamed:3", kTruncate, "--to-offset", "100", s.dir()}, ".");
  CHECK(crash.exit_code == kseg::safe::kCrashExitCode);
  CHECK(fs::exists(s.dir() + "/truncate.kseg-journal"));
  CHECK_FALSE(fs::exists(s.root / ".kafka_cleanshutdown"));  // an unclean shutdown, for the broker
  auto other = run_tool(kTruncate, {"--to-offset", "50", s.dir()}, ".");
  CHECK(other.exit_code == 1);
  CHECK(other.err.find("an interrupted `kseg-truncate --to-offset 100`") != std::string::npos);
  auto rerun = run_tool(kTruncate, {"--to-offset", "100", s.dir()}, ".");
  INFO(rerun.out << rerun.err);
  CHECK(rerun.exit_code == 0);
  CHECK(read_text(s.root / ".kafka_cleanshutdown") == marker);
  CHECK_FALSE(fs::exists(s.dir() + "/truncate.kseg-journal"));
  CHECK(read_text(s.root / "recovery-point-offset-checkpoint") == "0\n2\nother 3 17\norders 0 95\n");
}

TEST_CASE("the lock: refused while another run holds the log dir", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  auto held = kseg::safe::DirLock::acquire(s.root.string());
  REQUIRE(held.ok());
  const auto before = tree(s.root);
  auto r = run_tool(kTruncate, {"--to-offset", "100", s.dir()}, ".");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("is locked by another process") != std::string::npos);
  CHECK(tree(s.root) == before);
}

TEST_CASE("the cleaner's checkpoint is lowered to the new active segment, other lines kept", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  std::ofstream(s.root / "cleaner-offset-checkpoint") << "0\n2\norders 0 259\nother 3 9\n";
  auto r = run_tool(kTruncate, {"--no-backup", "--to-offset", "100", s.dir()}, ".");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(read_text(s.root / "cleaner-offset-checkpoint") == "0\n2\norders 0 88\nother 3 9\n");  // LogManager.truncateTo
}

TEST_CASE("a directory whose name is no <topic>-<partition> is refused", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  fs::rename(s.dir(), s.root / "copy");
  auto r = run_tool(kTruncate, {"--to-offset", "5", (s.root / "copy").string()}, ".");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a partition directory name") != std::string::npos);
  fs::rename(s.root / "copy", s.dir());
}

TEST_CASE("--topic and --partition pick partitions of a log dir", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  auto miss = run_tool(kTruncate, {"--dry-run", "--topic", "payments", "--to-offset", "5", s.root.string()}, ".");
  CHECK(miss.exit_code == 3);
  CHECK(miss.err.find("matching --topic/--partition") != std::string::npos);
  auto hit = run_tool(kTruncate, {"--dry-run", "--topic", "orders", "--partition", "0", "--to-offset", "5",
                                  s.root.string()}, ".");
  CHECK(hit.exit_code == 1);
  CHECK(hit.out.find("orders-0: dry run") != std::string::npos);
}

TEST_CASE("producer state replay: a data batch, then a marker of a bumped epoch", "[truncate][producer-state]") {
  // The transactional case: the snapshot at segment 91 is the replay of segment 0.
  const std::string dir = kCorpus + "transactions/ledger-0/";
  auto log = kseg::MappedFile::open(dir + kSeg0 + ".log");
  REQUIRE(log.ok());
  kseg::ProducerState state;
  kseg::EntryScanner scanner(log->bytes(), kseg::Position{0});
  while (auto e = scanner.next()) REQUIRE(state.apply(*e).ok());
  auto snap_file = kseg::MappedFile::open(dir + "00000000000000000091.snapshot");
  REQUIRE(snap_file.ok());
  auto snap = kseg::producer_snapshot::read(snap_file->bytes());
  REQUIRE(snap.ok());
  auto want = snap->entries;
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.producer_id < b.producer_id; });
  CHECK(state.entries() == want);
}

// Issue 47, item 3: a line a partition, the offsets a cut removes, then one for the run;
// the plan's steps under -v.
TEST_CASE("truncate's summary: the offsets removed per partition and for the run", "[truncate]") {
  Scratch s("v2-none", "orders-0", 272);
  fs::copy(s.part, s.root / "orders-1", fs::copy_options::recursive);
  kseg::test::write_text(s.root / "recovery-point-offset-checkpoint", "0\n2\norders 0 272\norders 1 272\n");
  kseg::test::write_text(s.root / "replication-offset-checkpoint", "0\n2\norders 0 272\norders 1 272\n");
  auto j = run_tool(kTruncate, {"--json", "--dry-run", "--to-offset", "100", s.root.string()}, ".");
  const auto plan = nlohmann::json::parse(j.out)["partitions"][0];
  const int64_t before = plan["log_end_offset"]["before"], after = plan["log_end_offset"]["after"];
  REQUIRE(after < before);
  auto r = run_tool(kTruncate, {"--dry-run", "--to-offset", "100", s.root.string()}, ".");
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3);  // two partitions, the total
  CHECK(r.out.find(fmt::format("removes offsets {}..{} ({})", after, before - 1, before - after)) != std::string::npos);
  CHECK(r.out.find(fmt::format("total: 2 partitions would be cut: {} offsets", 2 * (before - after))) !=
        std::string::npos);
  CHECK(r.out.find(": write: ") == std::string::npos);
  auto v = run_tool(kTruncate, {"--dry-run", "-v", "--to-offset", "100", s.root.string()}, ".");
  CHECK(v.out.find(": write: ") != std::string::npos);
  // Offsets below the log start were not readable: a cut below it removes the rest only.
  kseg::test::write_text(s.root / "log-start-offset-checkpoint", "0\n1\norders 0 150\n");
  auto below = run_tool(kTruncate, {"--dry-run", "--to-offset", "100", s.dir()}, ".");
  INFO(below.out << below.err);
  CHECK(below.out.find(fmt::format("removes offsets 150..{} ({})", before - 1, before - 150)) != std::string::npos);
}

// --retention (issue 47, item 1): each topic's own retention settings, from
// the log dir's KRaft metadata log, a topic or broker config file, Kafka's
// defaults, each said with its source; the plan is the one the explicit
// options give (those Kafka's own retention is checked against in the
// truncate oracle).
TEST_CASE("--retention applies the topic's retention settings, from where the broker has them", "[truncate]") {
  auto plan_of = [](const std::vector<std::string>& args) {
    auto r = run_tool(kTruncate, args, ".");
    INFO(r.err);
    REQUIRE(r.exit_code < 2);
    return nlohmann::json::parse(r.out)["partitions"][0];
  };
  auto without_settings = [](nlohmann::json j) {
    j.erase("settings");
    return j;
  };
  // A live broker's metadata log: topic retained has retention.ms=2500.
  kseg::test::CaseCopy live("live-broker");
  const auto kraft = plan_of({"--retention", "--dry-run", "--json", "--now", "1800000000000", live.path("retained-0")});
  CHECK(kraft["settings"]["retention.ms"]["value"] == "2500");
  CHECK(kraft["settings"]["retention.ms"]["source"].get<std::string>().starts_with("KRaft metadata"));
  CHECK(kraft["settings"]["retention.bytes"]["source"] == "default");
  CHECK(without_settings(kraft) == plan_of({"--retention-ms", "2500", "--retention-bytes", "-1", "--dry-run", "--json",
                                            "--now", "1800000000000", live.path("retained-0")}));
  // A broker config in hours (the server.properties form) and a topic config.
  Scratch s("v2-none", "orders-0", 272);
  kseg::test::TempDir files("retention");
  // A trailing blank, which java.util.Properties keeps and Kafka's ConfigDef trims.
  kseg::test::write_text(files.file("server.properties"), "log.retention.hours=1 \n");
  kseg::test::write_text(files.file("topic.properties"), "retention.bytes=1024\n");
  const std::string now = "1700003700000";  // an hour after the first batches, enough for some to go
  const auto hours = plan_of({"--retention", "--broker-config", files.file("server.properties"), "--dry-run", "--json",
                              "--now", now, s.dir()});
  CHECK(hours["settings"]["retention.ms"]["value"] == "3600000");
  CHECK(hours["settings"]["retention.ms"]["source"].get<std::string>().find("(log.retention.hours)") != std::string::npos);
  CHECK(without_settings(hours) == plan_of({"--retention-ms", "3600000", "--retention-bytes", "-1", "--dry-run", "--json",
                                            "--now", now, s.dir()}));
  const auto bytes = plan_of({"--retention", "--topic-config", files.file("topic.properties"), "--dry-run", "--json",
                              "--now", now, s.dir()});
  CHECK(bytes["status"] == "planned");
  CHECK(without_settings(bytes) == plan_of({"--retention-ms", "604800000", "--retention-bytes", "1024", "--dry-run",
                                            "--json", "--now", now, s.dir()}));
  // The command line wins; Kafka's defaults without any source are said on stderr.
  const auto cli = plan_of({"--retention", "--retention-ms", "-1", "--topic-config", files.file("topic.properties"),
                            "--dry-run", "--json", "--now", now, s.dir()});
  CHECK(cli["settings"]["retention.ms"]["source"] == "command line");
  auto warned = run_tool(kTruncate, {"--retention", "--dry-run", "--now", now, s.dir()}, ".");
  CHECK(warned.err.find("WARNING") != std::string::npos);
  CHECK(warned.out.find("settings: retention.bytes = -1 (default); retention.ms = 604800000 (default)") !=
        std::string::npos);
  CHECK(run_tool(kTruncate, {"--topic-config", files.file("topic.properties"), "--to-offset", "1", s.dir()}, ".")
            .exit_code == 2);  // the files go with --retention
  kseg::test::write_text(files.file("bad.properties"), "log.retention.hours=1h\n");
  auto bad = run_tool(kTruncate, {"--retention", "--broker-config", files.file("bad.properties"), "--dry-run", s.dir()}, ".");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("log.retention.hours") != std::string::npos);
}
