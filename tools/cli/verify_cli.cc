// SPDX-License-Identifier: Apache-2.0
#include "tools/cli/verify_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "tools/cli/check_flags.h"
#include "tools/cli/help.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_problem.h"
#include "tools/ops/common/problem.h"

namespace kseg {

namespace {

// `text` in lines of at most 80 columns, each indented by four spaces.
void print_wrapped(std::string_view text) {
  constexpr size_t kWidth = 80 - 4;
  while (!text.empty()) {
    size_t n = text.size() <= kWidth ? text.size() : text.rfind(' ', kWidth);
    if (n == std::string_view::npos || n == 0) n = std::min(text.size(), kWidth);
    std::printf("    %.*s\n", static_cast<int>(n), text.data());
    text.remove_prefix(n);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
}

// Each code on a line of its own with its severity, then what it means and
// what fixes it, within 80 columns.
void list_codes() {
  for (const auto& c : problem_codes()) {
    std::printf("%s  %s\n", c.code, severity_name(c.severity));
    print_wrapped(c.summary);
    print_wrapped(std::string("fix: ") + c.remedy);
  }
}

}  // namespace

int verify_main(int argc, char** argv) {
  CLI::App app{
      "Check Kafka segment, index and state files -- one file, a partition directory or a whole log dir -- and\n"
      "report each problem with a stable code, severity, file, byte position, expected and found. Read-only.",
      "kseg-verify"};
  setup_help(app, "kseg-verify",
             {"kseg-verify /var/lib/kafka/data             # a whole log dir",
              "kseg-verify --deep orders-0                 # also decode compressed records",
              "kseg-verify --format json --fail-on warning orders-0/00000000000000000000.log"},
             {"0  no problem at or above --fail-on (default error)", "1  problems at or above that level",
              "2  usage error", "3  a file could not be read, or nothing to check"});
  VerifyOptions o;
  std::string format = "text", fail_on = "error";
  bool codes = false;
  app.add_option("paths", o.paths, "Files, partition directories or log directories");
  CheckFlags check(1000);
  add_check_flags(app, check, o.max_decompressed_bytes, o.threads);
  app.add_option("--format", format, "Output: text (default), json, or jsonl (a document per target, one line "
                 "each, then one for the run)")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  app.add_option("--fail-on", fail_on, "Exit 1 for problems at or above: error (default), warning or info")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  app.add_flag("-v,--verbose", o.show_info, "Also print info findings in the text report");
  size_option(app.add_option("--max-bytes", o.max_bytes, "Read at most N bytes of each .log file (bytes, or 10G...)"), 1,
              INT64_MAX);
  app.add_flag("--allow-empty", o.allow_empty,
               "Exit 0, not 3, for a path with nothing to check (an empty directory, a file of no known kind)");
  app.add_flag("--list-codes", codes, "Print every problem code with its severity and exit");
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown only when stderr is a terminal");
  if (auto rc = parse_args(app, argc, argv)) return *rc;
  if (codes) {
    list_codes();
    return kExitOk;
  }
  const auto depth = apply_check_flags("kseg-verify", check, o.threads);
  if (!depth) return kExitUsage;
  if (o.paths.empty()) {
    std::fprintf(stderr, "kseg-verify: nothing to verify: give files or directories (see --help)\n");
    return kExitUsage;
  }
  o.depth = *depth;
  o.format = format == "json" ? VerifyFormat::json : format == "jsonl" ? VerifyFormat::jsonl : VerifyFormat::text;
  o.fail_on = fail_on == "warning" ? Severity::warning : fail_on == "info" ? Severity::info : Severity::error;
  o.progress = progress.wanted();
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-verify", run_verify(o, out, err));
}

}  // namespace kseg
