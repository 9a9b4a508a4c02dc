// SPDX-License-Identifier: Apache-2.0
// The driver: paths to targets, targets to results on a small thread pool,
// results to the report in the targets' order as they finish.
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "lib/cpus.h"
#include "lib/ordered_pool.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/verify/verify_partition.h"
#include "tools/ops/verify/verify_report.h"
#include "tools/ops/verify/verify_state.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

// Targets by the one rule (partition/targets.h), each with the index of the
// path it came from; a file that is not there is an I/O error before
// anything runs.
std::vector<Target> expand(const std::vector<std::string>& paths, std::vector<std::string>& io_errors,
                           std::vector<size_t>& origin) {
  std::vector<Target> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    Targets t = expand_targets({paths[i]});
    io_errors.insert(io_errors.end(), t.errors.begin(), t.errors.end());
    for (auto& target : t.targets) {
      std::error_code ec;
      if (target.kind == Target::file && !fs::is_regular_file(target.path, ec)) {
        io_errors.push_back(fmt::format("{}: {}", target.path,
                                        fs::exists(target.path, ec) ? "not a regular file" : "no such file or directory"));
        continue;
      }
      out.push_back(std::move(target));
      origin.push_back(i);
    }
  }
  return out;
}

// The root files, once every partition of the log dir is done; `ranges`:
// those partitions by directory name.
void verify_log_dir(TargetResult& r, const std::map<std::string, PartitionRange>& ranges) {
  const LogDirFiles files = log_dir_files(r.target.path);
  for (const auto& cp : files.checkpoints) check_root_checkpoint(cp.path, ranges, r.findings);
  if (files.meta_properties) check_meta_properties(*files.meta_properties, r.findings);
}

void run_one(const LogCheckOptions& lo, TargetResult& r) {
  try {
    if (r.target.kind == Target::partition) verify_partition(lo, r);
    else if (r.target.kind == Target::file) verify_single_file(lo, r);
  } catch (const std::exception& e) {  // std::filesystem on a vanishing file
    r.findings.io_error(r.target.path, e.what());
  }
}

}  // namespace

int run_verify(const VerifyOptions& opts, Sink& out, Sink& err) {
  std::vector<std::string> io_errors;
  std::vector<size_t> origin;
  const std::vector<Target> targets = expand(opts.paths, io_errors, origin);
  const size_t n = targets.size();
  VerifyReport report(opts, out, err, io_errors);
  LogCheckOptions lo{opts.depth, opts.max_decompressed_bytes, opts.max_bytes};
  const unsigned hw = opts.threads ? opts.threads : usable_cpus();
  const size_t workers = std::min<size_t>(hw, std::max<size_t>(1, n));
  lo.segment_threads = static_cast<unsigned>(hw / workers);  // cores the partitions leave idle
  // A log dir's partitions come before the log dir (targets.h): their
  // ranges wait here for its root checkpoints.
  std::map<std::string, std::map<std::string, PartitionRange>> ranges;
  // A path under which no file was checked is not a clean verdict: a mistyped
  // directory, an empty one, a file of no kind kseg reads.
  std::vector<size_t> files(opts.paths.size(), 0), listed(opts.paths.size(), 0);
  auto emit = [&](size_t i, TargetResult& r) {
    if (r.target.kind == Target::partition) {
      const fs::path p(r.target.path);
      ranges[p.parent_path().string()][p.filename().string()] = PartitionRange{r.log_start, r.log_end};
    } else if (r.target.kind == Target::log_dir) {
      try {
        verify_log_dir(r, ranges[r.target.path]);
      } catch (const std::exception& e) {
        r.findings.io_error(r.target.path, e.what());
      }
      ranges.erase(r.target.path);
    }
    files[origin[i]] += r.findings.files.size();
    ++listed[origin[i]];
    report.add(r);
  };
  // Results are reported in the targets' order, within a window of targets
  // started: the results held (each with its findings and file list) do not
  // grow with the number of partitions.
  {
    Progress progress("kseg-verify", Progress::Unit::partitions, static_cast<int64_t>(n), opts.progress,
                      "partitions and files");
    run_ordered<TargetResult>(
        n, workers, 64,
        [&](size_t i) {
          auto r = std::make_unique<TargetResult>();
          r->target = targets[i];
          run_one(lo, *r);
          progress.add(1);
          return r;
        },
        emit);
  }
  std::vector<std::string> nothing;
  for (size_t i = 0; i < opts.paths.size(); ++i)
    if (listed[i] > 0 && files[i] == 0) nothing.push_back(opts.paths[i]);
  return report.finish(nothing);
}

}  // namespace kseg
