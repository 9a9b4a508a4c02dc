// SPDX-License-Identifier: Apache-2.0
// The state files of a partition that a writer leaves as they are
// (leader-epoch-checkpoint, partition.metadata, producer snapshots), checked
// as Kafka's loader reads them, so that a writer's exit 0 never hides one
// Kafka will fail on or ignore: each finding is a warning with the code
// kseg-verify reports it under (as the error it is there).
#pragma once

#include <string>
#include <vector>

#include "formats/partition_layout.h"
#include "tools/ops/common/problem.h"

namespace kseg {

// `snapshots`: also the producer snapshots (not when the writer rebuilds them).
std::vector<Problem> unchanged_state_problems(const std::string& dir, const PartitionLayout& layout, bool snapshots);

}  // namespace kseg
