// What kseg-verify found in one partition (or one standalone file): the
// problems, in the one model of common/problem.h, and what was read of each
// file. Checks report through Findings; nothing prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/types.h"
#include "tools/ops/common/problem.h"

namespace kseg {

// What was read of one file.
struct FileResult {
  std::string file;
  std::string kind;        // log, index, timeindex, txnindex, snapshot, checkpoint, ...
  int64_t size_bytes = 0;
  int64_t checked_bytes = 0;
  int64_t entries = 0;     // batches, index entries, snapshot entries, lines
};

class Findings {
 public:
  // Adds a problem with the code's default severity; `position` is nullopt
  // where none applies (a missing file, a whole-file property).
  void add(Code code, const std::string& file, std::optional<Position> position, std::string message,
           std::string expected = {}, std::string found = {});
  void add(Severity s, Code code, const std::string& file, std::optional<Position> position, std::string message,
           std::string expected = {}, std::string found = {});
  FileResult& file(const std::string& path, const char* kind);
  void io_error(const std::string& path, const std::string& what) { io_errors.push_back(path + ": " + what); }

  std::vector<Problem> problems;
  std::vector<FileResult> files;
  std::vector<std::string> io_errors;
};

}  // namespace kseg
