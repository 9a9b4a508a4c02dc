// SPDX-License-Identifier: Apache-2.0
// The state of one kseg-dump run: options, output sinks, the end-of-run
// summaries Kafka prints on stderr, and the exit code so far.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/log_entry.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "lib/status.h"
#include "tools/ops/dump/dump.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"

namespace kseg {

// A problem as kseg-dump reports it: the error in kseg-dump's words and its
// code in the catalogue every kseg tool shares (common/problem.h).
struct DumpProblem {
  Code code;
  Error error;
};

// A producer snapshot that does not read: its checksum, or anything else.
inline Code snapshot_code(const Error& e) { return e.code == Errc::bad_crc ? Code::snapshot_crc : Code::snapshot_corrupt; }

// The state files kseg-dump prints beyond Kafka's tool (dump_state_files.cc).
enum class StateFile { leader_epochs, offset_checkpoint, partition_metadata, meta_properties, quorum_state };
// Which one a file name is: the names Kafka gives them (a root checkpoint's
// copy, "…-checkpoint.tmp", too).
std::optional<StateFile> state_file_kind(const std::string& name);

class Dumper {
 public:
  Dumper(const DumpOptions& o, Sink& out, Sink& err) : opts_(o), out_(out), err_(err) {}

  // `path` "-": standard input, a segment (of unknown base offset).
  // `kafka_form`: named in --files, kafka-dump-log's form.
  void dump_file(const std::string& path, bool kafka_form);
  void set_progress(Progress* p) { progress_ = p; }
  // Prints the end-of-run summaries and returns the exit code.
  int finish();

  // Index files, in either format (dump_index.cc).
  // The file types named by a base offset get it from dump_file, parsed once.
  void index_file(const std::string& path, const std::string& name, Offset base);
  void time_index_file(const std::string& path, const std::string& name, Offset base);
  // An index mapped, its file object emitted in JSON (dump_index.cc).
  std::optional<MappedFile> mapped_index(const std::string& path, std::string_view kind, Offset base);
  // A .log or KRaft .checkpoint (`base` -1) in either format (dump_log.cc).
  void log_file(const std::string& path, const std::string& name, Offset base);
  std::optional<MappedFile> open_log(const std::string& path, const std::string& name, Offset base);
  // Where the filters' lower bounds let a .log's reading start (dump_filter.cc).
  Position seek_position(const std::string& path, Offset base, const MappedFile& log);
  // The text form of the other file types (dump_text_*.cc).
  void snapshot_text(const std::string& path);
  void txn_index_text(const std::string& path);
  // A state file, text or JSON.
  void state_file(const std::string& path, StateFile kind);

  // The JSON form (dump_json.cc; a .log's objects in dump_log.cc).
  void state_json(const std::string& path, bool snapshot);
  void emit(const nlohmann::ordered_json& obj);
  // One object already written out as JSON.
  void emit_object(std::string_view obj);
  // A problem object; io problems have no catalogue code.
  void emit_problem(const std::string& path, std::optional<Code> code, const Error& e);
  // A finding of an index check that Kafka sums up on stderr at the end of
  // the run (finish()): a problem object now, and the run fails on it only
  // if its code is an error.
  void index_problem(const std::string& path, Code code, const Error& e);
  // Whether the segment of `path` (base offset `base`) is the last of its
  // directory: Kafka's active segment, whose indexes it leaves preallocated.
  bool last_segment(const std::string& path, Offset base) const;
  // What a zero tail of the active segment's index `path` is: `preallocated`
  // (info), or for a .timeindex Kafka loads as it is, the error kseg-verify
  // calls timeindex.preallocated_loaded.
  Code active_code(const std::string& path, Code preallocated) const;
  void close_json();

  // Reports a problem on stderr, once, and marks the run as failed if the
  // code is an error (kseg-verify's verdict on the same bytes): an info or a
  // warning, such as a zero slot DumpLogSegments reads as an entry of an
  // index Kafka preallocated, is printed but does not fail the run.
  void problem(const std::string& path, Code code, const Error& e) { report(path, code, e); }
  void problem(const std::string& path, const DumpProblem& p) { problem(path, p.code, p.error); }
  void io_problem(const std::string& path, const std::string& what);
  // `path` mapped (its first `max_bytes`); none when it cannot be, the
  // problem reported with `why` after the system's message.
  std::optional<MappedFile> mapped(const std::string& path, std::string_view why = {}, int64_t max_bytes = INT64_MAX);
  // Any of them; `code` is nullopt for what is no problem in the data (an
  // io error, a bad option).
  // `emit` false: the JSON object is written already.
  void report(const std::string& path, std::optional<Code> code, const Error& e, bool emit = true);
  // Why a .log's scan stopped short, as a problem; nullopt at a clean end (or
  // a cut made by --max-bytes). Text and JSON report the same.
  // `path` is the .log (base offset `base`, -1 for a KRaft .checkpoint) of
  // `file_size` bytes: a zero tail is kseg-verify's log.preallocated_tail
  // (info) where it is that, not damage.
  std::optional<DumpProblem> log_end_problem(const EntryScanner& scan, const std::string& path, Offset base,
                                             int64_t file_size) const;
  // The code of a zero-filled tail in that .log.
  Code zero_tail_code(const std::string& path, Offset base, int64_t file_size) const;

  const DumpOptions& opts() const { return opts_; }
  Sink& out() { return out_; }

 private:
  // --index-sanity-check of a .timeindex: Kafka's check, then the code
  // kseg-verify gives what fails.
  void time_index_sanity(const std::string& path, Offset base, const time_index::View& view, int64_t live);
  // One .timeindex entry printed as DumpLogSegments prints it (or as JSON).
  void print_time_entry(const std::string& path, int64_t slot_number, Position slot,
                        const time_index::TimestampOffset& to);
  friend struct LogPrinter;
  const DumpOptions& opts_;
  Sink& out_;
  Sink& err_;
  Progress* progress_ = nullptr;  // told the .log bytes printed
  // Makes standard input a file kStdinPath maps; false when it cannot be.
  bool stdin_as_file();
  static constexpr const char* kStdinPath = "/dev/stdin";
  int exit_ = kExitOk;
  int64_t read_ = 0, skipped_ = 0;  // files dumped (or tried), files of no known kind skipped
  bool index_failed_ = false;  // an index finding with an error code
  int64_t emitted_ = 0;  // JSON objects written so far
  struct Pairs {
    std::string file;  // absolute path, as Kafka prints it
    std::vector<std::pair<int64_t, int64_t>> pairs;
  };
  Pairs& pairs_for(std::vector<Pairs>& list, const std::string& abs_path);
  std::vector<Pairs> index_mismatches_, time_mismatches_, time_out_of_order_, time_not_found_, non_consecutive_;
};

class JsonObject;
// The fields of a problem object.
void json_problem_fields(JsonObject& obj, const std::string& path, std::optional<Code> code, const Error& e);

// Kafka's java.io.File(path).toString(): duplicate and trailing separators go.
std::string java_file_path(const std::string& path);
std::string absolute_path(const std::string& path);
std::string base_name(const std::string& path);
std::string dir_name(const std::string& path);

}  // namespace kseg
