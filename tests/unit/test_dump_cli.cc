// SPDX-License-Identifier: Apache-2.0
// kseg-dump's command line: exit codes, streams and the kseg front end.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

using kseg::test::run_tool;

namespace {
const std::string kDump = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
const std::string kKseg = std::string(KSEG_BINARY_DIR) + "/kseg";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
}  // namespace

TEST_CASE("exit 0 when every file reads clean", "[cli]") {
  auto r = run_tool(kDump, {"--deep-iteration", "orders-0"}, kCorpus + "v2-lz4");
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("Dumping orders-0/00000000000000000000.log\n", 0) == 0);
}

TEST_CASE("exit 1 with file, position, expected and found on damaged data", "[cli]") {
  auto crc = run_tool(kDump, {"--files", "orders-0/00000000000000000000.log"}, kCorpus + "crc-mismatch");
  CHECK(crc.exit_code == 1);
  CHECK(crc.err.find("kseg-dump: orders-0/00000000000000000000.log: position 4195: ") != std::string::npos);
  CHECK(crc.err.find("CRC-32C mismatch: stored 0x") != std::string::npos);
  CHECK(crc.err.find(", computed 0x") != std::string::npos);

  auto zero = run_tool(kDump, {"orders-0"}, kCorpus + "zero-tail");
  CHECK(zero.exit_code == 1);
  CHECK(zero.err.find("zero-filled tail") != std::string::npos);
  // It went on past the damaged segment to the files after it.
  CHECK(zero.out.find(".snapshot\n") != std::string::npos);
}

TEST_CASE("exit 2 on usage errors, with the reason on stderr", "[cli]") {
  CHECK(run_tool(kDump, {"--no-such-option"}, ".").exit_code == 2);
  auto none = run_tool(kDump, {}, ".");
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("nothing to dump") != std::string::npos);
  CHECK(run_tool(kDump, {"--value-decoder-class", "com.example.Nope", "x.log"}, ".").exit_code == 2);
  CHECK(run_tool(kKseg, {"frobnicate"}, ".").exit_code == 2);
}

TEST_CASE("exit 3 when a file cannot be read", "[cli]") {
  auto r = run_tool(kDump, {"--files", "no-such-dir/00000000000000000000.log"}, ".");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("no-such-dir/00000000000000000000.log") != std::string::npos);
}

TEST_CASE("help and version go to stdout and exit 0; kseg dump equals kseg-dump", "[cli]") {
  auto help = run_tool(kDump, {"--help"}, ".");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--print-data-log") != std::string::npos);
  auto version = run_tool(kDump, {"--version"}, ".");
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("kseg-dump ", 0) == 0);
  auto a = run_tool(kDump, {"--print-data-log", "orders-0"}, kCorpus + "v1-snappy");
  auto b = run_tool(kKseg, {"dump", "--print-data-log", "orders-0"}, kCorpus + "v1-snappy");
  CHECK(a.exit_code == 0);
  CHECK(a.out == b.out);
}

// Issue 20: the decompression cap was fixed at 256 MiB and undocumented.
TEST_CASE("--max-decompressed-bytes sets the cap, and the error names it", "[cli]") {
  auto small = run_tool(kDump, {"--deep-iteration", "--max-decompressed-bytes", "100", "orders-0"}, kCorpus + "v2-gzip");
  CHECK(small.exit_code == 1);
  CHECK(small.err.find("decompressed size exceeds the limit of 100 bytes (--max-decompressed-bytes)") !=
        std::string::npos);
  auto fits = run_tool(kDump, {"--deep-iteration", "--max-decompressed-bytes", "1000000", "orders-0"}, kCorpus + "v2-gzip");
  CHECK(fits.exit_code == 0);
  CHECK(run_tool(kDump, {"--max-decompressed-bytes", "0", "orders-0"}, kCorpus + "v2-gzip").exit_code == 2);
}

// Issue 20: an index entry that does not match the log was named only by
// Kafka's end-of-run summary (offsets, no position); kseg's line names the slot.
TEST_CASE("a mismatched .index entry is named with its byte position as well as in Kafka's summary", "[cli]") {
  namespace fs = std::filesystem;
  kseg::test::TempDir tmp("dump-ix");
  const fs::path dir = tmp.root;
  fs::copy(kCorpus + "v2-none/orders-0", dir / "orders-0", fs::copy_options::recursive);
  {
    // Entry 1 (bytes 8-15): relative offset 7 instead of 10, at the same position.
    std::fstream f(dir / "orders-0/00000000000000000000.index", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(11);
    f.put(7);
  }
  auto r = run_tool(kDump, {"orders-0/00000000000000000000.index"}, dir.string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("kseg-dump: orders-0/00000000000000000000.index: position 8: entry 1 maps offset 7") != std::string::npos);
  CHECK(r.err.find("Mismatches in :") != std::string::npos);  // Kafka's summary, still printed
}

// Issue 20: "no complete batch ... partial_tail" where the limit was what failed.
TEST_CASE("an index entry whose batch is larger than --max-message-size names the limit", "[cli]") {
  auto r = run_tool(kDump, {"--max-message-size", "100", "orders-0/00000000000000000000.index"}, kCorpus + "v2-none");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("the batch at log position 277 is 446 bytes, more than --max-message-size 100") != std::string::npos);
}
