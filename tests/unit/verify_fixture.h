// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the kseg-verify tests: a run of kseg-verify --format
// json, and the batch table Kafka's own DumpLogSegments printed for a
// segment (copies of corpus cases: support/scratch.h, CaseCopy).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/unit/support/scratch.h"

namespace kseg::test {

struct VerifyRun {
  int exit_code = -1;
  nlohmann::json report;
  std::string err;
};
VerifyRun verify_json(const std::vector<std::string>& args, const std::string& cwd);

// "baseOffset: B lastOffset: L ... position: P ... size: S" lines of the
// golden plain dump of `<partition>/<segment>.log` in a corpus case.
struct GoldenBatch {
  int64_t base_offset = 0, last_offset = 0, position = 0, size = 0;
};
std::vector<GoldenBatch> golden_batches(const std::string& case_name, const std::string& partition,
                                        const std::string& segment);

}  // namespace kseg::test
