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
#include "tools/ops/common/sink.h"
#include "tools/ops/verify/verify_partition.h"
#include "tools/ops/verify/verify_report.h"
#include "tools/ops/verify/verify_state.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

const char* const kRootCheckpoints[] = {"recovery-point-offset-checkpoint", "replication-offset-checkpoint",
                                        "log-start-offset-checkpoint", "cleaner-offset-checkpoint"};

bool is_partition_dir(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string n = e.path().filename().string();
    const std::string ext = e.path().extension().string();
    if (n == "partition.metadata" || n == "leader-epoch-checkpoint" || ext == ".log" || ext == ".index" ||
        ext == ".timeindex" || ext == ".snapshot")
      return true;
  }
  return false;
}

void add_log_dir(const std::string& dir, std::vector<Target>& out) {
  std::error_code ec;
  const bool clean = fs::exists(fs::path(dir) / ".kafka_cleanshutdown", ec);
  std::vector<std::string> subdirs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    // The tiered-storage cache is no partition; hidden dirs are not Kafka's.
    if (e.is_directory(ec) && n != "remote-log-index-cache" && n[0] != '.') subdirs.push_back(e.path().string());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& d : subdirs) out.push_back(Target{Target::partition, d, clean});
  out.push_back(Target{Target::log_dir, dir, clean});
}

std::vector<Target> expand(const std::vector<std::string>& paths, std::vector<std::string>& io_errors) {
  std::vector<Target> out;
  for (std::string p : paths) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      io_errors.push_back(fmt::format("{}: {}", p, ec ? ec.message() : "no such file or directory"));
    } else if (fs::is_regular_file(st)) {
      out.push_back(Target{Target::file, p});
    } else if (is_partition_dir(p)) {
      const fs::path parent = fs::path(p).parent_path();
      out.push_back(Target{Target::partition, p, fs::exists((parent.empty() ? "." : parent) / ".kafka_cleanshutdown", ec)});
    } else {
      add_log_dir(p, out);
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
  std::error_code ec;
  const fs::path dir(r.target.path);
  for (const char* name : kRootCheckpoints)
    if (fs::exists(dir / name, ec)) check_root_checkpoint((dir / name).string(), ranges, r.findings);
  if (fs::exists(dir / "meta.properties", ec)) check_meta_properties((dir / "meta.properties").string(), r.findings);
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
  const std::vector<Target> targets = expand(opts.paths, io_errors);
  std::vector<TargetResult> results(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) results[i].target = targets[i];
  LogCheckOptions lo{opts.depth, opts.max_decompressed_bytes, opts.max_bytes};
  const unsigned hw = opts.threads ? opts.threads : usable_cpus();
  const size_t workers = std::min<size_t>(hw, std::max<size_t>(1, targets.size()));
  lo.segment_threads = static_cast<unsigned>(hw / workers);  // cores the partitions leave idle
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mu;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < results.size();) {
      run_one(lo, results[i]);
      const size_t d = ++done;
      if (opts.progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        std::fprintf(stderr, "\rkseg-verify: %zu/%zu checked", d, results.size());
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (opts.progress) std::fprintf(stderr, "\r\033[K");
  for (auto& r : results)
    if (r.target.kind == Target::log_dir) verify_log_dir(r, results);
  return report(opts, results, io_errors, out, err);
}

}  // namespace kseg
