// SPDX-License-Identifier: Apache-2.0
// Issue 44, defect 6: a file a tool needs and cannot read is an error naming
// the file and why, exit 3, nothing changed. Before, kseg-truncate took a
// partition whose only .log was a dangling link, a link loop, a FIFO, a
// directory or a link to /dev/zero for an empty log (indexes removed, a log
// start above the log end written, exit 0); reindex and truncate skipped
// such an extra segment; --to-offset ignored a .timeindex it could not read;
// info and txn said "0 segments". The listing (tools/ops/partition/
// partition_dir.cc, Unreadable::refuse) now refuses them for every tool.
// The tests run as root, which reads any file whatever its mode: the special
// kinds stand for "cannot read" here, and the one test of a mode-000 file
// runs the tool as nobody (setpriv), skipped where that is not possible.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";
const std::string kSeg0 = "00000000000000000000";

// A copy of v2-none/orders-0 (log end 272) with the root files a broker
// leaves.
struct LogDir : kseg::test::ScratchLogDir {
  explicit LogDir(const std::string&) : ScratchLogDir("v2-none", "orders-0", kseg::test::LogDirSetup().checkpoints(272).marker()) {}
};

// Name and content of every regular file under `dir` (links not followed:
// a loop or a FIFO is neither read nor fatal), and what the rest are.
void snapshot_into(const fs::path& dir, const std::string& prefix, std::map<std::string, std::string>& out) {
  for (const auto& e : fs::directory_iterator(dir)) {
    std::error_code ec;
    const auto st = fs::symlink_status(e.path(), ec);
    const std::string name = prefix + e.path().filename().string();
    if (fs::is_regular_file(st)) out[name] = kseg::test::read_text(e.path().string());
    else out[name] = fmt::format("<type {}>", static_cast<int>(st.type()));
    if (fs::is_directory(st)) snapshot_into(e.path(), name + "/", out);
  }
}

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  snapshot_into(dir, "", out);
  return out;
}

struct Kind {
  const char* name;
  const char* reason;  // what the error says it is
  std::function<void(const fs::path&)> make;
};

std::vector<Kind> kinds() {
  return {
      {"dangling link", "not a regular file (a dangling symbolic link: No such file or directory)",
       [](const fs::path& p) { fs::create_symlink("/nonexistent/kseg-unreadable", p); }},
      {"link loop", "not a regular file (a symbolic link loop: Too many levels of symbolic links)",
       [](const fs::path& p) { fs::create_symlink(p.filename(), p); }},
      {"FIFO", "not a regular file (a FIFO)", [](const fs::path& p) { REQUIRE(::mkfifo(p.c_str(), 0644) == 0); }},
      {"directory", "not a regular file (a directory)", [](const fs::path& p) { fs::create_directory(p); }},
      {"/dev/zero", "not a regular file (a character device)",
       [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }},
  };
}

// Replaces `file` of the partition by `kind`.
void plant(const fs::path& file, const Kind& kind) {
  fs::remove(file);
  kind.make(file);
}

void check_refused(const kseg::test::ToolRun& r, const fs::path& file, const Kind& kind) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(file.string() + ": " + kind.reason) != std::string::npos);
}
}  // namespace

TEST_CASE("an unreadable only .log: every tool that needs it exits 3 naming it, nothing changed",
          "[issue44][unreadable]") {
  for (const Kind& kind : kinds()) {
    SECTION(kind.name) {
      LogDir d("only");
      // One segment left: 0 (offsets 0..87), its indexes and the state files.
      for (const auto& e : fs::directory_iterator(d.part))
        if (e.path().filename().string().starts_with("000") && !e.path().filename().string().starts_with(kSeg0))
          fs::remove(e.path());
      const fs::path log = d.part / (kSeg0 + ".log");
      plant(log, kind);
      const auto before = snapshot(d.root);
      const std::string p = d.part.string();
      for (const auto& args : std::vector<std::vector<std::string>>{
               {"kseg-truncate", "--log-start", "5", p},
               {"kseg-truncate", "--retention-bytes", "0", p},
               {"kseg-truncate", "--to-offset", "5", p},
               {"kseg-truncate", "--dry-run", "--full", "9", p},
               {"kseg-reindex", p},
               {"kseg-reindex", "--recover", p},
               {"kseg-reindex", "--dry-run", "--salvage", p},
               {"kseg-compact", "--config", "cleanup.policy=compact", p},
               {"kseg-info", p},
               {"kseg-txn", p},
           }) {
        INFO(kind.name << ": " << fmt::format("{}", fmt::join(args, " ")));
        check_refused(run_tool(kBin + args[0], {args.begin() + 1, args.end()}, d.root.string()), log, kind);
        CHECK(snapshot(d.root) == before);
      }
    }
  }
}

TEST_CASE("an unreadable segment that is not the last: truncate and reindex exit 3, nothing changed; verify reports it",
          "[issue44][unreadable]") {
  for (const Kind& kind : kinds()) {
    SECTION(kind.name) {
      LogDir d("extra");
      const fs::path log = d.part / "00000000000000000088.log";
      plant(log, kind);
      const auto before = snapshot(d.root);
      const std::string p = d.part.string();
      for (const auto& args : std::vector<std::vector<std::string>>{
               {"kseg-truncate", "--to-offset", "200", p},
               {"kseg-truncate", "--log-start", "259", p},
               {"kseg-reindex", "--recover", p},
               {"kseg-reindex", "--producer-state", p},
           }) {
        INFO(kind.name << ": " << fmt::format("{}", fmt::join(args, " ")));
        check_refused(run_tool(kBin + args[0], {args.begin() + 1, args.end()}, d.root.string()), log, kind);
        CHECK(snapshot(d.root) == before);
      }
      // The readers still list it: kseg-verify reports it, kseg-dump dumps another segment.
      auto v = run_tool(kBin + "kseg-verify", {"orders-0"}, d.root.string());
      INFO(v.out << v.err);
      CHECK(v.exit_code == 1);
      CHECK(v.out.find("ERROR dir.not_a_file orders-0/00000000000000000088.log: ") != std::string::npos);
      auto dump = run_tool(kBin + "kseg-dump", {"--files", "orders-0/00000000000000000171.log"}, d.root.string());
      INFO(dump.err);
      CHECK(dump.exit_code == 0);
    }
  }
}

TEST_CASE("an unreadable .timeindex of the segment a cut ends in: truncate --to-offset exits 3",
          "[issue44][unreadable]") {
  for (const Kind& kind : kinds()) {
    SECTION(kind.name) {
      LogDir d("timeindex");
      const fs::path tix = d.part / "00000000000000000088.timeindex";
      plant(tix, kind);
      const auto before = snapshot(d.root);
      check_refused(run_tool(kBin + "kseg-truncate", {"--to-offset", "120", d.part.string()}, d.root.string()), tix,
                    kind);
      CHECK(snapshot(d.root) == before);
    }
  }
}

TEST_CASE("a segment file its user may not read: Permission denied, exit 3 (run as nobody)", "[issue44][unreadable]") {
  if (::geteuid() != 0 || !fs::exists("/usr/bin/setpriv")) {
    WARN("skipped: needs root to run a tool as nobody with setpriv");
    return;
  }
  LogDir d("eacces");
  fs::permissions(d.root, fs::perms::all, fs::perm_options::add);  // nobody may list it and its partition
  fs::permissions(d.part, fs::perms::all, fs::perm_options::add);
  const fs::path tix = d.part / "00000000000000000088.timeindex";
  fs::permissions(tix, fs::perms::none, fs::perm_options::replace);
  const auto before = snapshot(d.root);
  // --dry-run: nobody may not write there; the plan alone used to skip the index (exit 1).
  auto r = run_tool("/usr/bin/setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups", kBin + "kseg-truncate",
                                         "--dry-run", "--to-offset", "120", d.part.string()},
                    d.root.string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(tix.string() + ": Permission denied") != std::string::npos);
  auto reindex = run_tool("/usr/bin/setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups", kBin + "kseg-reindex",
                                               "--dry-run", "--recover", d.part.string()},
                          d.root.string());
  INFO(reindex.out << reindex.err);
  CHECK(reindex.exit_code == 3);
  CHECK(reindex.err.find(tix.string() + ": Permission denied") != std::string::npos);
  CHECK(snapshot(d.root) == before);
}

// Issue 44, defect 9: a corrupt leader-epoch-checkpoint, partition.metadata
// or producer snapshot that a writer leaves as it is is named with its code
// (kseg-reindex and kseg-compact said nothing and exited 0). kseg-reindex now
// rebuilds a corrupt leader-epoch-checkpoint instead.
TEST_CASE("writers name the corrupt state files they leave as they are", "[issue44][unreadable]") {
  struct Damage {
    const char* file;
    const char* bytes;
    const char* code;
  };
  for (const Damage& d : {Damage{"leader-epoch-checkpoint", "0\n2\n5 100\n", "epoch.corrupt"},
                          Damage{"partition.metadata", "version: 0\ntopic_id: nonsense\n", "partition_metadata.corrupt"},
                          Damage{"00000000000000000088.snapshot", "not a snapshot", "snapshot.corrupt"}}) {
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"kseg-reindex"},
          std::vector<std::string>{"kseg-compact", "--dry-run", "--config", "cleanup.policy=compact"}}) {
      LogDir l(std::string("state-") + d.code);
      std::ofstream(l.part / d.file, std::ios::trunc) << d.bytes;
      std::vector<std::string> args(argv.begin() + 1, argv.end());
      args.push_back(l.part.string());
      const auto r = run_tool(kBin + argv[0], args, l.root.string());
      INFO(argv[0] << " with a corrupt " << d.file << ": " << r.err);
      CHECK(r.exit_code != 2);
      if (argv[0] == "kseg-reindex" && std::string(d.code) == "epoch.corrupt") {
        // kseg-reindex rebuilds it from the batches (tests/kafka/reindex-oracle.sh holds it to Kafka's recovery).
        std::ifstream in(l.part / d.file);
        const std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("epoch.corrupt") == std::string::npos);
        CHECK(now != d.bytes);
        CHECK(now.rfind("0\n", 0) == 0);
        continue;
      }
      CHECK(r.err.find(std::string("WARNING ") + d.code) != std::string::npos);
      CHECK(r.err.find("left as it is") != std::string::npos);
    }
  }
}
