// SPDX-License-Identifier: Apache-2.0
// The one problem model of kseg: a catalogue of stable codes, each with its
// default severity, and a Problem that names the file, the byte position,
// and what was expected and found. kseg-verify reports every finding with
// it, kseg-dump tags each problem it prints with its code, kseg-reindex
// names what it leaves or refuses by it; nothing here prints.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/status.h"
#include "lib/types.h"

namespace kseg {

enum class Severity { info = 0, warning = 1, error = 2 };
const char* severity_name(Severity s);  // "info", "warning", "error"

// Every code kseg can report, in documentation order: the identifier of the
// stable name with '.' as '_'. The table in problem.cc has one row per code
// in this order (checked at compile time), so a check can only report a
// code that has its severity and summary.
enum class Code : uint8_t {
  log_crc_mismatch, log_bad_magic, log_bad_size, log_torn_tail, log_zero_tail, log_preallocated_tail,
  log_trailing_garbage, log_bad_codec, log_record_decode, log_unknown_tagged_fields, log_record_count, log_offset_delta,
  log_max_timestamp, log_producer_fields, log_offset_order, log_below_base_offset, log_offset_overflow,
  log_epoch_regression, log_max_bytes, log_bad_control, log_unrecoverable, index_size, index_not_increasing,
  index_entry_mismatch, index_append_entry, index_past_log_end, index_wide_entries, index_preallocated, index_untrimmed, index_missing,
  timeindex_size,
  timeindex_not_monotonic, timeindex_entry_mismatch, timeindex_final_entry, timeindex_past_log_end,
  timeindex_preallocated, timeindex_preallocated_loaded, timeindex_untrimmed, timeindex_missing, timeindex_empty_batch, txnindex_size, txnindex_bad_version,
  txnindex_below_base, txnindex_not_increasing, txnindex_missing_abort, txnindex_unexpected_entry,
  txnindex_entry_mismatch, txnindex_marker_removed, snapshot_corrupt, snapshot_crc, snapshot_past_log_end, snapshot_mismatch,
  epoch_corrupt, epoch_mismatch, epoch_missing, epoch_past_log_end, partition_metadata_corrupt, partition_metadata_stray,
  checkpoint_corrupt, checkpoint_past_log_end, meta_corrupt, quorum_corrupt, dir_bad_name, dir_file_name, dir_not_a_file, dir_leftover_swap,
  dir_leftover_cleaned, dir_leftover_deleted, dir_leftover_tmp, dir_leftover_kseg_tmp, dir_kseg_backup, dir_orphan_index, dir_unknown_file,
  // What kseg-doctor predicts of Kafka in service: reported by it, never by kseg-verify.
  snapshot_missing, snapshot_stale, txn_hanging, txn_unverified, txn_two_phase_open, cleaner_dirty, retention_due,
  // What the writing tools (reindex, truncate, compact, excise) refuse, and what
  // they note: reported by them, never by kseg-verify.
  refuse_locked, refuse_lock_file, refuse_interrupted_clean, refuse_interrupted_truncate, refuse_foreign_journal,
  refuse_corrupt_before_cut, refuse_no_segment, refuse_not_compacted, refuse_cleaner_stops, refuse_segment_overflow,
  refuse_excise_damaged,
  note_swap_finished, note_snapshot_deleted, note_nothing_to_cut, count_
};

struct CodeInfo {
  Code id;
  const char* code;      // e.g. "log.crc_mismatch": never renamed once released
  Severity severity;     // default severity
  const char* summary;   // one line, for --list-codes and the man page
  const char* remedy;    // what fixes it: a kseg command, or why none is needed
};
// Every code, in documentation order.
std::span<const CodeInfo> problem_codes();
const CodeInfo& code_info(Code c);
const char* code_name(Code c);
const CodeInfo* find_code(const std::string& code);  // by stable name; nullptr if none

struct Problem {
  Severity severity = Severity::error;
  Code code = Code::log_crc_mismatch;
  std::string file;                  // as the user named it (path joined from the argument)
  std::optional<Position> position;  // byte position in `file`, when one applies
  std::string message;
  std::string expected;  // empty when not applicable
  std::string found;

  // With the code's default severity.
  static Problem of(Code code, std::string file, std::optional<Position> position, std::string message,
                    std::string expected = {}, std::string found = {});
};

// An error reported under a code of the catalogue (a writer's refusal, or a
// finding verify names the same way): `errc` decides the exit status, and
// the message names file and position itself ("<file>:<pos>: ...").
Error coded_error(Code code, Errc errc, std::optional<Position> position, std::string message);
inline Error refusal(Code code, std::optional<Position> position, std::string message) {
  return coded_error(code, Errc::refused, position, std::move(message));
}
// A note of a writer (info): what it did or found beside its plan.
inline Problem note(Code code, std::string file, std::string message) {
  return Problem::of(code, std::move(file), std::nullopt, std::move(message));
}
// The problem an error with a code is, severity error, its message whole
// (file empty); nullopt for an error without one.
std::optional<Problem> problem_of(const Error& e);

// An error as a tool prints it: problem_text of problem_of(e) when it
// carries a code, its message otherwise.
std::string error_text(const Error& e);

// "ERROR log.crc_mismatch file:position: message (expected X, found Y)";
// with no file, "ERROR code message".
std::string problem_text(const Problem& p);
// {"severity", "code", "file" (left out when empty), "position" (null when
// none), "message", and "expected"/"found" when either is set}
nlohmann::ordered_json problem_json(const Problem& p);

}  // namespace kseg
