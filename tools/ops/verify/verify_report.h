// kseg-verify's output: the human report or the JSON report object (schema
// formats/kseg-verify.schema.json), and the exit code they imply.
#pragma once

#include <string>
#include <vector>

#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_partition.h"

namespace kseg {

class Sink;

// Writes the report for `results` (in order) and returns the exit code:
// 3 if anything could not be read or a path held nothing to check (unless
// opts.allow_empty), else 1 if a problem is at or above
// opts.fail_on, else 0. I/O errors go to `err` in text mode.
int report(const VerifyOptions& opts, const std::vector<TargetResult>& results,
           const std::vector<std::string>& io_errors, const std::vector<std::string>& nothing, Sink& out, Sink& err);

}  // namespace kseg
