// SPDX-License-Identifier: Apache-2.0
// kseg-compact's command line: options into CompactOptions, then run_compact.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "lib/units.h"
#include "tools/cli/compact_cli.h"
#include "tools/cli/writer_cli.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/compact/compact.h"

namespace kseg {

int compact_main(int argc, char** argv) {
  CLI::App app{
      "Compact Kafka partitions offline as the broker's log cleaner does (Kafka 4.4.0's Cleaner): the dirty\n"
      "section from cleaner-offset-checkpoint up to the active segment, the last stable offset or\n"
      "min.compaction.lag.ms; the latest record of each key kept, tombstones and transaction markers until\n"
      "their delete horizon, aborted transactions removed, empty batches kept for producer state. Cleaned\n"
      "segments are swapped in through Kafka's own .cleaned/.swap names, so the broker's start-up finishes\n"
      "or undoes an interrupted run; the originals are kept in a backup directory. Refuses a log dir whose\n"
      ".lock a running broker holds.",
      "kseg-compact"};
  setup_help(app, "kseg-compact",
             {"kseg-compact --stats users-0            # what a round would keep and free",
              "kseg-compact --topic-config users.conf users-0",
              "kseg-compact --until-clean /var/lib/kafka/data --topic users"},
             {"0  done, or nothing to do (with --dry-run: the plan is empty)",
                  "1  with --dry-run: the plan would change something; else refused on the data",
                  "2  usage error", "3  a file could not be read or written, or the log dir is locked"});
  CompactOptions o;
  int64_t now = -1;
  std::vector<std::string> configs;
  std::string delete_retention, min_lag, segment_bytes, map_bytes;
  WriterFlags flags;
  app.add_option("paths", o.paths, "Partition directories or log directories")->required();
  time_option(app.add_option("--now", now,
                              "The cleaner's clock, epoch ms or ISO 8601 (default: now); fixes every delete horizon"));
  not_empty(app.add_option("--topic-config", o.topic_config_file,
                           "The topic's configs, key=value lines (kafka-configs --describe)"));
  not_empty(app.add_option("--broker-config", o.broker_config_file,
                           "The broker's server.properties: log.* defaults, cleaner settings"));
  app.add_option("--config", configs, "KEY=VALUE: a topic or cleaner setting, over every other source (repeatable)");
  // Text here: the setting's own rule (compact_config.cc) checks each value,
  // from whichever source it comes, an empty one too.
  auto* delete_retention_opt = app.add_option("--delete-retention-ms", delete_retention,
                                              "delete.retention.ms: how long tombstones and markers stay (ms, or 1d...)");
  auto* min_lag_opt = app.add_option("--min-compaction-lag-ms", min_lag, "min.compaction.lag.ms (ms, or 1h...)");
  auto* segment_bytes_opt =
      app.add_option("--segment-bytes", segment_bytes, "segment.bytes: the most one cleaned segment holds (bytes, or 1G...)");
  auto* map_bytes_opt = app.add_option(
      "--offset-map-bytes", map_bytes,
      "Kafka's offset map size (bytes, or 512M...): clean in the rounds a broker with that map would, byte for byte "
      "(default: kseg's own map within --memory, one round; log.cleaner.dedupe.buffer.size from a broker config "
      "counts as given)");
  size_option(app.add_option("--memory", o.memory,
                             "The memory of kseg's own map and spill buffers (default: a quarter of the machine's or "
                             "the cgroup's, at most 4 GiB); keys beyond it spill to a file that is gone at exit"),
              256, int64_t{1} << 40);
  int_range(app.add_option("--rounds", o.rounds, "Cleaning rounds to run (default 1)"), 1, INT32_MAX);
  app.add_flag("--until-clean", o.until_clean, "Run rounds until the dirty section is clean (when the map is too small for it)");
  app.add_flag("--force", o.force, "Compact a partition whose cleanup.policy has no 'compact'");
  add_partition_filter(app, o, flags);
  add_plan_flags(app, o);
  app.add_flag("--stats", o.dry_run, "The same as --dry-run: what a round would find, keep and free");
  add_format_option(app, o);
  add_allow_empty_flag(app, o, "no partition to compact");
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown over several rounds when stderr is a terminal");
  add_backup_flags(app, flags);
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  o.progress = progress.wanted();
  for (const auto& kv : configs) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "kseg-compact: --config %s: give KEY=VALUE\n", kv.c_str());
      return kExitUsage;
    }
    o.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  // A value with a unit (7d, 512M) becomes the number the setting's own
  // rule checks; anything else reaches that rule as typed.
  auto number = [](const std::string& v, auto parse) {
    const auto n = parse(v);
    return n ? std::to_string(*n) : v;
  };
  if (*delete_retention_opt)
    o.overrides.emplace_back("delete.retention.ms", number(delete_retention, parse_duration_ms));
  if (*min_lag_opt) o.overrides.emplace_back("min.compaction.lag.ms", number(min_lag, parse_duration_ms));
  if (*segment_bytes_opt) o.overrides.emplace_back("segment.bytes", number(segment_bytes, parse_size));
  if (*map_bytes_opt) o.overrides.emplace_back("offset.map.bytes", number(map_bytes, parse_size));
  if (now >= 0) o.now_ms = now;
  return run_writer("kseg-compact", flags, o, [&](Sink& out, Sink& err) { return run_compact(o, out, err); });
}

}  // namespace kseg
