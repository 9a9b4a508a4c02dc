// SPDX-License-Identifier: Apache-2.0
// kseg-doctor's command line: options into DoctorOptions, then run_doctor.
#include "tools/cli/doctor_cli.h"

#include <string>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "lib/time_text.h"
#include "tools/cli/check_flags.h"
#include "tools/cli/help.h"
#include "tools/cli/writer_cli.h"
#include "tools/ops/common/ask.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/doctor/doctor.h"

namespace kseg {

int doctor_main(int argc, char** argv) {
  CLI::App app{
      "What Kafka 4.4 will do with a broker's log dirs at its next start, and what to run about it. Every\n"
      "finding of kseg-verify with what Kafka does with it (refuses to start, recovers a segment and what it\n"
      "truncates and deletes, rebuilds an index, trusts a wrong one) and the kseg command that fixes it, with\n"
      "what each loses; an inventory of each log dir; one plan for the broker, in the order that loses least;\n"
      "a summary: does the broker start, how much its recovery reads, what it loses alone and after the plan.\n"
      "Reads only: safe beside a running broker.",
      "kseg-doctor"};
  setup_help(app, "kseg-doctor",
             {"kseg-doctor /var/lib/kafka/data              # one log dir",
              "kseg-doctor /data/kafka-1 /data/kafka-2      # every log dir of one broker",
              "kseg-doctor --format json /var/lib/kafka/data | jq .summary",
              "kseg-doctor --fix /var/lib/kafka/data        # broker stopped: apply the plan"},
             {"0  nothing to fix: the broker starts and loses nothing (with --fix: after it)",
              "1  findings to fix, or Kafka's start-up fails or loses data", "2  usage error",
              "3  a path missing, unreadable or holding no partition, or a log dir locked"});
  DoctorOptions o;
  std::string format = "text";
  app.add_option("paths", o.paths, "Log directories of one broker, or partition directories")->required();
  app.add_option("--format", format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  CheckFlags check(100);
  add_check_flags(app, check, o.max_decompressed_bytes, o.threads);
  app.add_flag("-v,--verbose", o.verbose, "Every partition and log dir entry, healthy ones and info findings too");
  not_empty(app.add_option("--broker-config", o.broker_config,
                           "The broker's server.properties: its log.* defaults (index, retention, cleaner); "
                           "topics' own settings come from the log dir's metadata log"));
  int64_t now = -1;
  time_option(app.add_option("--now", now,
                             "The clock, epoch ms or ISO 8601 (default: now): transaction ages, retention, "
                             "min.compaction.lag.ms"));
  // Kafka: INT, atLeast(1).
  duration_option(app.add_option("--producer-id-expiration-ms", o.producer_id_expiration_ms,
                                  "The broker's producer.id.expiration.ms, for the producer snapshots --fix writes "
                                  "(ms, or 1d, 12h...; default 1d)"),
                  1, INT32_MAX);
  app.add_flag("--fix", o.fix,
               "Apply the plan: lock the log dirs (the broker stopped), show the plan, ask, apply each step through "
               "kseg-reindex and the safe-write protocol, then diagnose again")
      ->group(kGroupSafety);
  app.add_flag("--yes,-y", o.yes, "With --fix: apply without asking (a script must give it)")->group(kGroupSafety);
  WriterFlags backup;
  add_backup_flags(app, backup);
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown only when stderr is a terminal");
  if (auto rc = parse_args(app, argc, argv)) return *rc;
  if (!o.fix && (o.yes || backup.no_backup || !backup.backup_dir.empty())) {
    std::fprintf(stderr, "kseg-doctor: --yes, --no-backup and --backup-dir go with --fix\n");
    return kExitUsage;
  }
  if (backup.no_backup && !backup.backup_dir.empty()) {
    std::fprintf(stderr, "kseg-doctor: --no-backup and --backup-dir exclude each other\n");
    return kExitUsage;
  }
  // Nothing is written on a guess: without a terminal to ask on, --fix needs --yes.
  if (o.fix && !o.yes && !can_ask()) {
    std::fprintf(stderr, "kseg-doctor: --fix asks before it writes, and there is no terminal to ask on: "
                         "give --yes (run without --fix first to see the plan)\n");
    return kExitUsage;
  }
  o.backup = !backup.no_backup;
  o.backup_dir = backup.backup_dir;
  const auto depth = apply_check_flags("kseg-doctor", check, o.threads);
  if (!depth) return kExitUsage;
  o.depth = *depth;
  o.json = format == "json";
  o.now_ms = clock_ms(now >= 0 ? std::optional<int64_t>(now) : std::nullopt);
  o.progress = progress.wanted();
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-doctor", run_doctor(o, out, err));
}

}  // namespace kseg
