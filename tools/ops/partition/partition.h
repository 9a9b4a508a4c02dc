// SPDX-License-Identifier: Apache-2.0
// A partition directory as every tool loads it before it reads a batch: the
// layout, the segments with their sizes, the log start and end offsets
// Kafka's loader finds, and this partition's lines of the log dir's
// checkpoints. Loaded once here; txn, info, compact and truncate ask it
// rather than work it out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/file_names.h"
#include "formats/partition_layout.h"
#include "lib/status.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/producer_start.h"

namespace kseg {

struct Segment {
  int64_t base = 0;
  int64_t size = 0;             // .log bytes
  int64_t mtime_ms = 0;         // .log's, as Java's File.lastModified gives it
  int64_t index_bytes = -1;     // whole entries of .index, in bytes; -1 without one
  int64_t timeindex_bytes = -1;  // likewise of .timeindex
  SegmentFiles files;
  std::string stem;  // <dir>/<20-digit base>
  // ".swap" for a segment not yet swapped in (kseg-doctor's model of
  // LogLoader's swap finish, partition/swap.h): its files' names end in it.
  std::string transient;
  bool has(file_names::FileKind k) const { return files.has(k); }
  std::string path(file_names::FileKind k) const;
};

struct Partition {
  std::string dir;
  std::string log_dir;  // canonical: the one a writer locks
  std::string topic;    // empty, number 0 when the name is no <topic>-<partition>
  int32_t number = 0;
  PartitionLayout layout;
  std::vector<Segment> segments;                           // canonical names, ascending; the last is active
  std::vector<std::pair<int64_t, std::string>> snapshots;  // producer snapshots (offset, name), ascending
  std::optional<int64_t> log_start_line;                   // this partition's in log-start-offset-checkpoint
  // The active segment's next offset (only whole batches count); without a
  // segment, where Kafka creates one when it loads: the log start.
  int64_t log_end = 0;

  // No segment: Kafka creates one at the log start offset when it loads.
  int64_t first_base() const { return segments.empty() ? log_start_line.value_or(0) : segments.front().base; }
  // LogLoader's log start offset: the checkpointed one, at least the first
  // segment's base (it may lie past the log end).
  int64_t log_start() const { return std::max(first_base(), log_start_line.value_or(0)); }
  std::string path(int64_t base, file_names::FileKind k) const;
  // The segments' .log files as (base, path), for replay_producers.
  std::vector<std::pair<int64_t, std::string>> logs() const;
  // This partition's line of a root checkpoint, with every line for a
  // writer that rewrites it (read when asked: not every tool needs all four).
  Result<CheckpointLines> root(RootCheckpoint which) const;
  // replication-offset-checkpoint's line clamped to the log, as the leader
  // starts from it; without one (a log dir copied without it), the log end.
  struct HighWatermark {
    int64_t offset = 0;
    bool from_checkpoint = false;
  };
  Result<HighWatermark> high_watermark(int64_t log_start) const;
};

struct LoadOptions {
  Unreadable unreadable = Unreadable::refuse;
  // A directory whose name is no <topic>-<partition> is refused (Errc::usage)
  // when set; readers load it with no topic (and no checkpoint lines).
  bool need_name = true;
  // The log start line as LogManager reads it at start-up: a file that does
  // not parse counts as none (each log then starts at its first segment).
  // Otherwise such a file is refused (checkpoint.corrupt).
  bool log_start_as_log_manager = false;
  // The partition's log dir as log_dir_of names it, when the caller knows it
  // (it resolves links component by component: once a log dir, not once a partition).
  std::string log_dir = {};
  // What a caller that already read the directory knows (kseg-doctor, after
  // verify's checks): its listing, taken with `unreadable`, and the active
  // segment's next offset where it read that segment whole and found it
  // sound (Kafka's readNextOffset then gives the same).
  const PartitionLayout* listed = nullptr;
  std::optional<std::pair<int64_t, int64_t>> active_end = {};  // (base, next offset)
};

// Lists and stats the segments, reads the log start line and scans the
// active segment's tail for the log end. Errors name the file.
Result<Partition> load_partition(const std::string& dir, const LoadOptions& o = {});

// LogSegment.largestTimestamp as a loaded log has it: the time index's last
// slot (a preallocated zero tail reads as 0, KAFKA-10207), else (none, or a
// negative one) the .log's mtime.
Result<int64_t> largest_timestamp(const Segment& s);

// The producer state Kafka's loader has at the log end: the snapshot it
// keeps (producer_start.h), then every batch after it replayed.
struct LoadedProducers {
  ProducerState state;
  std::optional<int64_t> snapshot;
  int64_t replayed = 0;  // batches
};
Result<LoadedProducers> load_producers(const Partition& p, std::optional<ProducerExpiry> expiry = {});

}  // namespace kseg
