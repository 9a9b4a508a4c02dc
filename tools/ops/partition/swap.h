// SPDX-License-Identifier: Apache-2.0
// LogLoader's finish of an interrupted cleaning or split (its first three
// passes over a partition directory), as a plan: .cleaned files go, and so
// do .swap files at or above the lowest .cleaned base; every other file of
// a segment the remaining swaps cover, [lowest swap base, highest swap
// end), goes; then .swap is stripped. kseg-compact applies it before a
// round; kseg-doctor predicts the start-up on the partition it leaves.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/partition_layout.h"
#include "lib/status.h"

namespace kseg {

struct SwapFinish {
  std::vector<std::pair<std::string, std::string>> removed;  // (file name, why), in that order
  std::vector<std::pair<int64_t, std::string>> renamed;       // (base, .swap file name): stripped of .swap
  int64_t lo = INT64_MAX, hi = INT64_MIN;                     // the offsets the swapped .log files cover
  bool empty() const { return removed.empty() && renamed.empty(); }
};

// Reads each kept .log.swap to its end (its next offset bounds what it covers).
Result<SwapFinish> plan_swap_finish(const std::string& dir, const PartitionLayout& layout);

}  // namespace kseg
