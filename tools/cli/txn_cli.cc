// SPDX-License-Identifier: Apache-2.0
// kseg-txn's command line: options into TxnOptions, then run_txn.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/cli/txn_cli.h"
#include "tools/cli/writer_cli.h"
#include "lib/time_text.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/txn/txn.h"

namespace kseg {

int txn_main(int argc, char** argv) {
  CLI::App app{
      "Producer state and transactions of Kafka partitions, from their logs and snapshots alone, as the broker's\n"
      "loader rebuilds them: every producer at the log end, every open transaction with its first offset, age and\n"
      "what it holds back (the last stable offset), the aborted ranges; with __transaction_state partitions in the\n"
      "same log dir, the coordinator's view of each, and the transactions the partition shows open while the\n"
      "coordinator has ended them (hanging). Reads only. Exit 1 when a transaction is hanging.",
      "kseg-txn"};
  setup_help(app, "kseg-txn",
             {"kseg-txn /var/lib/kafka/data        # every partition, hanging ones flagged",
              "kseg-txn --format json payments-3   # one partition, as JSON"},
             {"0  no hanging transaction", "1  at least one hanging transaction", "2  usage error",
              "3  a path missing, unreadable or holding no partition"});
  TxnOptions o;
  int64_t now = -1;
  std::string format = "text";
  app.add_option("paths", o.paths, "Partition directories or log directories")->required();
  topic_filter(app.add_option("--topic", o.topic, "Only this topic's partitions (in log directories)"));
  time_option(app.add_option("--now", now, "The clock, epoch ms or ISO 8601 (default: now): ages, producer expiration"));
  // Kafka: INT, atLeast(1).
  duration_option(app.add_option("--producer-id-expiration-ms", o.producer_id_expiration_ms,
                                  "The broker's producer.id.expiration.ms (ms, or 1d, 12h...; default 1d): producers "
                                  "idle that long are dropped when a snapshot is loaded"),
                  1, INT32_MAX);
  app.add_option("--format", format, "text, json, or jsonl (a document per partition, one line each)")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  int_range(app.add_option("--max-aborted", o.max_aborted,
                           "Aborted ranges listed per partition (default 1000; the rest counted)"),
            0, INT64_MAX);
  app.add_flag("--allow-empty", o.allow_empty, "Exit 0, not 3, for a path with no partition");
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown for a log dir when stderr is a terminal");
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  o.progress = progress.wanted();
  o.json = format != "text";
  o.json_lines = format == "jsonl";
  o.now_ms = clock_ms(now >= 0 ? std::optional<int64_t>(now) : std::nullopt);
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-txn", run_txn(o, out, err));
}

}  // namespace kseg
