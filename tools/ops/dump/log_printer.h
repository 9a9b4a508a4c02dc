// SPDX-License-Identifier: Apache-2.0
// Printing a .log a run of entries at a time, in either output format:
// runs are printed on several threads and written out in file order
// (dump_log.cc), text as DumpLogSegments prints it (dump_log.cc), JSON as
// formats/kseg-dump.schema.json describes it (dump_json.cc).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/batch_check.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "lib/block_walk.h"
#include "tools/ops/common/json_writer.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/dump/record_text.h"

namespace kseg {

// What printing a run of a file's entries produced: kept until its turn
// comes, so runs can be printed on several threads and written in order.
// In block mode (dump_log.cc) a run is a block of the file whose entries a
// thread found itself (lib/block_walk.h: the span says where they start and
// end; `again` when its text passed the cap before its turn).
struct PrintedRun : BlockSpan {
  std::vector<EntryRef> entries;
  Sink text;                  // collects only
  std::vector<DumpProblem> problems;  // JSON: already in `text` as objects
  int64_t objects = 0;        // JSON objects in `text`
  bool any_offset = false;    // offsets seen: the first, the last, and the
  int64_t first_offset = 0;   // non-consecutive pairs within the run
  int64_t last_offset = 0;
  std::vector<std::pair<int64_t, int64_t>> gaps;
  bool aborted = false;       // Kafka would stop reading the file here
  int64_t unknown_tag_records = 0;  // text: records whose payload leaves out tagged fields
  std::string first_unknown_tag;    // the first of them, said

  // What the last printing left; the span is the walk's.
  void reset() {
    entries.clear();
    // A run of very large records leaves a large buffer; do not keep it.
    if (text.capacity() > (16u << 20)) text.shrink();
    text.clear();
    problems.clear();
    objects = 0;
    any_offset = aborted = false;
    gaps.clear();
    unknown_tag_records = 0;
    first_unknown_tag.clear();
  }
};

// Prints batches and records, a run at a time; one per thread, for its
// decompression and line buffers.
struct LogPrinter {
  LogPrinter(const DumpOptions& opts, bool deep_iteration, std::string file)
      : o(opts), deep(deep_iteration), filtering(opts.filter.any()), path(std::move(file)) {
    fmt::memory_buffer b;
    append_json_string(b, path);
    path_json = fmt::to_string(b);
  }
  const DumpOptions& o;
  bool deep;
  bool filtering;  // o.filter.any()
  std::string path;       // as JSON objects name the file
  std::string path_json;  // the same, as a JSON string, escaped once
  PrintedRun* r = nullptr;
  // Called when the run's text passes o.run_text_cap: writes it out once
  // every earlier run is written (or marks the run to be printed again in
  // its turn), so a run's text stays bounded.
  std::function<void()> spill;
  std::vector<uint8_t> scratch;
  RecordWalker walker{o.max_decompressed_bytes, &scratch};
  std::string line;
  ParsedRecord parsed;

  void print(PrintedRun& run);
  void problem(Code c, Error e);
  void bound_text() {
    if (!hold && r->text.contents().size() > o.run_text_cap) spill();
  }
  // Returns false when the file cannot be read further (Kafka would abort).
  bool entry(const EntryRef& e);
  void note_offset(int64_t offset);

  // The text form (dump_log.cc).
  static constexpr size_t kDirectValueBytes = 512;
  bool finish_record(const RecordView& rv, bool control, std::string_view prefix);
  bool batch_v2(const EntryRef& e);
  // A v2 record's "| offset: ..." metadata into `line`; false when its
  // control record does not read (the problem reported).
  bool record_v2_metadata(const EntryRef& e, const v2::BatchHeader& h, const v2::Record& rec, const RecordView& rv);
  void append_header_key(std::string_view key);
  bool legacy_entry(const EntryRef& e);
  // Whether the filters show `rv`; if so, its offset is noted and its line begun.
  bool begin_record(const RecordView& rv);
  bool legacy_record(const RecordView& rv, const char* ts_name, bool valid, uint32_t crc);

  // Filters (dump_filter.cc). An entry is printed, then taken back if no
  // record of it was selected: `hold` keeps its text from being written
  // out until that is known, `shown` says whether it stays.
  bool hold = false;
  bool shown = false;
  bool filtered_entry(const EntryRef& e);
  // What the header alone tells: false, no record can be selected; true,
  // every record is; nullopt, the records must be read.
  std::optional<bool> header_verdict(const EntryCheck& c) const;
  bool record_wanted(const RecordView& rv) const;
  // Reads the records (no printing) to tell whether any is selected; an
  // entry whose records do not read counts as selected, so its problem shows.
  bool any_record_wanted(const EntryRef& e, const EntryCheck& c);
  // The filter's verdict on an entry before its line is printed: false to
  // pass over it. Under --deep-iteration the records decide as they print.
  bool entry_selected(const EntryRef& e, const EntryCheck& c);

  // The JSON form (dump_json.cc): one object per batch, record and problem.
  bool json_entry(const EntryRef& e);
  bool json_v2(const EntryRef& e, const EntryCheck& c);      // a v2 batch and its records
  void json_v2_header(const EntryRef& e, const EntryCheck& c);
  void json_v2_record(const EntryRef& e, const v2::BatchHeader& h, const v2::Record& rec, const RecordView& rv,
                      bool compressed);
  bool json_legacy(const EntryRef& e, const EntryCheck& c);  // a v0/v1 message and its inner messages
  // The problem of a v2 batch's records the walk stopped at, as the text
  // and JSON dumps report it.
  void records_problem(const EntryRef& e, const v2::BatchHeader& h, const Status& st);
  JsonObject begin_object();
  void end_object();
  void json_record(const EntryRef& e, JsonObject& obj, const RecordView& rv);
};

}  // namespace kseg
