// SPDX-License-Identifier: Apache-2.0
// kseg-info's command line: options into InfoOptions, then run_info.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/cli/help.h"
#include "tools/cli/info_cli.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/info/info.h"

namespace kseg {

int info_main(int argc, char** argv) {
  CLI::App app{
      "Partitions and log dirs at a glance, from batch headers alone: segments, offset and time ranges, bytes,\n"
      "records, codecs, producers and open transactions (as Kafka's loader rebuilds producer state), index\n"
      "health by Kafka's own sanity checks, how each log ends, leftovers; a log dir's totals after its\n"
      "partitions. Checksums are not checked (kseg-verify does). Reads only.",
      "kseg-info"};
  setup_help(app, "kseg-info",
             {"kseg-info /var/lib/kafka/data            # every partition, then totals",
              "kseg-info --format json orders-0 | jq .  # one partition, as JSON",
              "kseg-info --time-format iso orders-0     # times as 2026-12-02T18:41:49.123Z"},
             {"0  read", "2  usage error", "3  a path missing, unreadable or holding no partition"});
  InfoOptions o;
  std::string format = "text", time_format = "ms";
  ProgressFlags progress;
  app.add_option("paths", o.paths, "Partition directories or log directories")->required();
  app.add_option("--format", format, "text, json, or jsonl (a document per partition and per log dir, one line each)")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  app.add_option("--time-format", time_format, "ms (epoch milliseconds, default) or iso (ISO 8601, UTC)")
      ->check(CLI::IsMember({"ms", "iso"}));
  topic_filter(app.add_option("--topic", o.topic, "Only this topic's partitions (in log directories)"));
  size_option(app.add_option("--max-decompressed-bytes", o.max_decompressed_bytes,
                              "Largest inner set of a v0/v1 compressed message decompressed to count its messages "
                              "(bytes, or 1G...; default 256M)"),
              1, INT64_MAX);
  app.add_flag("--allow-empty", o.allow_empty, "Exit 0, not 3, for a path with no partition");
  add_progress_flags(app, progress, "shown only when stderr is a terminal");
  if (auto rc = parse_args(app, argc, argv)) return *rc;
  o.json = format != "text";
  o.json_lines = format == "jsonl";
  o.iso_time = time_format == "iso";
  o.progress = progress.wanted();
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-info", run_info(o, out, err));
}

}  // namespace kseg
