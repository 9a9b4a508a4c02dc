// SPDX-License-Identifier: Apache-2.0
// kseg-reindex's command line: options into ReindexOptions, then run_reindex.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/ops/common/exit_codes.h"
#include "tools/ops/reindex/reindex.h"
#include "tools/cli/reindex_cli.h"
#include "tools/cli/writer_cli.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/common/threads.h"

namespace kseg {

int reindex_main(int argc, char** argv) {
  CLI::App app{
      "Rebuild .index and .timeindex files from each .log exactly as Kafka's recovery (LogSegment.recover)\n"
      "writes them; with --recover also cut the partition at its first invalid batch as Kafka's\n"
      "unclean-shutdown recovery does, or with --salvage cut out only the invalid bytes. New files are written beside the old, fsynced and renamed into place; the\n"
      "originals are kept in a backup directory. Refuses a log dir whose .lock a running broker holds.",
      "kseg-reindex"};
  setup_help(app, "kseg-reindex",
             {"kseg-reindex --dry-run /var/lib/kafka/data   # what would be rebuilt",
              "kseg-reindex /var/lib/kafka/data/orders-0    # rebuild its indexes",
              "kseg-reindex --recover orders-0              # also cut at the first bad batch"},
             {"0  done, or nothing to do (with --dry-run: the plan is empty)",
                  "1  with --dry-run: the plan would change something; else refused on the data",
                  "2  usage error", "3  a file could not be read or written, or the log dir is locked"});
  ReindexOptions o;
  int32_t interval = -1, index_bytes = -1;
  WriterFlags flags;
  app.add_option("paths", o.paths, "Segment .log files, partition directories or log directories")->required();
  // Kafka's LogConfig: INT, atLeast(0) and atLeast(4).
  auto* interval_opt =
      size_option(app.add_option("--index-interval-bytes", interval, "The topic's index.interval.bytes (default 4096)"), 0,
                  INT32_MAX);
  auto* index_bytes_opt =
      size_option(app.add_option("--segment-index-bytes", index_bytes, "The topic's segment.index.bytes (default 10M)"),
                  4, INT32_MAX);
  int64_t entry_bytes = 0;
  auto* entry_bytes_opt =
      int_range(app.add_option("--index-entry-bytes", entry_bytes,
                     "Width of .index entries: 8, or 12 (KIP-1333, experimental: no Kafka release reads them) "
                     "(default: 8, 12 only for a segment over 2 GiB)"),
                8, 12)
          ->check(CLI::IsMember({int64_t{8}, int64_t{12}}));
  not_empty(app.add_option("--topic-config", o.topic_config,
                           "Java properties file with the topic's index.interval.bytes / segment.index.bytes "
                           "(default: the log dir's __cluster_metadata-0, then Kafka's defaults)"));
  not_empty(app.add_option("--broker-config", o.broker_config,
                           "The broker's server.properties: log.index.interval.bytes, log.index.size.max.bytes"));
  bool recover = false, salvage = false;
  auto* recover_flag = app.add_flag(
      "--recover", recover, "Truncate at the first invalid batch and remove later segments, as Kafka's recovery does");
  app.add_flag("--salvage", salvage,
               "Beyond Kafka: remove only the invalid bytes of each segment, keep every later valid batch and segment, "
               "report the gaps")
      ->excludes(recover_flag);
  app.add_flag("--producer-state", o.producer_state,
               "Also rebuild each .txnindex and the producer .snapshot files as Kafka's recovery of every segment "
               "writes them (implied when --recover or --salvage changes a .log)");
  int64_t now = -1;
  time_option(app.add_option("--now", now,
                              "Kafka's clock for producer expiration when it loads a snapshot, epoch ms or ISO 8601 "
                              "(default: now)"));
  // Kafka: INT, atLeast(1).
  duration_option(app.add_option("--producer-id-expiration-ms", o.producer_id_expiration_ms,
                                  "The broker's producer.id.expiration.ms (ms, or 1d, 12h...; default 1d)"),
                  1, INT32_MAX);
  add_plan_flags(app, o);
  add_format_option(app, o);
  add_allow_empty_flag(app, o, "nothing to reindex");
  int_range(app.add_option("--threads", o.threads, "Threads that check batches while one reads ahead (default: one per CPU)"),
            1, INT32_MAX);
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown for a log dir when stderr is a terminal");
  add_backup_flags(app, flags);
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  o.progress = progress.wanted();
  o.threads = capped_threads("kseg-reindex", o.threads);
  o.repair = salvage ? Repair::salvage : recover ? Repair::recover : Repair::none;
  if (now >= 0) o.now_ms = now;
  if (*interval_opt) o.index_interval_bytes = interval;
  if (*index_bytes_opt) o.segment_index_bytes = index_bytes;
  if (*entry_bytes_opt) o.index_entry_bytes = entry_bytes;
  return run_writer("kseg-reindex", flags, o, [&](Sink& out, Sink& err) { return run_reindex(o, out, err); });
}

}  // namespace kseg
