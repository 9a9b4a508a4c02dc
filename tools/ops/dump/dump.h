// SPDX-License-Identifier: Apache-2.0
// kseg-dump: print the files of a partition directory the way Kafka's
// DumpLogSegments (kafka-dump-log.sh) does, byte for byte on stdout, or as
// JSON. Unlike Kafka it reports corruption as a clear error on stderr, goes
// on with the next file and exits non-zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "tools/ops/common/exit_codes.h"

namespace kseg {

class Sink;

enum class ValueDecoder { string, hex, base64, integer, long_int };
enum class RecordParser { plain, offsets, transaction_log, cluster_metadata, share_group_state, remote_log_metadata };
enum class OutputFormat { text, json, jsonl };

inline constexpr unsigned kMaxDumpThreads = 64;

// Which batches and records of a .log to print (kseg's own options, beyond
// DumpLogSegments). A batch is printed when at least one of its records is
// selected by every filter given; under --deep-iteration only the selected
// records are printed. Offsets and times are inclusive bounds.
struct DumpFilter {
  std::optional<int64_t> from_offset, to_offset;
  std::optional<int64_t> from_time, to_time;  // epoch ms, the record's timestamp
  std::optional<int64_t> producer_id;         // v2 batches only
  std::optional<std::string> key;             // the record's key bytes, exactly
  bool seek = true;                           // start at the index's entry, not byte 0
  bool any() const { return from_offset || to_offset || from_time || to_time || producer_id || key; }
  // Whether records must be read to tell (a batch's header bounds the rest).
  bool per_record() const { return from_time || to_time || key || from_offset || to_offset; }
};

enum class TimeFormat { ms, iso };

struct DumpOptions {
  std::vector<std::string> files;  // as given; directories are expanded
  // How many of `files`, at the front, came from --files (Kafka's form):
  // there a state file is skipped as Kafka's tool skips it, in text.
  size_t kafka_form_files = 0;
  bool print_data_log = false;     // implies deep_iteration
  bool deep_iteration = false;
  bool verify_index_only = false;
  bool index_sanity_check = false;
  bool skip_record_metadata = false;
  int32_t max_message_size = 5 * 1024 * 1024;
  int32_t max_bytes = INT32_MAX;
  ValueDecoder key_decoder = ValueDecoder::string;
  ValueDecoder value_decoder = ValueDecoder::string;
  RecordParser parser = RecordParser::plain;
  OutputFormat format = OutputFormat::text;
  // Most bytes one batch may decompress to before it is called a bomb.
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
  // Threads printing a .log's batches (0: one per CPU); output is the same
  // for any number.
  unsigned threads = 0;
  // About how much of a .log one thread prints at a time, and how much text
  // a run holds before it waits its turn to write (tests make them small).
  size_t run_bytes = 256u << 10;
  size_t run_text_cap = 4u << 20;
  bool progress = false;  // a progress line on stderr (Progress)
  DumpFilter filter;
  // Timestamps in the JSON form; the text form is Kafka's and stays ms.
  TimeFormat time_format = TimeFormat::ms;
};

// Runs a whole dump; returns the exit code.
int run_dump(const DumpOptions& opts, Sink& out, Sink& err);

}  // namespace kseg
