#include "tools/cli/verify_cli.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/ops/common/sink.h"
#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_problem.h"
#include "tools/ops/common/problem.h"

namespace kseg {

namespace {

void list_codes() {
  for (const auto& c : problem_codes()) std::printf("%-28s %-8s %s\n", c.code, severity_name(c.severity), c.summary);
}

}  // namespace

int verify_main(int argc, char** argv) {
  CLI::App app{
      "Check Kafka segment, index and state files -- one file, a partition directory or a whole log dir -- and\n"
      "report each problem with a stable code, severity, file, byte position, expected and found. Read-only.",
      "kseg-verify"};
  app.set_version_flag("--version", std::string("kseg-verify ") + KSEG_VERSION);
  VerifyOptions o;
  std::string format = "text", fail_on = "error";
  bool quick = false, deep = false, codes = false;
  app.add_option("paths", o.paths, "Files, partition directories or log directories");
  app.add_flag("--quick", quick, "Batch headers and CRCs only (no record decoding)");
  app.add_flag("--deep", deep, "Also decompress and decode every record of compressed batches");
  app.add_option("--format", format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--fail-on", fail_on, "Exit 1 for problems at or above: error (default), warning or info")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  app.add_flag("-v,--verbose", o.show_info, "Also print info findings in the text report");
  app.add_option("--max-bytes", o.max_bytes, "Read at most N bytes of each .log file")->check(CLI::PositiveNumber);
  app.add_option("--max-decompressed-bytes", o.max_decompressed_bytes,
                 "Largest decompressed batch accepted (default 268435456)");
  app.add_option("--threads", o.threads, "Partitions checked in parallel (default: one per CPU)");
  size_t max_problems = 1000;
  app.add_option("--max-problems", max_problems,
                 "Problems of one code kept and printed per file; the rest are counted in a summary line (default 1000, 0: all)");
  app.add_flag("--allow-empty", o.allow_empty,
               "Exit 0, not 3, for a path with nothing to check (an empty directory, a file of no known kind)");
  app.add_flag("--list-codes", codes, "Print every problem code with its severity and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (codes) {
    list_codes();
    return kExitOk;
  }
  if (quick && deep) {
    std::fprintf(stderr, "kseg-verify: --quick and --deep exclude each other\n");
    return kExitUsage;
  }
  if (o.paths.empty()) {
    std::fprintf(stderr, "kseg-verify: nothing to verify: give files or directories (see --help)\n");
    return kExitUsage;
  }
  Findings::set_max_per_file(max_problems);
  o.depth = quick ? VerifyDepth::quick : deep ? VerifyDepth::deep : VerifyDepth::normal;
  o.format = format == "json" ? VerifyFormat::json : VerifyFormat::text;
  o.fail_on = fail_on == "warning" ? Severity::warning : fail_on == "info" ? Severity::info : Severity::error;
  o.progress = isatty(STDERR_FILENO) != 0 && o.format == VerifyFormat::text;
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-verify", run_verify(o, out, err));
}

}  // namespace kseg
