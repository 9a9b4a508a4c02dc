// The driver: paths to targets, targets to results on a small thread pool,
// results to a report in a deterministic order.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "lib/cpus.h"
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

// The root files, once every partition of the log dir is done.
void verify_log_dir(TargetResult& r, const std::vector<TargetResult>& all) {
  std::map<std::string, PartitionRange> ranges;
  for (const auto& o : all)
    if (o.target.kind == Target::partition && fs::path(o.target.path).parent_path() == fs::path(r.target.path))
      ranges[fs::path(o.target.path).filename().string()] = PartitionRange{o.log_start, o.log_end};
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
  std::vector<TargetResult> results(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) results[i].target = targets[i];
  LogCheckOptions lo{opts.depth, opts.max_decompressed_bytes, opts.max_bytes};
  const unsigned hw = opts.threads ? opts.threads : usable_cpus();
  const size_t workers = std::min<size_t>(hw, std::max<size_t>(1, targets.size()));
  lo.segment_threads = static_cast<unsigned>(hw / workers);  // cores the partitions leave idle
  std::atomic<size_t> next{0};
  {
    Progress progress("kseg-verify", Progress::Unit::partitions, static_cast<int64_t>(results.size()), opts.progress,
                      "partitions and files");
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < results.size();) {
        run_one(lo, results[i]);
        progress.add(1);
      }
    };
    std::vector<std::thread> pool;
    for (size_t i = 1; i < workers; ++i) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  for (auto& r : results)
    if (r.target.kind == Target::log_dir) verify_log_dir(r, results);
  // A path under which no file was checked is not a clean verdict: a mistyped
  // directory, an empty one, a file of no kind kseg reads.
  std::vector<size_t> files(opts.paths.size(), 0), listed(opts.paths.size(), 0);
  for (size_t i = 0; i < results.size(); ++i) {
    files[origin[i]] += results[i].findings.files.size();
    ++listed[origin[i]];
  }
  std::vector<std::string> nothing;
  for (size_t i = 0; i < opts.paths.size(); ++i)
    if (listed[i] > 0 && files[i] == 0) nothing.push_back(opts.paths[i]);
  return report(opts, results, io_errors, nothing, out, err);
}

}  // namespace kseg
