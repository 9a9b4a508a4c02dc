// kseg-reindex's command line: options into ReindexOptions, then run_reindex.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/ops/common/exit_codes.h"
#include "tools/ops/reindex/reindex.h"
#include "tools/cli/reindex_cli.h"
#include "tools/ops/common/sink.h"

namespace kseg {

int reindex_main(int argc, char** argv) {
  CLI::App app{
      "Rebuild .index and .timeindex files from each .log exactly as Kafka's recovery (LogSegment.recover)\n"
      "writes them; with --recover also cut the partition at its first invalid batch as Kafka's unclean-\n"
      "shutdown recovery does, or with --salvage cut out only the invalid bytes. New files are written beside the old, fsynced and renamed into place; the\n"
      "originals are kept in a backup directory. Refuses a log dir whose .lock a running broker holds.",
      "kseg-reindex"};
  app.set_version_flag("--version", std::string("kseg-reindex ") + KSEG_VERSION);
  ReindexOptions o;
  int32_t interval = -1, index_bytes = -1;
  bool no_backup = false;
  app.add_option("paths", o.paths, "Segment .log files, partition directories or log directories")->required();
  app.add_option("--index-interval-bytes", interval, "The topic's index.interval.bytes (default 4096)");
  app.add_option("--segment-index-bytes", index_bytes, "The topic's segment.index.bytes (default 10485760)");
  app.add_option("--topic-config", o.topic_config,
                 "Java properties file with the topic's index.interval.bytes / segment.index.bytes");
  bool recover = false, salvage = false;
  auto* recover_flag = app.add_flag(
      "--recover", recover, "Truncate at the first invalid batch and remove later segments, as Kafka's recovery does");
  app.add_flag("--salvage", salvage,
               "Beyond Kafka: remove only the invalid bytes of each segment, keep every later valid batch and segment, "
               "report the gaps")
      ->excludes(recover_flag);
  app.add_flag("--dry-run,-n", o.dry_run, "Print the plan; change nothing (exit 1 if it would change something)");
  app.add_flag("--allow-empty", o.allow_empty, "Exit 0, not 3, for a path with nothing to reindex");
  app.add_option("--threads", o.threads, "Threads that check batches while one reads ahead (default: one per CPU)");
  app.add_flag("--no-backup", no_backup, "Do not keep the replaced and removed files");
  app.add_option("--backup-dir", o.backup_dir,
                 "Keep originals in DIR/<partition>-<time> (default: <partition>/.kseg-backup-<time>)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  o.repair = salvage ? Repair::salvage : recover ? Repair::recover : Repair::none;
  if (interval >= 0) o.index_interval_bytes = interval;
  if (index_bytes >= 0) o.segment_index_bytes = index_bytes;
  o.backup = !no_backup;
  if (no_backup && !o.backup_dir.empty()) {
    std::fprintf(stderr, "kseg-reindex: --no-backup and --backup-dir exclude each other\n");
    return kExitUsage;
  }
  Sink out(stdout), err(stderr);
  if (!o.dry_run) safe::install_interrupt_cleanup("kseg-reindex");
  return exit_after_run("kseg-reindex", run_reindex(o, out, err));
}

}  // namespace kseg
