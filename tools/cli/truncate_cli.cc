// SPDX-License-Identifier: Apache-2.0
// kseg-truncate's command line: options into TruncateOptions, then run_truncate.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/cli/truncate_cli.h"
#include "tools/cli/writer_cli.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/truncate/truncate.h"

namespace kseg {

int truncate_main(int argc, char** argv) {
  CLI::App app{
      "Cut Kafka partitions offline the way the broker does online: at an offset (truncateTo), at a time, by\n"
      "moving the log start offset (DeleteRecords), by retention (deleteOldSegments), or entirely\n"
      "(truncateFullyAndStartAt). Indexes, producer snapshots, leader epochs and the log dir's checkpoints are\n"
      "left as Kafka leaves them. New files are written beside the old, fsynced and renamed into place; the\n"
      "originals are kept in a backup directory. Refuses a log dir whose .lock a running broker holds.",
      "kseg-truncate"};
  setup_help(app, "kseg-truncate",
             {"kseg-truncate --dry-run --to-offset 1200 orders-0   # what the cut removes",
              "kseg-truncate --to-offset 1200 orders-0             # remove offsets >= 1200",
              "kseg-truncate --retention-ms 604800000 /var/lib/kafka/data --topic orders"},
             {"0  done, or nothing to do (with --dry-run: the plan is empty)",
                  "1  with --dry-run: the plan would change something; else refused on the data",
                  "2  usage error", "3  a file could not be read or written, or the log dir is locked"});
  TruncateOptions o;
  int64_t to_offset = -1, to_time = -1, log_start = -1, full = -1, retention_ms = -1, retention_bytes = -1, now = -1;
  WriterFlags flags;
  app.add_option("paths", o.paths, "Partition directories or log directories")->required();
  auto* m1 = app.add_option("--to-offset", to_offset,
                            "Remove every record at and after offset N (the cut is at the start of the batch holding N)");
  auto* m2 = app.add_option("--to-time", to_time,
                            "Remove the first batch holding a timestamp >= T (epoch ms or ISO 8601), as ListOffsets "
                            "finds it, and all after");
  auto* m3 = app.add_option("--log-start", log_start,
                            "Raise the log start offset to N and remove the segments wholly below it (DeleteRecords)");
  auto* m4 = app.add_option("--full", full, "Remove every record; the log restarts empty at offset N");
  auto* r1 = app.add_option("--retention-ms", retention_ms,
                            "Remove the segments retention.ms=MS would delete (ms, or 7d, 36h...; -1: unlimited, as "
                            "Kafka's)");
  auto* r2 = app.add_option("--retention-bytes", retention_bytes,
                            "Remove the segments retention.bytes=B would delete (bytes, or 10G, 512MiB...; -1: "
                            "unlimited, as Kafka's)");
  auto* r3 = app.add_flag("--retention", o.topic_retention,
                          "Remove the segments each topic's own retention.ms and retention.bytes would delete: from "
                          "the log dir's KRaft metadata log, --topic-config, --broker-config, Kafka's defaults "
                          "(--retention-ms/--retention-bytes override them)");
  not_empty(app.add_option("--topic-config", o.topic_config,
                           "With --retention: a properties file of the topic's configs (retention.ms, retention.bytes)"))
      ->needs(r3);
  not_empty(app.add_option("--broker-config", o.broker_config,
                           "With --retention: the broker's server.properties (log.retention.hours, .ms, .bytes)"))
      ->needs(r3);
  auto* now_opt = app.add_option("--now", now, "The clock for --retention-ms, epoch ms or ISO 8601 (default: now)");
  // Offsets and times are never negative; retention's -1 is Kafka's "unlimited".
  // --full N: the segment at N must hold its 2^31 offsets (relative offsets
  // are int32) with the log end after them still an offset.
  for (CLI::Option* a : {m1, m3}) int_range(a, 0, INT64_MAX);
  for (CLI::Option* a : {m2, now_opt}) time_option(a);
  int_range(m4, 0, INT64_MAX - INT32_MAX - 1);
  duration_option(r1, -1, INT64_MAX);
  size_option(r2, -1, INT64_MAX);
  // The retention options go together; the other modes exclude them and each other.
  auto retention = [&](CLI::Option* x) { return x == r1 || x == r2 || x == r3; };
  for (CLI::Option* a : {m1, m2, m3, m4, r1, r2, r3})
    for (CLI::Option* b : {m1, m2, m3, m4, r1, r2, r3})
      if (a != b && !(retention(a) && retention(b))) a->excludes(b);
  add_partition_filter(app, o, flags);
  add_plan_flags(app, o);
  add_format_option(app, o);
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown for a log dir when stderr is a terminal");
  add_allow_empty_flag(app, o, "no partition to truncate");
  add_backup_flags(app, flags);
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  o.progress = progress.wanted();
  if (*m1) o.mode = TruncateMode::to_offset, o.value = to_offset;
  else if (*m2) o.mode = TruncateMode::to_time, o.value = to_time;
  else if (*m3) o.mode = TruncateMode::log_start, o.value = log_start;
  else if (*m4) o.mode = TruncateMode::full, o.value = full;
  else if (*r1 || *r2 || *r3) {
    o.mode = TruncateMode::retention;
    if (*r1) o.retention_ms = retention_ms;
    if (*r2) o.retention_bytes = retention_bytes;
  } else {
    std::fprintf(stderr,
                 "kseg-truncate: say what to cut: --to-offset, --to-time, --log-start, --full, --retention, "
                 "--retention-ms or --retention-bytes\n");
    return kExitUsage;
  }
  if (now >= 0) o.now_ms = now;
  return run_writer("kseg-truncate", flags, o, [&](Sink& out, Sink& err) { return run_truncate(o, out, err); });
}

}  // namespace kseg
