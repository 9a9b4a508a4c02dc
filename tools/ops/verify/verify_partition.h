// SPDX-License-Identifier: Apache-2.0
// One unit of verification work and its result: a partition directory, a
// log dir's root files, or a single file named on the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/partition_layout.h"
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
  // Partitions: each segment's time index's last timestamp as it was read
  // (none: an empty one), by base offset; kseg-doctor prices retention with it.
  std::vector<std::pair<int64_t, std::optional<int64_t>>> time_index_last;
  // Partitions: the directory as listed (none: it could not be), and the
  // last segment's base and next offset as its scan found them; kseg-doctor
  // loads the partition from them rather than list and read it again.
  std::optional<PartitionLayout> listed;
  std::optional<std::pair<int64_t, int64_t>> last_segment_end;
};

// Every check of one partition directory.
void verify_partition(const LogCheckOptions& opts, TargetResult& r);
// The checks that apply to one file alone, by its name.
void verify_single_file(const LogCheckOptions& opts, TargetResult& r);

}  // namespace kseg
