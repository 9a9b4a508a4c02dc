// SPDX-License-Identifier: Apache-2.0
// kseg-verify: check segment, index and state files of a partition, or of a
// whole log dir, against the rules Kafka itself writes and reads them by, and
// report every problem with a stable code, a severity, the file, the byte
// position, and what was expected and found. Never writes anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/problem.h"

namespace kseg {

class Sink;

enum class VerifyDepth {
  quick,    // batch headers and CRCs (plus index and state checks)
  normal,   // also decode the records of uncompressed batches
  deep,     // also decompress and decode every compressed batch
};

// jsonl: a document per target on one line, as each is checked, then one
// for the run (its summary and the paths' errors).
enum class VerifyFormat { text, json, jsonl };

struct VerifyOptions {
  std::vector<std::string> paths;  // files, partition dirs or log dirs
  VerifyDepth depth = VerifyDepth::normal;
  VerifyFormat format = VerifyFormat::text;
  Severity fail_on = Severity::error;  // exit 1 when a problem is at or above this
  bool show_info = false;              // print info findings in the text report
  int64_t max_bytes = INT64_MAX;       // read at most this much of each .log
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
  unsigned threads = 0;                // 0: usable_cpus()
  bool progress = false;               // progress lines on stderr
  bool allow_empty = false;            // a path with nothing to check is not an error
};

// Runs the whole verification; returns the exit code.
int run_verify(const VerifyOptions& opts, Sink& out, Sink& err);

}  // namespace kseg
