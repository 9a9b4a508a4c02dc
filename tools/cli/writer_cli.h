// SPDX-License-Identifier: Apache-2.0
// What the command lines of the kseg tools that write share: the backup
// options, and the run itself under the interrupt cleanup.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/cli/help.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/write/safe_write.h"
#include "tools/ops/write/writer_run.h"

namespace kseg {

// The flags every writer shares that are not fields of WriterOptions as
// they are; run_writer puts them there.
struct WriterFlags {
  bool no_backup = false;
  std::string backup_dir;
  int32_t partition = -1;
  CLI::Option* partition_opt = nullptr;
};

// --topic and --partition, for a tool given log directories.
inline void add_partition_filter(CLI::App& app, WriterOptions& o, WriterFlags& f) {
  topic_filter(app.add_option("--topic", o.topic, "With a log directory: only this topic's partitions"));
  f.partition_opt =
      int_range(app.add_option("--partition", f.partition, "With a log directory: only this partition number"), 0,
                INT32_MAX);
}

// --allow-empty; `what` ends its help: "a path with <what>".
inline void add_allow_empty_flag(CLI::App& app, WriterOptions& o, const char* what) {
  app.add_flag("--allow-empty", o.allow_empty, std::string("Exit 0, not 3, for a path with ") + what);
}

// --format text|json|jsonl (the one convention of every tool;
// formats/kseg-<tool>.schema.json), and --json, its older spelling.
inline void add_format_option(CLI::App& app, WriterOptions& o) {
  app.add_option_function<std::string>(
         "--format",
         [&o](const std::string& f) {
           o.json = f != "text";
           o.json_lines = f == "jsonl";
         },
         "Output: text (default); json: the plan and what was done, on stdout; jsonl: a document per partition "
         "on one line, as each ends")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  app.add_flag("--json", o.json, "The same as --format json");
}

inline void add_plan_flags(CLI::App& app, WriterOptions& o) {
  app.add_flag("--dry-run,-n", o.dry_run, "Print the plan; change nothing (exit 1 if it would change something)")
      ->group(kGroupSafety);
  app.add_flag("-v,--verbose", o.verbose,
               "Also print each step of the plan, file by file, before each partition's summary");
}

// nullopt when the run goes on; else the exit code (0 after --help/--version).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  return parse_args(app, argc, argv);
}

inline void add_backup_flags(CLI::App& app, WriterFlags& f) {
  app.add_flag("--no-backup", f.no_backup, "Do not keep the replaced and removed files")->group(kGroupSafety);
  not_empty(app.add_option("--backup-dir", f.backup_dir,
                           "Keep originals in DIR/<partition>-<time> (default: <partition>/.kseg-backup-<time>)"))
      ->group(kGroupSafety);
}

// Puts the flags into `o`, then runs `run(out, err)` (an exit code) with
// stdout and stderr as sinks; exit 2 when the backup flags conflict.
template <class Run>
int run_writer(const char* tool, const WriterFlags& f, WriterOptions& o, Run&& run) {
  if (f.no_backup && !f.backup_dir.empty()) {
    std::fprintf(stderr, "%s: --no-backup and --backup-dir exclude each other\n", tool);
    return kExitUsage;
  }
  o.backup = !f.no_backup;
  o.backup_dir = f.backup_dir;
  if (f.partition_opt && *f.partition_opt) o.partition = f.partition;
  Sink out(stdout), err(stderr);
  if (!o.dry_run) safe::install_interrupt_cleanup(tool);
  return exit_after_run(tool, run(out, err));
}

}  // namespace kseg
