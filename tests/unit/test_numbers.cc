// SPDX-License-Identifier: Apache-2.0
// Issue 44: numbers as Kafka reads them (decimal, leading zeros meaning
// decimal, no hex or octal, not empty, within range) in every tool's options
// and in config files; the one config-file reader and its refusals; no crash
// on an .index entry with a negative position.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/support/dirs.h"
#include "formats/properties.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/reindex/reindex.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
const std::string kSeg0 = "00000000000000000000";

// A copy of v2-none/orders-0 (offsets 0..271 in segments at 0, 88, 171
// and 259), its checkpoints and a .lock.
struct LogDir : kseg::test::ScratchLogDir {
  LogDir() : ScratchLogDir("v2-none", "orders-0", kseg::test::LogDirSetup().checkpoints(272)) {}
};

std::vector<std::string> tree(const fs::path& dir) { return kseg::test::tree_digest(dir.string()); }

std::string fill(const std::string& arg, const LogDir& d) {
  if (arg == "P") return d.dir();
  if (arg == "ROOT") return d.root.string();
  return arg;
}

struct Row {
  const char* tool;
  std::vector<std::string> args;  // P: the partition, ROOT: the log dir
  const char* says;               // in stderr
};
}  // namespace

TEST_CASE("every tool refuses a number it would misread, with the option, the value and the range",
          "[issue44][truncate][reindex][compact][cli]") {
  LogDir d;
  const auto before = tree(d.root);
  const std::string any = "is not a decimal whole number";
  const std::vector<Row> rows = {
      {"truncate", {"--to-offset", "", "P"}, "--to-offset: '' is not a decimal whole number (the value is empty)"},
      {"truncate", {"--to-offset", "0x10", "P"}, "--to-offset: '0x10' is not a decimal whole number"},
      {"truncate", {"--to-offset", "1e2", "P"}, "--to-offset: '1e2' is not a decimal whole number"},
      {"truncate", {"--to-offset", " 5", "P"}, "--to-offset: ' 5' is not a decimal whole number"},
      {"truncate", {"--to-offset", "-5", "P"}, "--to-offset: -5 is out of range: give a decimal whole number from 0 to 9223372036854775807"},
      {"truncate", {"--to-offset", "99999999999999999999", "P"}, "99999999999999999999 is out of range"},
      {"truncate", {"--to-time", "", "P"}, "--to-time: '' is not a time: give epoch ms or ISO 8601"},
      {"truncate", {"--to-time", "-1", "P"}, "--to-time: -1 is out of range: give epoch milliseconds from 0 to 9223372036854775807"},
      {"truncate", {"--to-time", "2026-13-01", "P"}, "--to-time: '2026-13-01' is not a time"},
      {"truncate", {"--log-start", "-1", "P"}, "--log-start: -1 is out of range"},
      {"truncate", {"--full", "", "P"}, "--full: '' is not a decimal whole number"},
      {"truncate", {"--full", "9223372036854775807", "P"}, "from 0 to 9223372034707292159"},
      {"truncate", {"--retention-ms", "", "P"}, "--retention-ms: '' is not a duration: give ms, or a number with ms, s, m, h, d or w (the value is empty)"},
      {"truncate", {"--retention-ms", "7y", "P"}, "--retention-ms: '7y' is not a duration"},
      {"truncate", {"--retention-bytes", "", "P"}, "--retention-bytes: '' is not a size"},
      {"truncate", {"--retention-bytes", "0x10", "P"}, "--retention-bytes: '0x10' is not a size"},
      {"truncate", {"--retention-ms", "-2", "P"}, "give milliseconds from -1 to 9223372036854775807"},
      {"truncate", {"--retention-ms", "5", "--now", "-1", "P"}, "--now: -1 is out of range"},
      {"truncate", {"--partition", "-1", "--to-offset", "5", "ROOT"}, "--partition: -1 is out of range: give a decimal whole number from 0 to 2147483647"},
      {"truncate", {"--topic", "", "--to-offset", "5", "ROOT"}, "--topic: the value is empty"},
      {"truncate", {"--topic", "orders/0", "--to-offset", "5", "ROOT"}, "'orders/0' is not a topic name"},
      {"truncate", {"--backup-dir", "", "--to-offset", "5", "P"}, "--backup-dir: the value is empty"},
      {"reindex", {"--segment-index-bytes", "-8", "P"}, "--segment-index-bytes: -8 is out of range: give bytes from 4 to 2147483647"},
      {"reindex", {"--index-interval-bytes", "-1", "P"}, "--index-interval-bytes: -1 is out of range: give bytes from 0 to 2147483647"},
      {"reindex", {"--index-interval-bytes", "0x100", "P"}, "'0x100' is not a size"},
      {"reindex", {"--threads", "0", "P"}, "--threads: 0 is out of range: give a decimal whole number from 1 to 2147483647"},
      {"reindex", {"--threads", "-1", "P"}, "--threads: -1 is out of range"},
      {"reindex", {"--producer-id-expiration-ms", "0", "P"}, "from 1 to 2147483647"},
      {"reindex", {"--now", "", "P"}, "--now: '' is not a time"},
      {"reindex", {"--topic-config", "", "P"}, "--topic-config: the value is empty"},
      {"compact", {"--segment-bytes", "1", "P"}, "segment.bytes = '1' (command line): 1 is out of range: give a decimal whole number from 1048576 to 2147483647"},
      {"compact", {"--segment-bytes", "", "P"}, "segment.bytes = '' (command line): '' is not a decimal whole number"},
      {"compact", {"--delete-retention-ms", "-1", "P"}, "delete.retention.ms = '-1' (command line): -1 is out of range: give a decimal whole number from 0"},
      {"compact", {"--offset-map-bytes", "0x100000", "P"}, any.c_str()},
      {"compact", {"--config", "index.interval.bytes=010x", "P"}, "'010x' is not a decimal whole number"},
      {"compact", {"--partition", "-1", "ROOT"}, "--partition: -1 is out of range"},
      {"compact", {"--topic", "", "ROOT"}, "--topic: the value is empty"},
      {"compact", {"--rounds", "0", "P"}, "--rounds: 0 is out of range: give a decimal whole number from 1"},
      {"compact", {"--now", "0x10", "P"}, "--now: '0x10' is not a time"},
      {"compact", {"--topic-config", "", "P"}, "--topic-config: the value is empty"},
      {"verify", {"--threads", "0", "P"}, "--threads: 0 is out of range"},
      {"verify", {"--max-bytes", "0", "P"}, "--max-bytes: 0 is out of range: give bytes from 1"},
      {"verify", {"--max-problems", "0x10", "P"}, "--max-problems: '0x10' is not a decimal whole number"},
      {"dump", {"--threads", "-1", "P"}, "--threads: -1 is out of range"},
      {"dump", {"--from-offset", "-1", "P"}, "--from-offset: -1 is out of range"},
      {"dump", {"--to-offset", "", "P"}, "--to-offset: '' is not a decimal whole number"},
      {"dump", {"--from-time", "", "P"}, "--from-time: the value is empty"},
      {"dump", {"--max-bytes", "0x10", "P"}, "--max-bytes: '0x10' is not a decimal whole number"},
      {"info", {"--topic", "", "ROOT"}, "--topic: the value is empty"},
      {"info", {"--max-decompressed-bytes", "0", "P"}, "from 1 to 9223372036854775807"},
      {"txn", {"--max-aborted", "-1", "P"}, "--max-aborted: -1 is out of range"},
      {"txn", {"--producer-id-expiration-ms", "", "P"}, "'' is not a duration"},
      {"txn", {"--topic", "..", "ROOT"}, "'..' is not a topic name"},
  };
  for (const Row& row : rows) {
    std::vector<std::string> args;
    std::string line = std::string("kseg-") + row.tool;
    for (const auto& a : row.args) {
      args.push_back(fill(a, d));
      line += " '" + a + "'";
    }
    const auto r = run_tool(kBin + "kseg-" + row.tool, args, ".");
    INFO(line << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(row.says) != std::string::npos);
  }
  CHECK(tree(d.root) == before);
}

TEST_CASE("an offset copied from a segment file name is decimal: --to-offset 00000000000000000171 cuts at 171",
          "[issue44][truncate]") {
  LogDir d;
  const std::string truncate = kBin + "kseg-truncate";
  const auto before = tree(d.root);
  // Leading zeros mean decimal: 0088 is 88 (CLI11 alone refused it as bad octal).
  const auto eighty_eight = run_tool(truncate, {"--dry-run", "--to-offset", "0088", d.dir()}, ".");
  CHECK(eighty_eight.exit_code == 1);
  CHECK(eighty_eight.out.find("log end 272 -> 88,") != std::string::npos);
  // An empty value is refused, never read as 0 (which emptied the partition).
  const auto empty = run_tool(truncate, {"--to-offset", "", d.dir()}, ".");
  CHECK(empty.exit_code == 2);
  CHECK(tree(d.root) == before);
  const auto r = run_tool(truncate, {"--no-backup", "--to-offset", "00000000000000000171", d.dir()}, ".");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("log end 272 -> 171,") != std::string::npos);  // was 120: read as octal 0171
  CHECK(fs::file_size(d.dir() + "/00000000000000000171.log") == 0);  // the segment at 171 is the empty active one
  CHECK(fs::file_size(d.dir() + "/00000000000000000088.log") ==
        fs::file_size(kCorpus + "v2-none/orders-0/00000000000000000088.log"));  // offsets 88..170 all kept
  CHECK_FALSE(fs::exists(d.dir() + "/00000000000000000259.log"));
}

TEST_CASE("an .index entry with a negative position: truncate drops it and cuts, no crash",
          "[issue44][truncate]") {
  LogDir d;
  const std::string truncate = kBin + "kseg-truncate";
  // relative offset 10, position -1000000 (0xfff0bdc0): the campaign's crasher.
  std::ofstream(d.dir() + "/" + kSeg0 + ".index", std::ios::binary | std::ios::trunc)
      << std::string("\0\0\0\012\377\360\275\300", 8);
  for (const char* mode : {"--to-offset", "--to-time"}) {
    const auto dry = run_tool(truncate, {"--dry-run", "-v", mode, mode == std::string("--to-offset") ? "50" : "0", d.dir()}, ".");
    INFO(mode << "\n" << dry.out << dry.err);
    CHECK(dry.exit_code == 1);  // SIGSEGV (139) before
    CHECK(dry.out.find("entry 0 and those after it dropped: index entry 0: position -1000000 is negative") !=
          std::string::npos);
  }
  const auto cut = run_tool(truncate, {"--no-backup", "--to-offset", "50", d.dir()}, ".");
  INFO(cut.out << cut.err);
  CHECK(cut.exit_code == 0);
  CHECK(fs::file_size(d.dir() + "/" + kSeg0 + ".index") == 0);  // no entry left that points outside the .log
  CHECK(fs::file_size(d.dir() + "/" + kSeg0 + ".log") > 0);
}

TEST_CASE("config files: one reader, decimal values within Kafka's ranges, unreadable means refused",
          "[issue44][reindex][compact]") {
  LogDir d;
  const auto cfg = d.file("topic.properties");
  const std::string reindex = kBin + "kseg-reindex", compact = kBin + "kseg-compact";
  SECTION("a value out of range names the key and the range") {
    std::ofstream(cfg) << "segment.index.bytes=-1\n";
    auto r = run_tool(reindex, {"--dry-run", "--topic-config", cfg, d.dir()}, ".");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("segment.index.bytes = '-1' (topic config " + cfg +
                     "): -1 is out of range: give a decimal whole number from 4 to 2147483647") !=
          std::string::npos);  // was "not a valid int: '-1'"
    std::ofstream(cfg) << "delete.retention.ms=-1\n";
    r = run_tool(compact, {"--dry-run", "--topic-config", cfg, d.dir()}, ".");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("delete.retention.ms = '-1' (topic config " + cfg + "): -1 is out of range") != std::string::npos);
    std::ofstream(cfg) << "index.interval.bytes=0x10\n";
    r = run_tool(compact, {"--dry-run", "--topic-config", cfg, d.dir()}, ".");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("'0x10' is not a decimal whole number") != std::string::npos);
  }
  SECTION("Java properties syntax, leading zeros decimal, the last of a repeated key") {
    std::ofstream(cfg) << "# topic\nindex.interval.bytes 0000256\nsegment.index.bytes: 99\nsegment.index.bytes=\\\n  016\n";
    kseg::recover::Config c;
    auto settings = kseg::TopicSettings::open({cfg, "", {}});
    REQUIRE(settings.ok());
    REQUIRE(kseg::index_settings(**settings, d.dir(), c).ok());
    CHECK(c.index_interval_bytes == 256);
    CHECK(c.segment_index_bytes == 16);
  }
  // (/dev/zero and a FIFO are read_file's test below: the old readers never
  // returned from them.)
  SECTION("a directory, a file over 1 MiB, a missing file: exit 3 naming the file and why, nothing changed") {
    const auto before = tree(d.root);
    fs::create_directories(d.file("conf.d"));
    {
      std::ofstream big(d.file("big.properties"));
      for (int i = 0; i < 40000; ++i) big << "# a comment line of some length\n";
    }
    for (const auto& [file, why] : std::vector<std::pair<std::string, std::string>>{
             {d.file("conf.d"), "is a directory"},
             {d.file("big.properties"), "larger than 1 MiB"},
             {d.file("missing.properties"), "No such file or directory"}}) {
      for (const auto& [tool, option] : std::vector<std::pair<std::string, std::string>>{
               {reindex, "--topic-config"}, {compact, "--topic-config"}, {compact, "--broker-config"}}) {
        const auto r = run_tool(tool, {option, file, d.dir()}, ".");  // not a dry run: it must stop before writing
        INFO(tool << " " << option << " " << file << "\n" << r.err);
        CHECK(r.exit_code == 3);  // the directory and the big file ran with Kafka's defaults, exit 0
        CHECK(r.err.find(option + " " + file + ": ") != std::string::npos);
        CHECK(r.err.find(why) != std::string::npos);
      }
    }
    fs::remove(d.file("conf.d"));
    fs::remove(d.file("big.properties"));
    CHECK(tree(d.root) == before);
  }
}

TEST_CASE("properties: parse_number and read_file", "[issue44][properties]") {
  using kseg::properties::parse_number;
  CHECK(parse_number("00000000000000000171", 0, INT64_MAX).value() == 171);
  CHECK(parse_number("0088", 0, INT64_MAX).value() == 88);
  CHECK(parse_number("-0", 0, 10).value() == 0);
  CHECK(parse_number("+7", 0, 10).value() == 7);  // Long.parseLong takes a plus sign
  CHECK(parse_number("-9223372036854775808", INT64_MIN, INT64_MAX).value() == INT64_MIN);
  for (const char* bad : {"", "-", "+", "0x10", "010x", "1e3", " 5", "5 ", "1_000", "٣"}) {
    const auto r = parse_number(bad, INT64_MIN, INT64_MAX);
    INFO(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == kseg::Errc::usage);
    CHECK(r.error().message.find("is not a decimal whole number") != std::string::npos);
  }
  const auto far = parse_number("9223372036854775808", INT64_MIN, INT64_MAX);
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message == "9223372036854775808 is out of range: give a decimal whole number from "
                               "-9223372036854775808 to 9223372036854775807");
  CHECK(parse_number("-1", 0, 2147483647).error().message ==
        "-1 is out of range: give a decimal whole number from 0 to 2147483647");

  kseg::test::TempDir tmp("properties");
  const fs::path dir = tmp.root;
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto f = kseg::properties::read_file(fifo);  // returns at once: never waits for a writer
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().code == kseg::Errc::io);
  CHECK(f.error().message == fifo + ": is a FIFO, not a regular file");
  const auto zero = kseg::properties::read_file("/dev/zero");  // never read: it has no end
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == kseg::Errc::io);
  CHECK(zero.error().message == "/dev/zero: is a character device, not a regular file");
  const auto here = kseg::properties::read_file(dir.string());
  REQUIRE_FALSE(here.ok());
  CHECK(here.error().message == dir.string() + ": is a directory");
  std::ofstream(dir / "ok.properties") << "a b\nc=d\ne:f\n";
  const auto ok = kseg::properties::read_file((dir / "ok.properties").string());
  REQUIRE(ok.ok());
  CHECK(*ok->get("a") == "b");
  CHECK(*ok->get("c") == "d");
  CHECK(*ok->get("e") == "f");
  if (::geteuid() != 0) {  // root reads anything
    std::ofstream(dir / "secret.properties") << "a=1\n";
    fs::permissions(dir / "secret.properties", fs::perms::none);
    const auto denied = kseg::properties::read_file((dir / "secret.properties").string());
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().message.find("Permission denied") != std::string::npos);
  }
}
