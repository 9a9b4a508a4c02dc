// SPDX-License-Identifier: Apache-2.0
// A test's private files: a temp dir of its own (TempDir), a log dir with
// copies of corpus partitions (testdata/kafka) and the root files a broker
// leaves (ScratchLogDir), a copy of a whole corpus case (CaseCopy), all
// removed when the object goes; and the one file reader and writer of the
// tests. Every test that writes a file starts here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kseg::test {

// What the log dir holds beside the partition: LogDirSetup().checkpoints(272).marker().
struct LogDirSetup {
  std::optional<int64_t> end;
  std::vector<std::string> other_lines;
  bool log_start_line = false;
  bool clean_shutdown = false;
  bool lock_file = true;
  // recovery-point- and replication-offset-checkpoint: `other` lines
  // ("<topic> <partition> <offset>"), then the partition's at `at`.
  LogDirSetup& checkpoints(int64_t at, std::vector<std::string> other = {}) {
    end = at;
    other_lines = std::move(other);
    return *this;
  }
  // log-start-offset-checkpoint with the partition at 0.
  LogDirSetup& log_start() { log_start_line = true; return *this; }
  // .kafka_cleanshutdown as a broker writes it.
  LogDirSetup& marker() { clean_shutdown = true; return *this; }
  // No .lock (every broker's log dir has one; the tests of the lock make it).
  LogDirSetup& no_lock() { lock_file = false; return *this; }
};

// An empty directory of this test's own under the system temp dir
// (kseg-test-<pid>-<n>-<tag>), removed with everything in it when it goes.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path root;
  std::string file(const std::string& name) const { return (root / name).string(); }
};

class ScratchLogDir : public TempDir {
 public:
  // testdata/kafka/<case_name>/<partition> copied into a new log dir.
  ScratchLogDir(const std::string& case_name, const std::string& partition, const LogDirSetup& setup = {});

  // Another corpus partition into the same log dir.
  void add(const std::string& case_name, const std::string& partition);
  std::filesystem::path part;  // the first partition's directory
  std::string dir() const { return part.string(); }
  std::string dir(const std::string& partition) const { return (root / partition).string(); }
};

// A copy of testdata/kafka/<name> (its log dirs and partitions, without the
// goldens: dump/ and case.json) at <temp dir>/<name>.
class CaseCopy : public TempDir {
 public:
  explicit CaseCopy(const std::string& name);
  std::string dir() const { return dir_; }
  std::string path(const std::string& rel) const { return dir_ + "/" + rel; }

 private:
  std::string dir_;
};

// A file's bytes (empty when it cannot be read).
std::vector<uint8_t> read_bytes(const std::filesystem::path& path);
// Writes `bytes` (or `text`) as the whole file.
void write_bytes(const std::filesystem::path& path, std::span<const uint8_t> bytes);
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace kseg::test
