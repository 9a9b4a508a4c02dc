// Checks of a segment's .index and .timeindex against its batches, by the
// rules Kafka's append and recovery paths create entries with.
#pragma once

#include <string>

#include "tools/ops/verify_log.h"
#include "tools/ops/verify_problem.h"

namespace kseg {

// `path` names an existing .index / .timeindex; `scan` is its segment.
bool check_offset_index(const std::string& path, const SegmentScan& scan, Findings& f);
bool check_time_index(const std::string& path, const SegmentScan& scan, Findings& f);

}  // namespace kseg
