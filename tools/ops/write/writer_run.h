// What every writing tool (reindex, truncate, compact) is told, and the one
// run over the partitions its paths name: targets, the log dirs' locks, one
// partition after another, the JSON envelope, the exit status.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/ops/common/sink.h"
#include "tools/ops/partition/targets.h"
#include "tools/ops/write/safe_write.h"

namespace kseg {

struct WriterOptions : PartitionSelection {  // reindex's paths: .log files too
  bool dry_run = false;
  bool json = false;                 // the plan (and what was done) as JSON on stdout
  bool backup = true;
  std::string backup_dir;            // empty: <partition>/.kseg-backup-<time>
  bool progress = false;             // a progress line on stderr (Progress::wanted)
  std::optional<int64_t> now_ms;     // --now; else the clock, read once a run (lib/time_text.h clock_ms)
};

// One partition: its directory, the lock of its log dir (none in a dry run)
// and, with --json, the array its report goes into; its exit status.
using PartitionRun = std::function<int(const std::string& dir, const safe::DirLock* lock, nlohmann::json* report)>;

// The partition directories of o.paths (o.topic, o.partition,
// o.allow_empty), every log dir locked first (safe::lock_log_dirs), `one`
// for each in order; with o.json, {"tool": tool, "partitions": [...]} on
// `out`. The worst exit status of all.
int run_partitions(const char* tool, const WriterOptions& o, Sink& out, Sink& err, const PartitionRun& one);

}  // namespace kseg
