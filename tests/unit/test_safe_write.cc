// SPDX-License-Identifier: Apache-2.0
// The write protocol's actions for the writers to come (truncate, compact):
// files at the log dir's root and a new file streamed by the operation
// (adopt), each under a crash at every step of apply().
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/write/safe_write.h"

namespace fs = std::filesystem;
using namespace kseg;
using safe::Action;

namespace {

const char* const kSteps[] = {"tmp-partial", "tmp-written", "backup-partial", "backup-done", "hidden",
                              "remove-partial", "removed", "rename-partial", "renamed", "done"};

std::string slurp(const fs::path& p) { return kseg::test::read_text(p); }
void put(const fs::path& p, const std::string& s) { kseg::test::write_text(p, s); }

const std::string kOldLog(5000, 'o'), kNewLog = std::string(3000, 'n') + std::string(3000, 'N');
const std::string kOldCheckpoint = "0\n1\norders 0 90\n", kNewCheckpoint = "0\n1\norders 0 42\n";
const std::string kOldStart = "0\n1\norders 0 7\n";

struct LogDir : kseg::test::TempDir {
  explicit LogDir(const std::string& tag) : TempDir("safe-write-" + tag) {
    fs::create_directories(root / "orders-0");
    put(part() / "00000000000000000000.log", kOldLog);
    put(part() / "00000000000000000000.index", "old index");
    put(root / "recovery-point-offset-checkpoint", kOldCheckpoint);
    put(root / "log-start-offset-checkpoint", kOldStart);
  }
  fs::path part() const { return root / "orders-0"; }
};

safe::Plan plan_for(const LogDir& d) {
  safe::Plan p;
  p.partition_dir = d.part().string();
  p.actions.push_back(Action::hide("00000000000000000000.index", "recover the segment after a crash"));
  p.actions.push_back(Action::adopt("00000000000000000000.log", "streamed by the operation"));
  p.actions.push_back(Action::write("recovery-point-offset-checkpoint",
                                    std::vector<uint8_t>(kNewCheckpoint.begin(), kNewCheckpoint.end()), "clamped")
                          .in_log_dir());
  p.actions.push_back(Action::remove("log-start-offset-checkpoint", "no longer needed").in_log_dir());
  return p;
}

// What the operation does: stream the new .log, then apply under the lock.
Result<std::string> run(const safe::Plan& p) {
  auto lock = safe::DirLock::acquire(fs::path(p.partition_dir).parent_path().string());
  if (!lock.ok()) return lock.error();
  auto tmp = safe::TmpFile::create(p, p.actions[1]);
  if (!tmp.ok()) return tmp.error();
  for (size_t at = 0; at < kNewLog.size(); at += 1000)  // in pieces, as a compaction writes
    KSEG_RETURN_IF_ERROR(tmp->write({reinterpret_cast<const uint8_t*>(kNewLog.data()) + at, 1000}));
  KSEG_RETURN_IF_ERROR(tmp->finish());
  return safe::apply(p, {false, true, "", ""}, *lock);
}

}  // namespace

TEST_CASE("apply: log-dir root files and an adopted streamed file", "[safe_write]") {
  LogDir d("plain");
  const auto p = plan_for(d);
  auto r = run(p);
  REQUIRE(r.ok());
  CHECK(slurp(d.part() / "00000000000000000000.log") == kNewLog);
  CHECK_FALSE(fs::exists(d.part() / "00000000000000000000.index"));  // the broker rebuilds it
  CHECK(slurp(d.root / "recovery-point-offset-checkpoint") == kNewCheckpoint);
  CHECK_FALSE(fs::exists(d.root / "log-start-offset-checkpoint"));
  // The originals are kept: root files under a prefix, beside the partition's.
  const fs::path backup(*r);
  CHECK(slurp(backup / "00000000000000000000.log") == kOldLog);
  CHECK(slurp(backup / "log-dir.recovery-point-offset-checkpoint") == kOldCheckpoint);
  CHECK(slurp(backup / "log-dir.log-start-offset-checkpoint") == kOldStart);
  for (const auto& e : fs::recursive_directory_iterator(d.root))
    CHECK(e.path().string().find(safe::kTmpSuffix) == std::string::npos);
}

TEST_CASE("apply refuses without the lock of the plan's log dir, and an adopt never written", "[safe_write]") {
  LogDir d("nolock"), other("other");
  auto wrong = safe::DirLock::acquire(other.root.string());
  REQUIRE(wrong.ok());
  const auto p = plan_for(d);
  auto r = safe::apply(p, {false, true, "", ""}, *wrong);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::internal);
  auto right = safe::DirLock::acquire(d.root.string());
  REQUIRE(right.ok());
  auto missing = safe::apply(p, {false, true, "", ""}, *right);  // TmpFile never written
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("was not written") != std::string::npos);
  CHECK(slurp(d.part() / "00000000000000000000.log") == kOldLog);
  CHECK(slurp(d.root / "recovery-point-offset-checkpoint") == kOldCheckpoint);
}

TEST_CASE("a crash at any step leaves each file old or new, and a re-run finishes", "[safe_write]") {
  int crashed = 0;
  for (const char* step : kSteps) {
    INFO("crash at " << step);
    LogDir d(step);
    const auto p = plan_for(d);
    const pid_t child = ::fork();
    if (child == 0) {
      ::setenv("KSEG_CRASH_AT", step, 1);
      auto r = run(p);
      ::_exit(r.ok() ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK((WEXITSTATUS(status) == safe::kCrashExitCode || WEXITSTATUS(status) == 0));
    if (WEXITSTATUS(status) == safe::kCrashExitCode) ++crashed;
    const std::string log = slurp(d.part() / "00000000000000000000.log");
    CHECK((log == kOldLog || log == kNewLog));
    const std::string cp = slurp(d.root / "recovery-point-offset-checkpoint");
    CHECK((cp == kOldCheckpoint || cp == kNewCheckpoint));
    if (fs::exists(d.root / "log-start-offset-checkpoint"))
      CHECK(slurp(d.root / "log-start-offset-checkpoint") == kOldStart);
    // A new .log in place means the index went first (Kafka recovers the segment).
    if (log == kNewLog) CHECK_FALSE(fs::exists(d.part() / "00000000000000000000.index"));
    REQUIRE(run(p).ok());
    CHECK(slurp(d.part() / "00000000000000000000.log") == kNewLog);
    CHECK(slurp(d.root / "recovery-point-offset-checkpoint") == kNewCheckpoint);
    CHECK_FALSE(fs::exists(d.root / "log-start-offset-checkpoint"));
  }
  CHECK(crashed == 10);  // every step is reached by this plan
}

namespace {

// No .kseg-tmp file anywhere under `root`.
bool no_tmp_left(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().string().ends_with(safe::kTmpSuffix)) return false;
  return true;
}

}  // namespace

// Issue 20: Ctrl-C used to end a writer silently and leave its .kseg-tmp
// files. The handlers remove them, say what was applied, and end by SIGINT;
// before the first replacement nothing changed, during the replacements each
// file is old or new, and a re-run finishes either way.
TEST_CASE("SIGINT while writing or replacing: tmp files removed, each file old or new, a re-run finishes",
          "[safe_write]") {
  for (const char* step : {"tmp-partial", "tmp-written", "backup-done", "hidden", "rename-partial"}) {
    INFO("SIGINT at " << step);
    LogDir d(std::string("sigint-") + step);
    const auto p = plan_for(d);
    const pid_t child = ::fork();
    if (child == 0) {
      safe::install_interrupt_cleanup("kseg-test");
      ::setenv("KSEG_CRASH_AT", step, 1);
      ::setenv("KSEG_CRASH_SIGNAL", "INT", 1);
      auto r = run(p);
      ::_exit(r.ok() ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGINT);
    CHECK(no_tmp_left(d.root));
    const std::string log = slurp(d.part() / "00000000000000000000.log");
    const bool replacing = std::string(step) == "hidden" || std::string(step) == "rename-partial";
    if (replacing) CHECK((log == kOldLog || log == kNewLog));
    else CHECK(log == kOldLog);
    if (!replacing) CHECK(slurp(d.part() / "00000000000000000000.index") == "old index");
    REQUIRE(run(p).ok());
    CHECK(slurp(d.part() / "00000000000000000000.log") == kNewLog);
    CHECK(slurp(d.root / "recovery-point-offset-checkpoint") == kNewCheckpoint);
  }
}

// A write that fails part-way (ENOSPC; here EFBIG under RLIMIT_FSIZE) leaves
// no tmp file and changes nothing.
TEST_CASE("a failed write of the new files leaves no tmp file and changes nothing", "[safe_write]") {
  LogDir d("efbig");
  const auto p = plan_for(d);
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {2500, 2500};  // the streamed .log is 6000 bytes
    ::setrlimit(RLIMIT_FSIZE, &lim);
    auto r = run(p);
    ::_exit(r.ok() ? 0 : r.error().message.find("File too large") != std::string::npos ? 7 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(no_tmp_left(d.root));
  CHECK(slurp(d.part() / "00000000000000000000.log") == kOldLog);
  CHECK(slurp(d.part() / "00000000000000000000.index") == "old index");
  CHECK(slurp(d.root / "recovery-point-offset-checkpoint") == kOldCheckpoint);
}

// fsync_together from many threads at once shares one pool: each call hears
// of its own files' failures (here a closed descriptor) and of no other call's.
TEST_CASE("fsync_together: concurrent calls each get their own files' results", "[safe_write]") {
  kseg::test::TempDir tmp("fsync-together");
  const fs::path dir = tmp.root;
  std::vector<int> fds;
  for (int i = 0; i < 20; ++i) {
    put(dir / fmt::format("f{}", i), "x");
    fds.push_back(::open((dir / fmt::format("f{}", i)).c_str(), O_RDONLY | O_CLOEXEC));
    REQUIRE(fds.back() >= 0);
  }
  CHECK(safe::fsync_together({}, {}).ok());
  constexpr int kCallers = 6, kCalls = 40;
  std::vector<int> wrong(kCallers, 0);
  {
    std::vector<std::jthread> callers;
    for (int c = 0; c < kCallers; ++c)
      callers.emplace_back([&, c] {
        for (int k = 0; k < kCalls; ++k) {
          // 1 to 20 files; every third call names a closed descriptor among them.
          std::vector<int> batch;
          std::vector<std::string> paths;
          const int n = 1 + (c * 7 + k * 3) % 20;
          for (int i = 0; i < n; ++i) {
            batch.push_back(fds[(i + k) % 20]);
            paths.push_back((dir / fmt::format("f{}", (i + k) % 20)).string());
          }
          const std::string missing = (dir / fmt::format("missing-{}-{}", c, k)).string();
          if (k % 3 == 0) {
            batch.insert(batch.begin() + n / 2, -1);
            paths.insert(paths.begin() + n / 2, missing);
          }
          const Status st = safe::fsync_together(batch, paths);
          const bool ok = k % 3 != 0;
          if (st.ok() != ok || (!ok && st.error().message.find(missing) == std::string::npos)) ++wrong[c];
        }
      });
  }
  for (int fd : fds) ::close(fd);
  for (int c = 0; c < kCallers; ++c) CHECK(wrong[c] == 0);
}
