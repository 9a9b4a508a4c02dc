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

namespace kseg {

struct BackupFlags {
  bool no_backup = false;
  std::string dir;
};

inline void add_dry_run_flag(CLI::App& app, bool& dry_run) {
  app.add_flag("--dry-run,-n", dry_run, "Print the plan; change nothing (exit 1 if it would change something)")
      ->group(kGroupSafety);
}

// nullopt when the run goes on; else the exit code (0 after --help/--version).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  return parse_args(app, argc, argv);
}

inline void add_backup_flags(CLI::App& app, BackupFlags& f) {
  app.add_flag("--no-backup", f.no_backup, "Do not keep the replaced and removed files")->group(kGroupSafety);
  not_empty(app.add_option("--backup-dir", f.dir,
                           "Keep originals in DIR/<partition>-<time> (default: <partition>/.kseg-backup-<time>)"))
      ->group(kGroupSafety);
}

// Runs `run(backup, backup_dir, out, err)` (an exit code) with stdout and
// stderr as sinks; exit 2 when the backup flags conflict.
template <class Run>
int run_writer(const char* tool, const BackupFlags& f, bool dry_run, Run&& run) {
  if (f.no_backup && !f.dir.empty()) {
    std::fprintf(stderr, "%s: --no-backup and --backup-dir exclude each other\n", tool);
    return kExitUsage;
  }
  Sink out(stdout), err(stderr);
  if (!dry_run) safe::install_interrupt_cleanup(tool);
  return exit_after_run(tool, run(!f.no_backup, f.dir, out, err));
}

}  // namespace kseg
