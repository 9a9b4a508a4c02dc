// SPDX-License-Identifier: Apache-2.0
// Checks of a partition's text state files and of a log dir's root files
// against what the segments say: leader-epoch-checkpoint, partition.metadata,
// the four root offset checkpoints and meta.properties.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/types.h"
#include "tools/ops/verify/verify_log.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

// Leader epochs as Kafka's recovery assigns them: (epoch, baseOffset of the
// first batch with an epoch greater than every earlier one).
class EpochTracker {
 public:
  struct Transition {
    int32_t epoch;
    int64_t start;      // base offset of the first batch with this epoch
    int64_t prev_last;  // last offset of the batch before it (-1 if none)
  };
  // One batch of `file`, in log order.
  void batch(const BatchInfo& b, const std::string& file, Findings& f);
  const std::vector<Transition>& transitions() const { return transitions_; }
  // Whether a batch with an epoch holds an offset in [from, to).
  bool batches_within(int64_t from, int64_t to) const;

 private:
  std::vector<Transition> transitions_;
  int32_t latest_ = -1;
  int64_t prev_last_ = -1;
};

void check_leader_epoch_checkpoint(const std::string& path, const EpochTracker& epochs, int64_t log_end_offset,
                                   Findings& f);
void check_partition_metadata(const std::string& path, Findings& f);
void check_meta_properties(const std::string& path, Findings& f);
// A KRaft node's quorum-state (formats/quorum_state.h).
void check_quorum_state(const std::string& path, Findings& f);

// What the root checkpoints are compared with, per "<topic>-<partition>".
struct PartitionRange {
  int64_t log_start = 0;  // first segment's base offset
  int64_t log_end = 0;    // next offset after the last batch
};
// One of recovery-point-, replication-, log-start-, cleaner-offset-checkpoint.
// A negative log_end_offset in check_leader_epoch_checkpoint means "no log".
void check_root_checkpoint(const std::string& path, const std::map<std::string, PartitionRange>& partitions,
                           Findings& f);

// Reads a small text file whole and notes it as a file of `kind` checked;
// none (and an I/O finding) on failure.
FileResult* read_small_file(const std::string& path, const char* kind, std::string& out, Findings& f);
// Byte position of the start of line `line` (0-based) in `text`.
Position line_position(std::string_view text, int64_t line);

}  // namespace kseg
