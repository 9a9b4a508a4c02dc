// SPDX-License-Identifier: Apache-2.0
// kseg-truncate: the cuts Kafka makes to a partition online, made offline
// with every file it keeps consistent (man/kseg-truncate.1 gives each rule):
//   to_offset  UnifiedLog.truncateTo at the batch boundary a cut at N leaves
//   to_time    the same at the offset Kafka's ListOffsets finds for a time
//   log_start  DeleteRecords: maybeIncrementLogStartOffset + deleteOldSegments
//   retention  deleteOldSegments under retention.ms / retention.bytes
//   full       truncateFullyAndStartAt
// A run plans every file of the partition (and its lines in the log dir's
// checkpoints) as Kafka would leave them after the cut and a clean shutdown,
// and applies the plan through safe_write.h. See man/kseg-truncate.1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/status.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/write/safe_write.h"
#include "tools/ops/write/writer_run.h"

namespace kseg {

class Sink;

// Written first by a run that arms recovery (moves the clean-shutdown
// marker aside, lowers the recovery point), removed last: a re-run after an
// interruption reads what was there before from it.
inline constexpr const char* kTruncateJournal = "truncate.kseg-journal";  // ends in file_names::kKsegJournalSuffix

enum class TruncateMode { to_offset, to_time, log_start, retention, full };

struct TruncateOptions : WriterOptions {  // now_ms: the clock of --retention-ms
  TruncateMode mode = TruncateMode::to_offset;
  int64_t value = 0;  // offset, timestamp (to_time) or new start offset (full)
  std::optional<int64_t> retention_ms, retention_bytes;
  // --retention: each partition's retention.ms and retention.bytes as its
  // broker has them (TopicSettings: the log dir's metadata log, these files,
  // Kafka's defaults); --retention-ms/--retention-bytes then override them.
  bool topic_retention = false;
  std::string topic_config, broker_config;
};

// What a cut of one partition comes to; also what --dry-run prints.
struct TruncatePlan {
  std::string partition_dir;
  std::string summary;     // one line: the cut and where the log now ends ("<dir>: <what>")
  std::string what;        // the same without the directory
  std::optional<Problem> note;  // for stderr: a cut that has nothing to cut (note.nothing_to_cut)
  int64_t old_end = 0, new_end = 0;        // log end offsets
  int64_t old_start = 0, new_start = 0;    // log start offsets
  int64_t bytes_freed = 0;                 // of .log files removed or cut
  struct Line {
    std::string file;                      // checkpoint file name
    std::optional<int64_t> before, after;  // the partition's line (none: absent)
  };
  std::vector<Line> checkpoints;  // every checkpoint line that changes
  safe::Plan main;                // the partition's files and the checkpoints
  safe::Plan first;               // applied before `main`: a lowered log start offset
  std::optional<std::vector<uint8_t>> marker;  // .kafka_cleanshutdown, written back after `main`
  bool journal = false;  // kTruncateJournal is written before `first` (or left by a run), removed at the end
  std::vector<uint8_t> journal_bytes;  // the journal this run writes first (a re-run writes it again, same cut)
  bool changes() const { return !main.empty() || !first.empty() || journal; }
};

// Plans one partition directory. Errc::usage for a cut Kafka refuses (a
// negative offset, a log start above the high watermark; an offset at or past
// the end is no cut, as in Kafka's truncateTo, with a note); Errc::refused for data
// kseg will not cut (a corrupt batch before the cut point, .swap files).
Result<TruncatePlan> plan_truncate(const std::string& partition_dir, const TruncateOptions& options);

// Runs a whole truncate; returns the exit code.
int run_truncate(const TruncateOptions& options, Sink& out, Sink& err);

}  // namespace kseg
