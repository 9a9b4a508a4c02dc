// SPDX-License-Identifier: Apache-2.0
// kseg-dump prints a .log in runs of batches on several threads and writes
// the runs in file order (a run with much text writes it early, in turn):
// stdout, stderr and the exit code must be those of one thread printing the
// file whole, in text and in JSON, whatever the run size and text cap, on every Kafka-written
// segment and on damaged ones (aborts, gaps, torn tails).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/scratch.h"
#include "corrupt.h"
#include "tools/ops/dump/dump.h"
#include "tools/ops/common/sink.h"

namespace {

using namespace kseg;
namespace fs = std::filesystem;

struct Dumped {
  std::string out, err;
  int exit_code = -1;
};

Dumped dump(DumpOptions o, const std::vector<std::string>& files) {
  o.files = files;
  char *out_text = nullptr, *err_text = nullptr;
  size_t out_size = 0, err_size = 0;
  std::FILE* out_file = open_memstream(&out_text, &out_size);
  std::FILE* err_file = open_memstream(&err_text, &err_size);
  Dumped d;
  {
    Sink out(out_file), err(err_file);
    d.exit_code = run_dump(o, out, err);
  }
  std::fclose(out_file);
  std::fclose(err_file);
  d.out.assign(out_text, out_size);
  d.err.assign(err_text, err_size);
  std::free(out_text);
  std::free(err_text);
  return d;
}

// Returns the one-thread dump of the last mode for the caller's own checks.
Dumped same_in_runs(const std::vector<std::string>& file, DumpOptions o) {
  o.threads = 1;
  o.run_bytes = size_t{1} << 40;  // the whole file in one run
  const Dumped one = dump(o, file);
  for (unsigned threads : {1u, 2u, 3u})
    for (size_t run_bytes : {size_t{1}, size_t{700}, size_t{64} << 10})
    for (size_t text_cap : {size_t{4} << 20, size_t{1}, size_t{3000}}) {
      o.threads = threads;
      o.run_bytes = run_bytes;
      o.run_text_cap = text_cap;  // small: runs write their text early, in turn
      const Dumped many = dump(o, file);
      INFO(file.front() << " (" << file.size() << " files): " << threads << " threads, runs of " << run_bytes << " bytes, text cap " << text_cap
                << ", format " << static_cast<int>(o.format) << ", deep " << o.deep_iteration << ", print " << o.print_data_log);
      CHECK(many.exit_code == one.exit_code);
      CHECK(many.err == one.err);
      CHECK(many.out.size() == one.out.size());
      CHECK(many.out == one.out);
    }
  return one;
}

// Each mode in each output format; returns the text form's dump of the last.
Dumped same_in_runs_every_mode(const std::vector<std::string>& file, DumpOptions o = {}) {
  Dumped text;
  for (OutputFormat f : {OutputFormat::jsonl, OutputFormat::json, OutputFormat::text}) {
    DumpOptions m = o;
    m.format = f;
    same_in_runs(file, m);
    m.deep_iteration = true;
    same_in_runs(file, m);
    m.print_data_log = true;
    text = same_in_runs(file, m);
  }
  return text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("threads print every corpus segment as one thread does", "[dump]") {
  const auto root = fs::path(KSEG_SOURCE_DIR) / "testdata/kafka";
  size_t files = 0;
  for (const auto& f : fs::recursive_directory_iterator(root))
    if (f.path().extension() == ".log") {
      same_in_runs_every_mode({f.path().string()});
      ++files;
    }
  CHECK(files > 50);
}

TEST_CASE("threads print a damaged segment as one thread does", "[dump]") {
  // Twelve copies of two Kafka-written segments (as verify's thread test
  // builds its file): offsets restart at every copy, two copies carry a
  // broken CRC; the sections add a fault that stops the file.
  const corrupt::Buf none = corrupt::corpus_log("v2-none");
  const corrupt::Buf gzip = corrupt::corpus_log("v2-gzip");
  const auto bounds = corrupt::entry_bounds(corrupt::view(none));
  REQUIRE(bounds.size() > 3);
  corrupt::Buf file;
  std::vector<size_t> copy_at;
  for (int copy = 0; copy < 12; ++copy) {
    copy_at.push_back(file.size());
    const bool compressed = copy % 3 == 0;
    corrupt::Buf part = compressed ? gzip : none;
    if (!compressed && copy % 7 == 1) part[bounds[2] + v2::kCrcOffset] ^= 0x40;  // CRC mismatch
    file.insert(file.end(), part.begin(), part.end());
  }
  kseg::test::TempDir tmp("dump-threads");
  const fs::path dir = tmp.root;
  const std::string path = (dir / "00000000000000000000.log").string();
  auto write = [&](const corrupt::Buf& b) { kseg::test::write_bytes(path, b); };
  SECTION("offsets going back, CRC mismatches") {
    write(file);
    const Dumped one = same_in_runs_every_mode({path});
    CHECK(one.exit_code != 0);
    CHECK(count(one.err, "CRC-32C mismatch") == 2);
    CHECK(count(one.err, " is followed by 0") == 2);  // Kafka prints each pair once
  }
  SECTION("a record fault under a fixed CRC stops the file mid-way") {
    corrupt::Buf bad = file;
    const size_t at = copy_at[4] + bounds[1];  // in the fifth copy, uncompressed
    bad[at + v2::kRecordBatchOverhead] ^= 0x01;     // first record's length varint made negative
    corrupt::fix_crc(bad, at);
    write(bad);
    const Dumped one = same_in_runs_every_mode({path});
    CHECK(count(one.err, "kseg-dump: ") == 2);  // the second copy's CRC, the fault; nothing after it
    CHECK(count(one.err, "record size -68") == 1);
    const size_t last_batch = one.out.rfind("baseOffset: ");
    CHECK(one.out.find(fmt::format(" position: {} ", at), last_batch) != std::string::npos);
  }
  SECTION("a torn tail") {
    corrupt::Buf torn(file.begin(), file.end() - 30);
    write(torn);
    CHECK(count(same_in_runs_every_mode({path}).err, "torn tail") == 1);
  }
  SECTION("a bad size field mid-file") {
    corrupt::Buf bad = file;
    corrupt::set_be32(bad, copy_at[5] + kOffsetFieldBytes, 3);
    write(bad);
    same_in_runs_every_mode({path});
  }
  SECTION("two files, and --max-bytes cutting the first mid-batch") {
    write(file);
    const std::string second = (dir / "00000000000000000100.log").string();
    fs::copy_file(corrupt::corpus_log_path("v2-none"), second);
    same_in_runs_every_mode({path, second});
    DumpOptions cut;
    cut.max_bytes = static_cast<int32_t>(copy_at[6] + 100);
    same_in_runs_every_mode({path, second}, cut);
  }
}
