// SPDX-License-Identifier: Apache-2.0
// The progress line of the writing tools counts the bytes of the segments
// they read (issue 47, item 7), so a single large partition shows its
// progress: checked in-process with stderr captured, the line drawn from
// the first update.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include <catch2/catch.hpp>

#include "lib/units.h"
#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/compact/compact.h"
#include "tools/ops/reindex/reindex.h"

namespace fs = std::filesystem;

namespace {

// What `run` writes on stderr (fd 2).
template <class Fn>
std::string stderr_of(const kseg::test::TempDir& tmp, Fn&& run) {
  const std::string file = tmp.file("stderr");
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 2);
  ::close(fd);
  run();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  return kseg::test::read_text(file);
}

int64_t log_bytes(const std::string& dir) {
  int64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log") n += static_cast<int64_t>(e.file_size());
  return n;
}

}  // namespace

TEST_CASE("reindex and compact draw a progress line in bytes for one partition", "[progress]") {
  kseg::Progress::draw_at_once();
  SECTION("reindex: one pass over the partition's segments") {
    kseg::test::CaseCopy copy("leader-epochs-retention");
    const std::string dir = copy.path("metrics-0");
    kseg::ReindexOptions o;
    o.paths = {dir};
    o.dry_run = true;
    o.progress = true;
    kseg::Sink out, err;
    const std::string line = stderr_of(copy, [&] { kseg::run_reindex(o, out, err); });
    INFO(line);
    CHECK(line.find("\rkseg-reindex: ") != std::string::npos);
    // The last line drawn names the whole: every .log byte, once.
    CHECK(line.find(" of " + kseg::human_bytes(log_bytes(dir)) + " (") != std::string::npos);
  }
  SECTION("compact: the validating and the cleaning pass") {
    kseg::test::CaseCopy copy("compacted");
    std::string dir;
    for (const auto& e : fs::directory_iterator(copy.dir()))
      if (e.is_directory() && e.path().filename() != "dump") dir = e.path().string();
    REQUIRE(!dir.empty());
    kseg::CompactOptions o;
    o.paths = {dir};
    o.dry_run = true;
    o.progress = true;
    o.force = true;
    kseg::Sink out, err;
    const std::string line = stderr_of(copy, [&] { kseg::run_compact(o, out, err); });
    INFO(line << err.contents());
    CHECK(line.find("\rkseg-compact: ") != std::string::npos);
    // Both passes over every segment but the active one (never cleaned).
    std::string last;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".log" && e.path().string() > last) last = e.path().string();
    const int64_t cleanable = log_bytes(dir) - static_cast<int64_t>(fs::file_size(last));
    CHECK(line.find(" of " + kseg::human_bytes(2 * cleanable) + " (") != std::string::npos);
    CHECK(line.find("kseg-compact: round 1: checking, mapping keys: ") != std::string::npos);
    // The last line, where the progress line was: what was read, the time, the rate and the peak memory.
    CHECK(line.find("\033[Kkseg-compact: " + kseg::human_bytes(2 * cleanable) + " in ") != std::string::npos);
    CHECK(line.find("/s), peak memory ") != std::string::npos);
    CHECK(line.back() == '\n');
  }
}
