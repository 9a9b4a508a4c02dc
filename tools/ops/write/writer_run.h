// SPDX-License-Identifier: Apache-2.0
// What every writing tool (reindex, truncate, compact) is told, and the one
// run over the partitions its paths name: targets, the log dirs' locks, one
// partition after another, the JSON envelope, the exit status.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
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
  bool verbose = false;              // text: each step of the plan too, before each partition's summary
  bool json = false;                 // the plan (and what was done) as JSON on stdout
  bool json_lines = false;           // with json: one document per partition, a line each, as each ends
  bool backup = true;
  std::string backup_dir;            // empty: <partition>/.kseg-backup-<time>
  bool progress = false;             // a progress line on stderr (Progress::wanted)
  std::optional<int64_t> now_ms;     // --now; else the clock, read once a run (lib/time_text.h clock_ms)
};

// The end of a writer's summary line for a partition: what the change
// freed now and what it frees once the originals go, and where they are:
//   "3.2 MiB freed now (no backup)"
//   "frees 3.2 MiB once the originals in <dir> are removed; the disk holds
//    41.0 KiB more now (--no-backup, or --backup-dir on another disk, frees
//    the space at once)"
std::string space_text(const safe::Space& s, const std::string& backup);

// The same as JSON: bytes freed now, once the originals go, and kept.
nlohmann::json space_json(const safe::Space& s);

// A plan's steps as the JSON reports list them: {"path", "action" (safe::verb),
// "why"}, and "keep_bytes" for a cut that keeps one range.
void append_actions_json(const safe::Plan& plan, nlohmann::json& actions);

// A failed partition's entry in the JSON report: {"partition", "status":
// "error", "error": the message, "problems": [the error, when it carries a
// problem code]}.
nlohmann::json error_json(const std::string& dir, const Error& e);

// One partition: its job, the lock of its log dir (none in a dry run),
// where its text goes and, with --json, the array its report goes into;
// its exit status.
using PartitionRun = std::function<int(const PartitionJob& job, const safe::DirLock* lock, Sink& out, Sink& err,
                                       nlohmann::json* report)>;

struct RunShape {
  bool segment_files = false;  // a .log file given names its segment alone (kseg-reindex)
  // Partitions run at once (their output printed in their order), where
  // fsyncs of several partitions overlap; one at a time under a crash
  // injection (KSEG_CRASH_AT counts steps across plans).
  size_t threads = 1;
  // The progress line counts bytes of segments read (progress_more/_done,
  // told by the tool's passes), not partitions: a single large partition
  // shows its progress too.
  bool byte_progress = false;
};

// A writer's total over its partitions (run on several threads), for the
// run's last line: "total: 3 partitions cut: 120 offsets, 1.2 MiB of log".
struct RunTally {
  std::mutex mu;
  int64_t partitions = 0, count = 0, bytes = 0;
  void add(int64_t n, int64_t b) {
    std::lock_guard hold(mu);
    ++partitions;
    count += n;
    bytes += b;
  }
  // The line, on `out`, for a text run of more than one changed partition:
  // "total: <partitions> partitions <verb>: <count> <noun>, <bytes><tail>".
  void print(const WriterOptions& o, Sink& out, const char* verb, const char* noun, const char* tail) const;
};

// The partitions of o.paths (o.topic, o.partition, o.allow_empty), every
// log dir locked first (safe::lock_log_dirs), `one` for each; with o.json,
// {"tool": tool, "partitions": [...]} on `out`. The worst exit status of all.
int run_partitions(const char* tool, const WriterOptions& o, Sink& out, Sink& err, const PartitionRun& one,
                   const RunShape& shape = {});

}  // namespace kseg
