// SPDX-License-Identifier: Apache-2.0
// One unit of verification work and its result: a partition directory, a
// log dir's root files, or a single file named on the command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/ops/partition/targets.h"
#include "tools/ops/verify/verify_log.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {


struct TargetResult {
  Target target;
  Findings findings;
  int64_t segments = 0;
  int64_t log_start = 0;  // partitions: first segment's base offset
  int64_t log_end = 0;    // partitions: next offset after the last batch
  // Partitions: the producer state the replay of the whole log ends with
  // (kseg-doctor judges the open transactions and prices the snapshots).
  struct OpenTxn {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int64_t first_offset = -1;
    int64_t last_timestamp_ms = -1;  // the producer's last write (Kafka's ProducerStateEntry.lastTimestamp)
  };
  std::vector<OpenTxn> open_txns;  // by first offset
  int64_t producers = 0;           // producers with a batch in the log (or open in its first snapshot)
};

// Every check of one partition directory.
void verify_partition(const LogCheckOptions& opts, TargetResult& r);
// The checks that apply to one file alone, by its name.
void verify_single_file(const LogCheckOptions& opts, TargetResult& r);

}  // namespace kseg
