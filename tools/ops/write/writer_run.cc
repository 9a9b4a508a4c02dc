// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/write/writer_run.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "lib/ordered_pool.h"
#include "lib/units.h"
#include "tools/ops/common/envelope.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

std::string space_text(const safe::Space& s, const std::string& backup) {
  const int64_t now = s.freed_now(), eventually = s.freed_eventually();
  if (s.kept_bytes == 0) {
    std::string where = backup.empty() ? " (no backup)" : fmt::format(" (originals copied to {})", backup);
    if (now >= 0) return fmt::format("{} freed now{}", human_bytes(now), where);
    return fmt::format("the disk holds {} more now{}", human_bytes(-now), where);
  }
  const std::string held = now >= 0 ? fmt::format("{} freed now", human_bytes(now))
                                    : fmt::format("the disk holds {} more now", human_bytes(-now));
  if (eventually <= 0) return fmt::format("{}; originals in {}", held, backup);
  return fmt::format("frees {} once the originals in {} are removed; {} (--no-backup, or --backup-dir on another "
                     "disk, frees the space at once)",
                     human_bytes(eventually), backup, held);
}

nlohmann::json space_json(const safe::Space& s) {
  return {{"bytes_freed_now", s.freed_now()},
          {"bytes_freed_without_originals", s.freed_eventually()},
          {"bytes_kept_in_backup", s.kept_bytes}};
}

void append_actions_json(const safe::Plan& plan, nlohmann::json& actions) {
  for (const auto& a : plan.actions) {
    nlohmann::json x{{"path", plan.path_of(a)}, {"action", safe::verb(a)}, {"why", a.why}};
    if (a.kind == safe::Action::Kind::copy_ranges && a.ranges.size() == 1) x["keep_bytes"] = a.ranges[0].size.bytes;
    actions.push_back(std::move(x));
  }
}

nlohmann::json error_json(const std::string& dir, const Error& e) {
  nlohmann::json j{{"partition", dir}, {"status", "error"}, {"error", e.message}};
  if (auto p = problem_of(e)) j["problems"].push_back(nlohmann::json(problem_json(*p)));
  return j;
}

void RunTally::print(const WriterOptions& o, Sink& out, const char* verb, const char* noun, const char* tail) const {
  if (o.json || partitions <= 1) return;
  out.print("total: {} partitions {}: {} {}, {}{}\n", partitions, verb, count, noun, human_bytes(bytes), tail);
}

int run_partitions(const char* tool, const WriterOptions& o, Sink& out, Sink& err, const PartitionRun& one,
                   const RunShape& shape) {
  auto jobs = partition_jobs(o, shape.segment_files);
  if (!jobs.ok()) return report_failure(tool, jobs.error(), err);
  std::vector<std::string> dirs;
  for (const auto& j : *jobs) dirs.push_back(j.dir);
  auto locks = safe::lock_log_dirs(dirs, o.dry_run, tool, err);
  if (!locks.ok()) {
    report_failure(tool, locks.error(), err);
    return kExitIo;
  }
  auto lock_of = [&](const PartitionJob& j) -> const safe::DirLock* {
    const auto held = locks->find(log_dir_of(j.dir));
    return held == locks->end() ? nullptr : &held->second;
  };
  nlohmann::json report = nlohmann::json::array();
  // jsonl: each partition's report as a document of its own, one line, out
  // as the partition ends (the run's order).
  auto lines = [&](nlohmann::json& reports) {
    if (!o.json_lines) return;
    for (auto& r : reports) {
      nlohmann::ordered_json doc = json_envelope(tool);
      doc["partitions"] = nlohmann::ordered_json::array({nlohmann::ordered_json(std::move(r))});
      out.print("{}\n", doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }
    out.flush();
    reports = nlohmann::json::array();
  };
  int rc = kExitOk;
  const size_t n = jobs->size();
  Progress progress(tool, shape.byte_progress ? Progress::Unit::bytes : Progress::Unit::partitions,
                    shape.byte_progress ? 0 : static_cast<int64_t>(n), o.progress && (n > 1 || shape.byte_progress));
  const int64_t one_done = shape.byte_progress ? 0 : 1;
  if (shape.threads <= 1 || n <= 1 || std::getenv("KSEG_CRASH_AT") != nullptr) {
    for (const auto& j : *jobs) {
      rc = std::max(rc, one(j, lock_of(j), out, err, o.json ? &report : nullptr));
      lines(report);
      progress.add(one_done);
    }
  } else {
    struct Done {
      Sink out, err;
      nlohmann::json report = nlohmann::json::array();
      int rc = 0;
    };
    run_ordered<Done>(
        n, shape.threads, 64,
        [&](size_t i) {
          auto d = std::make_unique<Done>();
          const PartitionJob& j = (*jobs)[i];
          try {
            d->rc = one(j, lock_of(j), d->out, d->err, o.json ? &d->report : nullptr);
          } catch (const std::exception& e) {  // std::filesystem on a vanishing file: this partition fails alone
            d->err.print("{}: {}: {}\n", tool, j.dir, e.what());
            d->rc = kExitIo;
          }
          return d;
        },
        [&](size_t, Done& d) {
          err.write(d.err.contents());
          err.flush();
          out.write(d.out.contents());
          out.flush();
          for (auto& r : d.report) report.push_back(std::move(r));
          lines(report);
          rc = std::max(rc, d.rc);
          progress.add(one_done);
        });
  }
  // Messages quote file bytes, which need not be UTF-8.
  if (o.json && !o.json_lines) {
    nlohmann::ordered_json doc = json_envelope(tool);
    doc["partitions"] = nlohmann::ordered_json(report);
    out.print("{}\n", doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  return rc;
}

}  // namespace kseg
