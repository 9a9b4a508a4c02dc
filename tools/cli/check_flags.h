// SPDX-License-Identifier: Apache-2.0
// The options of the tools that run kseg-verify's checks (kseg-verify, kseg-doctor): how deep,
// how large a batch may decompress, how many threads, how many problems kept per file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>

#include <CLI/CLI.hpp>

#include "tools/cli/help.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/threads.h"
#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

struct CheckFlags {
  bool quick = false, deep = false;
  size_t max_problems;
  explicit CheckFlags(size_t default_max_problems) : max_problems(default_max_problems) {}
};

inline void add_check_flags(CLI::App& app, CheckFlags& f, size_t& max_decompressed_bytes, unsigned& threads) {
  app.add_flag("--quick", f.quick, "Batch headers and CRCs only (no record decoding)");
  app.add_flag("--deep", f.deep, "Also decompress and decode every record of compressed batches");
  size_option(app.add_option("--max-decompressed-bytes", max_decompressed_bytes,
                              "Largest decompressed batch accepted (bytes, or 1G...; default 256M)"),
              1, INT64_MAX);
  int_range(app.add_option("--threads", threads, "Partitions checked in parallel (default: one per CPU)"), 1, INT32_MAX);
  int_range(app.add_option("--max-problems", f.max_problems,
                           "Problems of one code kept and printed per file; the rest are counted in a summary line "
                           "(default " + std::to_string(f.max_problems) + ", 0: all)"),
            0, INT64_MAX);
}

// After parsing: the depth, or nullopt (usage, said on stderr) for --quick with --deep; sets
// the problems kept per file and caps `threads`.
inline std::optional<VerifyDepth> apply_check_flags(const char* tool, const CheckFlags& f, unsigned& threads) {
  if (f.quick && f.deep) {
    std::fprintf(stderr, "%s: --quick and --deep exclude each other\n", tool);
    return std::nullopt;
  }
  Findings::set_max_per_file(f.max_problems);
  threads = capped_threads(tool, threads);
  return f.quick ? VerifyDepth::quick : f.deep ? VerifyDepth::deep : VerifyDepth::normal;
}

}  // namespace kseg
