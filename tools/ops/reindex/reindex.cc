#include "tools/ops/reindex/reindex.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "formats/file_names.h"
#include "lib/cpus.h"
#include "lib/ordered_pool.h"
#include "lib/time_text.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

struct Job {
  std::string partition_dir;
  std::optional<Offset> only_base;  // a single segment was named
};

// Targets by the one rule (partition/targets.h): a .log file (its segment
// alone), or each partition directory named or inside a named log dir. A
// path that yields none is an input error unless `allow_empty`.
Result<std::vector<Job>> expand_jobs(const std::vector<std::string>& paths, bool allow_empty) {
  std::vector<Job> out;
  for (const auto& p : paths) {
    Targets t = expand_targets({p});
    if (!t.errors.empty()) return Error{Errc::io, std::nullopt, t.errors.front()};
    const size_t before = out.size();
    for (const Target& target : t.targets) {
      if (target.kind == Target::partition) out.push_back({target.path, std::nullopt});
      if (target.kind != Target::file) continue;
      std::error_code ec;
      if (!fs::is_regular_file(target.path, ec))
        return Error{Errc::io, std::nullopt,
                     fmt::format("{}: {}", target.path,
                                 fs::exists(target.path, ec) ? "not a regular file" : "no such file or directory")};
      auto n = file_names::parse_segment_file_name(fs::path(target.path).filename().string());
      if (!n.ok() || n->kind != file_names::FileKind::log)
        return Error{Errc::io, std::nullopt, fmt::format("{}: not a segment (.log) file", target.path)};
      const auto parent = fs::path(target.path).parent_path();
      out.push_back({parent.empty() ? std::string(".") : parent.string(), n->offset});
    }
    if (out.size() == before && !allow_empty)
      return Error{Errc::io, std::nullopt,
                   fmt::format("{}: nothing to reindex: no partition directory in it (--allow-empty accepts this)", p)};
  }
  return out;
}

Result<recover::Config> resolve_config(const ReindexOptions& o) {
  recover::Config c;
  if (!o.topic_config.empty()) KSEG_RETURN_IF_ERROR(read_topic_config(o.topic_config, c));
  if (o.index_interval_bytes) c.index_interval_bytes = *o.index_interval_bytes;
  if (o.segment_index_bytes) c.segment_index_bytes = *o.segment_index_bytes;
  c.threads = o.threads ? o.threads : usable_cpus();
  if (c.index_interval_bytes < 0 || c.segment_index_bytes < 4)
    return Error{Errc::usage, std::nullopt, "index.interval.bytes must be >= 0 and segment.index.bytes >= 4"};
  return c;
}

// Plans, prints and applies one partition; returns its exit code.
int reindex_partition(const Job& t, const recover::Config& config, const ReindexOptions& o, const safe::DirLock* lock,
                      Sink& out, Sink& err) {
  ProducerStateOptions producers{o.producer_state, clock_ms(o.now_ms), o.producer_id_expiration_ms};
  auto plan = plan_partition(t.partition_dir, config, o.repair, t.only_base, producers);
  // A file that shrank while read was read as zeros: exit_after_run names it, and a data
  // error found in those zeros, with its advice, would only mislead.
  if (!plan.ok()) {
    if (!file_shrink()) err.print("kseg-reindex: {}\n", plan.error().message);
    return file_shrink() ? kExitIo : exit_code_for(plan.error().code);
  }
  if (!file_shrink()) {
    for (const auto& p : plan->problems) err.print("kseg-reindex: {}\n", problem_text(p));
    for (const auto& p : plan->left_as_is) err.print("kseg-reindex: {}\n", problem_text(p));
  }
  safe::print_plan(plan->plan, out);
  if (plan->segments == 0 && !plan->refused && plan->problems.empty() && !o.allow_empty) {
    err.print("kseg-reindex: {}: nothing to reindex: no segment in it (--allow-empty accepts this)\n", t.partition_dir);
    return kExitIo;
  }
  if (plan->plan.empty()) {
    out.print("{}: {} segment{} checked, nothing to change\n", t.partition_dir, plan->segments,
              plan->segments == 1 ? "" : "s");
  } else if (o.dry_run) {
    out.print("{}: dry run: {} change{} planned, nothing written\n", t.partition_dir, plan->plan.actions.size(),
              plan->plan.actions.size() == 1 ? "" : "s");
    return kExitProblems;  // as diff(1): 1 when the run would change something
  } else {
    out.flush();
    if (lock == nullptr) {
      err.print("kseg-reindex: {}: no lock held on its log dir\n", t.partition_dir);
      return kExitIo;
    }
    auto applied = safe::apply(plan->plan, {false, o.backup, o.backup_dir, ""}, *lock);
    if (!applied.ok()) {
      err.print("kseg-reindex: {}: {}\n", t.partition_dir, applied.error().message);
      return kExitIo;
    }
    out.print("{}: {} change{} applied{}\n", t.partition_dir, plan->plan.actions.size(),
              plan->plan.actions.size() == 1 ? "" : "s",
              applied->empty() ? std::string(o.backup ? " (no file replaced: nothing to back up)" : " (no backup)") : fmt::format("; originals in {}", *applied));
  }
  // Warnings (what a repair leaves for the broker) are said, not failed on.
  const bool errors = std::any_of(plan->problems.begin(), plan->problems.end(),
                                  [](const Problem& p) { return p.severity == Severity::error; });
  return errors ? kExitProblems : kExitOk;
}

// Several partitions: kWorkers threads plan and apply one partition each at
// a time; each partition's output is collected and printed in the
// partitions' order (lib/ordered_pool.h), so memory does not grow with the
// partitions.
int reindex_in_parallel(const std::vector<Job>& targets, const recover::Config& config, const ReindexOptions& o,
                        const std::function<const safe::DirLock*(const Job&)>& lock_of, Progress& progress, Sink& out,
                        Sink& err) {
  constexpr size_t kWorkers = 8, kWindow = 64;
  int rc = kExitOk;
  struct Done {
    Sink out, err;
    int rc = 0;
  };
  run_ordered<Done>(
      targets.size(), kWorkers, kWindow,
      [&](size_t i) {
        auto d = std::make_unique<Done>();
        try {
          d->rc = reindex_partition(targets[i], config, o, lock_of(targets[i]), d->out, d->err);
        } catch (const std::exception& e) {  // std::filesystem on a vanishing file: this partition fails alone
          d->err.print("kseg-reindex: {}: {}\n", targets[i].partition_dir, e.what());
          d->rc = kExitIo;
        }
        return d;
      },
      [&](size_t, Done& d) {
        err.write(d.err.contents());
        err.flush();
        out.write(d.out.contents());
        out.flush();
        rc = std::max(rc, d.rc);
        progress.add(1);
      });
  return rc;
}

}  // namespace

int run_reindex(const ReindexOptions& options, Sink& out, Sink& err) {
  ReindexOptions o = options;
  o.now_ms = clock_ms(o.now_ms);  // once: every partition's producers expire at the same time
  auto config = resolve_config(o);
  if (!config.ok()) {
    err.print("kseg-reindex: {}\n", config.error().message);
    return exit_code_for(config.error().code);
  }
  auto targets = expand_jobs(o.paths, o.allow_empty);
  if (!targets.ok()) {
    err.print("kseg-reindex: {}\n", targets.error().message);
    return exit_code_for(targets.error().code);
  }
  std::vector<std::string> dirs;
  for (const auto& t : *targets) dirs.push_back(t.partition_dir);
  auto locks = safe::lock_log_dirs(dirs, o.dry_run, "kseg-reindex", err);
  if (!locks.ok()) {
    err.print("kseg-reindex: {}\n", locks.error().message);
    return kExitIo;
  }
  auto lock_of = [&](const Job& t) -> const safe::DirLock* {
    const auto held = locks->find(log_dir_of(t.partition_dir));
    return held == locks->end() ? nullptr : &held->second;
  };
  int rc = kExitOk;
  const size_t n = targets->size();
  // One partition: planned and applied on this thread. Several (a log dir):
  // in parallel, so that partitions' fsyncs overlap (a log dir's repair takes
  // a third of the time: tests/bench/README.md, "Measurements behind the
  // code"). The crash-injection hook counts steps across plans: it wants one
  // at a time.
  Progress progress("kseg-reindex", Progress::Unit::partitions, static_cast<int64_t>(n), o.progress && n > 1);
  if (n <= 1 || std::getenv("KSEG_CRASH_AT") != nullptr) {
    for (const auto& t : *targets) {
      rc = std::max(rc, reindex_partition(t, *config, o, lock_of(t), out, err));
      progress.add(1);
    }
    return rc;
  }
  return reindex_in_parallel(*targets, *config, o, lock_of, progress, out, err);
}

}  // namespace kseg
