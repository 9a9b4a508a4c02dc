// SPDX-License-Identifier: Apache-2.0
// kseg-verify's output: the human report or the JSON report object (schema
// formats/kseg-verify.schema.json), and the exit code they imply. Written as
// the targets' results come, so a log dir of any size holds one window of
// results, not all of them.
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_partition.h"

namespace kseg {

class Sink;

// Text that must come after text not yet written (the JSON report's
// problems follow its targets): kept in memory up to 1 MiB, then in an
// unnamed temporary file, so memory does not grow with the problems found.
class Spill {
 public:
  Spill() = default;
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;
  ~Spill();
  void append(std::string_view s);
  bool empty() const { return empty_; }
  int error() const { return error_; }
  // Writes everything appended, in order; false (errno says why) if the
  // temporary file could not be written or read back.
  bool copy_to(Sink& out);

 private:
  std::string buf_;
  std::FILE* file_ = nullptr;
  bool no_file_ = false;  // none could be made: the rest stays in memory
  int error_ = 0;          // errno of a failed write or read back
  bool empty_ = true;
};

class VerifyReport {
 public:
  // `io_errors`: paths that could not be expanded into targets.
  VerifyReport(const VerifyOptions& opts, Sink& out, Sink& err, const std::vector<std::string>& io_errors);
  // A target's result, in the targets' order.
  void add(const TargetResult& r);
  // Ends the report and returns the exit code: 3 if anything could not be
  // read or a path in `nothing` held nothing to check (unless
  // opts.allow_empty), else 1 if a problem is at or above opts.fail_on,
  // else 0. I/O errors go to `err` in text mode.
  int finish(const std::vector<std::string>& nothing);

 private:
  // The document's opening keys: the envelope, schema_version, depth, fail_on.
  nlohmann::ordered_json head() const;
  // 3 with I/O errors, 1 with a problem at or above --fail-on, else 0.
  int exit_for(const Counts& c, bool io_errors) const;
  // jsonl: one whole document on a line: target `r` (none: the run's
  // line), the I/O errors it carries, its summary.
  void line(const TargetResult* r, const std::vector<std::string>& io_errors, nlohmann::ordered_json summary);
  const VerifyOptions& opts_;
  Sink& out_;
  Sink& err_;
  Counts total_{};
  int64_t files_ = 0, bytes_ = 0, partitions_ = 0;
  std::vector<std::string> path_errors_;    // paths that could not be expanded
  std::vector<std::string> target_errors_;  // files that could not be read: few, kept for the end
  std::set<Code> remedied_;                 // codes whose fix the text has said
  bool any_target_ = false;
  Spill problems_, suppressed_;  // JSON only: they follow the targets
};

}  // namespace kseg
