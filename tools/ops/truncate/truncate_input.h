// SPDX-License-Identifier: Apache-2.0
// The partition as kseg-truncate reads it, and what it resolves from it
// before planning: the offset of a time, the segments retention deletes.
// Internal to tools/ops/truncate.
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/checkpoint_file.h"
#include "lib/status.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/truncate/truncate.h"

namespace kseg::truncation {

// A root checkpoint file and this partition's line in it.
using Root = CheckpointLines;

// The partition as a cut reads it: the loaded partition
// (partition/partition.h) and what only truncation needs.
struct Input : Partition {
  bool epoch_file = false;
  std::vector<checkpoint::EpochEntry> epochs;
  std::array<Root, 4> roots;  // every line of each, as rewritten
  std::optional<std::vector<uint8_t>> marker;
  // From an interrupted run's journal: what it changed first.
  bool journal = false;
  std::optional<int64_t> journal_recovery_point;
  std::string journal_args;  // the interrupted run's cut
  std::optional<int64_t> journal_end, journal_start;  // the log end and start it was making
  std::optional<int64_t> journal_loaded_start;         // the log start it found (Kafka's load's)
  std::vector<std::string> orphan_indexes;  // a crash between a segment's .log and its indexes
  // The lines as the plan has rewritten them so far.
  Root& line(RootCheckpoint c) { return roots[static_cast<size_t>(c)]; }
};

// Loads the partition, the leader epochs, the four checkpoints, the
// clean-shutdown marker and an interrupted run's journal. Refuses an
// interrupted log cleaning (the broker finishes it first).
Result<Input> load(const std::string& dir);

// Kafka's fetchOffsetByTimestamp (below); none when no record has a
// timestamp >= t.
Result<std::optional<int64_t>> offset_for_time(Input& p, int64_t t);

// deleteOldSegments (below): how many segments, from the first, retention
// deletes.
// `largest`: each segment's largest timestamp (largest_timestamp, partition.h, unless the caller read them already).
Result<size_t> retention_prefix(const Partition& p, const TruncateOptions& o, int64_t hw, int64_t log_start,
                                const std::function<Result<int64_t>(size_t)>& largest = {});

// deleteSegments: the log start offset once the first `count` segments go
// (the first one left; the log end, where Kafka rolls an empty one, when all go).
int64_t start_after_prefix(const Partition& p, size_t count, int64_t log_start);

}  // namespace kseg::truncation
