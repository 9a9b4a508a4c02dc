// The problem model of kseg-verify: a catalogue of stable codes, each with
// its default severity, and the findings collected for one partition (or
// one standalone file). Checks report through Findings; nothing prints.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "lib/types.h"
#include "tools/ops/verify/verify.h"

namespace kseg {

struct CodeInfo {
  const char* code;      // e.g. "log.crc_mismatch": never renamed once released
  Severity severity;     // default severity
  const char* summary;   // one line, for --list-codes and the man page
};
// Every code kseg-verify can report, in documentation order.
std::span<const CodeInfo> problem_codes();
const CodeInfo* find_code(const std::string& code);

struct Problem {
  Severity severity = Severity::error;
  std::string code;
  std::string file;        // as the user named it (path joined from the argument)
  int64_t position = -1;   // byte position in `file`; -1 when none applies
  std::string message;
  std::string expected;    // empty when not applicable
  std::string found;
};

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
  // Adds a problem with the code's default severity.
  void add(const std::string& code, const std::string& file, Position position, std::string message,
           std::string expected = {}, std::string found = {});
  void add(Severity s, const std::string& code, const std::string& file, Position position, std::string message,
           std::string expected = {}, std::string found = {});
  FileResult& file(const std::string& path, const char* kind);
  void io_error(const std::string& path, const std::string& what) { io_errors.push_back(path + ": " + what); }

  std::vector<Problem> problems;
  std::vector<FileResult> files;
  std::vector<std::string> io_errors;
};

}  // namespace kseg
