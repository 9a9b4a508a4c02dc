// SPDX-License-Identifier: Apache-2.0
// Issue 44, defect 1: a symlink planted at a name a writer creates (its
// .kseg-tmp files, the truncate journal, compaction's .cleaned files) must
// never be written through. Every writing mode runs on a copy with a link to
// a file outside the log dir at each such name, and on a copy without: the
// files outside stay as they were, no Kafka file becomes a link, and the
// partition ends as the run without links leaves it.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

struct Writer {
  std::string name;
  std::string case_name, partition;
  std::string tool;
  std::vector<std::string> args;                      // after the partition dir
  std::function<void(const fs::path& part)> prepare;  // damage that makes the mode write
  int64_t end = -1;  // the log end the root checkpoints name (-1: none written, as compact's tests)
  bool cleaned = false;  // plant compaction's .cleaned names too (they make the other writers refuse)
};

// A log dir with one corpus partition and the root files a broker leaves.
struct LogDir : kseg::test::ScratchLogDir {
  explicit LogDir(const Writer& w)
      : ScratchLogDir(w.case_name, w.partition,
                      w.end >= 0 ? kseg::test::LogDirSetup().checkpoints(w.end).log_start().marker() : kseg::test::LogDirSetup().marker()) {
    if (w.prepare) w.prepare(part);
  }
};

// The names a writer may create in the partition and at the log dir's root.
std::vector<fs::path> placements(const fs::path& part, bool cleaned) {
  std::set<fs::path> out;
  std::set<int64_t> bases = {0, 100, 120, 159, 229, 253, 500};
  for (const auto& e : fs::directory_iterator(part)) {
    out.insert(part / (e.path().filename().string() + ".kseg-tmp"));
    const std::string n = e.path().filename().string();
    if (n.size() > 20 && std::isdigit(static_cast<unsigned char>(n[0]))) bases.insert(std::stoll(n.substr(0, 20)));
  }
  for (int64_t b : bases)
    for (const char* k : {".log", ".index", ".timeindex", ".txnindex", ".snapshot"}) {
      out.insert(part / fmt::format("{:020d}{}.kseg-tmp", b, k));
      if (cleaned && std::string(k) != ".snapshot") out.insert(part / fmt::format("{:020d}{}.cleaned", b, k));
    }
  for (const char* n : {"leader-epoch-checkpoint.kseg-tmp", "partition.metadata.kseg-tmp", "truncate.kseg-journal.kseg-tmp"})
    out.insert(part / n);
  for (const auto& e : fs::directory_iterator(part.parent_path()))
    if (e.is_regular_file()) out.insert(part.parent_path() / (e.path().filename().string() + ".kseg-tmp"));
  for (const char* n : {"recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint",
                        "cleaner-offset-checkpoint"})  // written where there was none, too
    out.insert(part.parent_path() / (std::string(n) + ".kseg-tmp"));
  return {out.begin(), out.end()};
}

// Name -> content of the regular files (not links) at the top of `dir`,
// without kseg's own (backups, tmp) and without the planted names.
std::map<std::string, std::string> kafka_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_symlink() || !e.is_regular_file() || n.find("kseg") != std::string::npos || n == ".lock") continue;
    out[n] = kseg::test::read_text(e.path().string());
  }
  return out;
}

std::vector<Writer> writers() {
  auto drop = [](std::vector<std::string> suffixes) {
    return [suffixes](const fs::path& part) {
      std::vector<fs::path> gone;
      for (const auto& e : fs::directory_iterator(part))
        for (const auto& s : suffixes)
          if (e.path().extension() == s) gone.push_back(e.path());
      for (const auto& g : gone) fs::remove(g);
    };
  };
  auto zero_tail = [](const fs::path& part) {  // a torn tail for --recover to cut
    std::ofstream(part / "00000000000000000159.log", std::ios::app) << std::string(100, '\0');
  };
  const std::vector<std::string> compact_args = {"--now", "1700000000000", "--config", "cleanup.policy=compact"};
  constexpr int64_t kEnd = 253;  // v2-zstd/orders-0's log end
  return {
      {"truncate --to-offset", "v2-zstd", "orders-0", "kseg-truncate", {"--to-offset", "120"}, nullptr, kEnd},
      {"truncate --log-start", "v2-zstd", "orders-0", "kseg-truncate", {"--log-start", "200"}, nullptr, kEnd},
      {"truncate --full", "v2-zstd", "orders-0", "kseg-truncate", {"--full", "500"}, nullptr, kEnd},
      {"truncate --retention-ms", "v2-zstd", "orders-0", "kseg-truncate",
       {"--retention-ms", "1", "--now", "9999999999999"}, nullptr, kEnd},
      {"reindex", "v2-zstd", "orders-0", "kseg-reindex", {}, drop({".index", ".timeindex"}), kEnd},
      {"reindex --recover", "v2-zstd", "orders-0", "kseg-reindex", {"--recover"}, zero_tail, kEnd},
      {"reindex --producer-state", "v2-zstd", "orders-0", "kseg-reindex", {"--producer-state"}, drop({".snapshot"}),
       kEnd},
      {"compact", "compacted", "accounts-0", "kseg-compact", compact_args, nullptr, -1, true},
  };
}

}  // namespace

TEST_CASE("writers never write through a symlink planted at a name they create", "[issue44][symlink]") {
  kseg::test::TempDir tmp("symlink");
  const fs::path base = tmp.root;
  const fs::path outside = base / "outside";
  for (const Writer& w : writers()) {
    SECTION(w.name) {
      // The run without links: what the partition should end as.
      const LogDir clean_dir(w);
      const fs::path clean_root = clean_dir.root, clean = clean_dir.part;
      std::vector<std::string> args = {clean.string()};
      args.insert(args.end(), w.args.begin(), w.args.end());
      const auto want = run_tool(kBin + w.tool, args, clean_root.string());
      INFO(w.name << ": " << want.err);
      REQUIRE(want.exit_code == 0);
      REQUIRE(kafka_files(clean) != kafka_files(kCorpus + w.case_name + "/" + w.partition));  // it wrote something

      const LogDir planted_dir(w);
      const fs::path root = planted_dir.root, part = planted_dir.part;
      fs::remove_all(outside);
      fs::create_directories(outside);
      const auto names = placements(part, w.cleaned);
      for (size_t i = 0; i < names.size(); ++i) {
        const fs::path victim = outside / fmt::format("victim-{}", i);
        std::ofstream(victim) << "victim " << i << "\n";
        fs::create_symlink(victim, names[i]);
      }
      const auto outside_before = kseg::test::tree_digest(outside.string());
      args[0] = part.string();
      const auto got = run_tool(kBin + w.tool, args, root.string());
      INFO(got.err);
      CHECK(got.exit_code == want.exit_code);
      CHECK(kseg::test::tree_digest(outside.string()) == outside_before);
      // No link was renamed to a Kafka name: every link left is a planted one.
      const std::set<fs::path> planted(names.begin(), names.end());
      for (const fs::path& dir : {part, root})
        for (const auto& e : fs::directory_iterator(dir))
          if (e.is_symlink()) CHECK(planted.count(e.path()) == 1);
      CHECK(kafka_files(part) == kafka_files(clean));
      CHECK(kafka_files(root) == kafka_files(clean_root));
    }
  }
  // The truncate journal: a link there is not read as a journal or written through.
  SECTION("truncate journal") {
    Writer w{"", "v2-zstd", "orders-0", "kseg-truncate", {}, nullptr, 253};
    const LogDir journal_dir(w);
    const fs::path root = journal_dir.root, part = journal_dir.part;
    fs::remove_all(outside);
    fs::create_directories(outside);
    std::ofstream(outside / "victim") << "victim\n";
    fs::create_symlink(outside / "victim", part / "truncate.kseg-journal");
    const auto before = kseg::test::tree_digest(outside.string());
    const auto r = run_tool(kBin + "kseg-truncate", {part.string(), "--to-offset", "120"}, root.string());
    CHECK(r.exit_code != 0);  // refused: a journal it did not write
    CHECK(kseg::test::tree_digest(outside.string()) == before);
    CHECK(fs::is_symlink(part / "truncate.kseg-journal"));
  }
}
