// SPDX-License-Identifier: Apache-2.0
// What kseg-verify found in one partition (or one standalone file): the
// problems, in the one model of common/problem.h, and what was read of each
// file. Checks report through Findings; nothing prints.
#pragma once

#include <array>
#include <cstdint>
#include <map>
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

// Problems by severity (info, warning, error).
using Counts = std::array<int64_t, 3>;

class Findings {
 public:
  // At most this many problems of one code are kept per file
  // (--max-problems; 0: all); the rest are only counted, so memory and
  // output stay bounded however many problems a file has, and a rarer code
  // is never hidden behind a frequent one. Set once, before the run.
  static void set_max_per_file(size_t n);
  static size_t max_per_file();

  // Adds a problem with the code's default severity; `position` is nullopt
  // where none applies (a missing file, a whole-file property).
  void add(Code code, const std::string& file, std::optional<Position> position, std::string message,
           std::string expected = {}, std::string found = {});
  void add(Severity s, Code code, const std::string& file, std::optional<Position> position, std::string message,
           std::string expected = {}, std::string found = {});
  // Keeps `p`, or counts it as suppressed past the cap.
  void take(Problem p);
  // Moves every problem and count of `from` into this one, in order.
  void take_all(Findings& from);
  FileResult& file(const std::string& path, const char* kind);
  void io_error(const std::string& path, const std::string& what) { io_errors.push_back(path + ": " + what); }
  bool empty() const { return problems.empty() && suppressed.empty() && files.empty() && io_errors.empty(); }

  std::vector<Problem> problems;
  std::vector<FileResult> files;
  std::vector<std::string> io_errors;
  std::map<std::string, Counts> suppressed;  // by file: problems past the cap
  bool capped = true;  // false: keep everything (the few findings that later checks rely on)

 private:
  std::map<std::pair<std::string, Code>, size_t> kept_;  // by file and code
};

}  // namespace kseg
