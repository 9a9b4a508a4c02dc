// A private log dir for a test: copies of corpus partitions (testdata/kafka)
// and the root files a broker leaves, under the system temp dir, removed
// when the object goes. Every test that changes a partition starts here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
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

class ScratchLogDir {
 public:
  // testdata/kafka/<case_name>/<partition> copied into a new log dir.
  ScratchLogDir(const std::string& case_name, const std::string& partition, const LogDirSetup& setup = {});
  ~ScratchLogDir();
  ScratchLogDir(const ScratchLogDir&) = delete;
  ScratchLogDir& operator=(const ScratchLogDir&) = delete;

  // Another corpus partition into the same log dir.
  void add(const std::string& case_name, const std::string& partition);
  std::filesystem::path root;  // the log dir
  std::filesystem::path part;  // the first partition's directory
  std::string dir() const { return part.string(); }
  std::string dir(const std::string& partition) const { return (root / partition).string(); }
  std::string file(const std::string& name) const { return (root / name).string(); }
};

// A file's bytes (empty when it cannot be read).
std::vector<uint8_t> read_bytes(const std::filesystem::path& path);
// Writes `text` as the whole file.
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace kseg::test
