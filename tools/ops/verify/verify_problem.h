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

// Every code kseg-verify can report, in documentation order: the identifier
// of the stable name with '.' as '_'. The table in verify_problem.cc has one
// row per code in this order (checked at compile time), so a check can only
// report a code that has its severity and summary.
enum class Code : uint8_t {
  log_crc_mismatch, log_bad_magic, log_bad_size, log_torn_tail, log_zero_tail, log_preallocated_tail,
  log_trailing_garbage, log_bad_codec, log_record_decode, log_record_count, log_offset_delta,
  log_max_timestamp, log_producer_fields, log_offset_order, log_below_base_offset, log_offset_overflow,
  log_epoch_regression, log_max_bytes, index_size, index_not_increasing, index_entry_mismatch,
  index_past_log_end, index_preallocated, index_untrimmed, index_missing, timeindex_size,
  timeindex_not_monotonic, timeindex_entry_mismatch, timeindex_final_entry, timeindex_past_log_end,
  timeindex_preallocated, timeindex_untrimmed, timeindex_missing, txnindex_size, txnindex_bad_version,
  txnindex_below_base, txnindex_not_increasing, txnindex_missing_abort, txnindex_unexpected_entry,
  txnindex_entry_mismatch, snapshot_corrupt, snapshot_crc, snapshot_past_log_end, snapshot_mismatch,
  epoch_corrupt, epoch_mismatch, epoch_missing, epoch_past_log_end, partition_metadata_corrupt,
  checkpoint_corrupt, checkpoint_past_log_end, meta_corrupt, dir_bad_name, dir_file_name, dir_leftover_swap,
  dir_leftover_cleaned, dir_leftover_deleted, dir_leftover_tmp, dir_orphan_index, dir_unknown_file, count_
};

struct CodeInfo {
  Code id;
  const char* code;      // e.g. "log.crc_mismatch": never renamed once released
  Severity severity;     // default severity
  const char* summary;   // one line, for --list-codes and the man page
};
// Every code kseg-verify can report, in documentation order.
std::span<const CodeInfo> problem_codes();
const CodeInfo& code_info(Code c);
const char* code_name(Code c);
const CodeInfo* find_code(const std::string& code);  // by stable name; nullptr if none

struct Problem {
  Severity severity = Severity::error;
  Code code = Code::log_crc_mismatch;
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
  void add(Code code, const std::string& file, Position position, std::string message, std::string expected = {},
           std::string found = {});
  void add(Severity s, Code code, const std::string& file, Position position, std::string message,
           std::string expected = {}, std::string found = {});
  FileResult& file(const std::string& path, const char* kind);
  void io_error(const std::string& path, const std::string& what) { io_errors.push_back(path + ": " + what); }

  std::vector<Problem> problems;
  std::vector<FileResult> files;
  std::vector<std::string> io_errors;
};

}  // namespace kseg
