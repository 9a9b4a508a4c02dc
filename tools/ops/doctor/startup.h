// SPDX-License-Identifier: Apache-2.0
// What Kafka 4.4's LogLoader will do with one partition directory when the
// broker next starts, worked out offline from the same files and rules
// (../shared/spec/recovery-and-reindex.md §5): which segments it recovers
// (every one from the recovery point on after an unclean shutdown, any
// without its .index, any whose .txnindex fails the sanity check), where
// each recovery truncates, which later segments it then deletes, the log end
// it comes up with, and where it fails instead. Reads; writes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/segment_recover.h"
#include "lib/status.h"
#include "tools/ops/partition/partition.h"

namespace kseg::doctor {

// Why a segment is recovered at start-up.
enum class RecoverWhy { none, unclean, no_index, txnindex };
const char* recover_why_text(RecoverWhy w);  // "unclean shutdown, at or after the recovery point", ...

struct SegmentFate {
  int64_t base = 0;
  int64_t size = 0;                  // .log bytes now
  RecoverWhy why = RecoverWhy::none;  // none: loaded as it is, its indexes trusted
  bool unclean_pass = false;          // the unclean pass recovers it (again, if it was at load)
  int64_t truncated_bytes = 0;       // what recovery cuts from the .log's end
  int64_t offsets_cut = 0;           // offsets those bytes held (to the next segment or the log end)
  std::string stop;                  // why the scan stopped there (SegmentEnd and detail)
  std::string stop_kind;             // segment_end_name (bad_crc, partial_tail, ...) or invalid_offset: emptied
  int64_t stop_position = -1;
  bool deleted = false;              // removed because an earlier recovered segment was truncated
};

struct Startup {
  bool clean_shutdown = false;
  std::optional<int64_t> recovery_point;  // the checkpoint's line; Kafka takes 0 without one
  std::optional<int64_t> log_start_line;
  // Set when the load throws (the log dir goes offline, or the broker stops):
  // Kafka's exception and why.
  std::optional<std::string> fails;
  std::vector<SegmentFate> segments;
  int64_t recovered = 0;      // segments recovered
  int64_t bytes_to_scan = 0;  // their .log bytes: what the recovery reads
  int64_t log_end_before = 0;  // the log end the files hold now
  int64_t log_end_after = 0;   // the one Kafka comes up with
  int64_t bytes_lost = 0;      // truncated, and the deleted segments' bytes
  int64_t offsets_lost = 0;
  bool deletes_all = false;    // the log end falls below the checkpointed log start: every segment goes
  bool loses() const { return bytes_lost > 0 || deletes_all; }
  // Every segment deleted because the checkpointed log start already lies past the log end (not
  // because recovery's truncation brought the log end below it).
  bool line_past_end() const { return deletes_all && log_start_line && *log_start_line > log_end_before; }
};

// `p` loaded by load_partition; `clean`: the log dir holds .kafka_cleanshutdown.
// `metadata_log`: the KRaft metadata log, which the raft layer opens as after an
// unclean shutdown from offset 0 at every start (KafkaMetadataLog), whatever
// the marker and checkpoints say. An error only where the files cannot be read.
// `clean_logs`: the base offsets of segments whose .log kseg-verify read
// whole and found nothing in; where no index can fill up either, Kafka's
// recovery of one keeps every byte, so it is not read again.
Result<Startup> predict_startup(const Partition& p, bool clean, const recover::Config& config, bool metadata_log = false,
                                const std::set<int64_t>& clean_logs = {});

}  // namespace kseg::doctor
