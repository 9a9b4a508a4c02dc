// SPDX-License-Identifier: Apache-2.0
// What every kseg tool's command line shares: help pages within 80 columns
// (or a narrower terminal) with options in groups and examples and exit codes
// at the end, -V/--version, and parse errors that name the tool and suggest
// the closest spelling of an unknown option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/ops/common/progress.h"

namespace kseg {

// Option groups, in the order the help lists them.
inline constexpr const char* kGroupKafka = "Kafka-compatible options";
inline constexpr const char* kGroupKseg = "kseg options";
inline constexpr const char* kGroupFilter = "Filters (kseg; a batch shows if any of its records passes all)";
inline constexpr const char* kGroupSafety = "Safety";

// Sets the formatter, the version flag and the footer: `examples` as
// "command  # what it does" lines, then `exit_codes` (one "N  meaning" per line).
void setup_help(CLI::App& app, const char* tool, const std::vector<std::string>& examples,
                const std::vector<std::string>& exit_codes);

// Parses; nullopt when the run goes on, else the exit code (0 after --help
// or --version, 2 after a usage error, reported on stderr).
// Errors are prefixed with the app's name.
//
// Numbers as Kafka reads them: before CLI11 converts the value of an integer
// option (its type INT or UINT, also each item of a vector), the value must be
// a decimal whole number (formats/properties.h parse_number: an optional sign
// and digits; leading zeros mean decimal, so 00000000000000000171 is 171; no
// hex, no octal, not empty) within the option's range: int_range's, else
// the 64-bit range of its sign. CLI11 alone reads 010 as 8, 0x10 as 16 and
// an empty value as 0.
std::optional<int> parse_args(CLI::App& app, int argc, char** argv);

// The values integer option `opt` accepts; refused ones are reported with the
// range. Every option narrower than 64 bits needs one.
CLI::Option* int_range(CLI::Option* opt, int64_t min, int64_t max);

// Options holding a size in bytes, a duration in ms or a time in epoch ms
// that also take them as people write them (lib/units.h, lib/time_text.h):
// "10G", "512MiB"; "7d", "36h", "1h30m"; "2026-12-01T06:45:14Z". The value
// is converted to the whole number before CLI11 reads it, and must lie in
// [min, max] (a time: >= 0).
CLI::Option* size_option(CLI::Option* opt, int64_t min, int64_t max);
CLI::Option* duration_option(CLI::Option* opt, int64_t min, int64_t max);
CLI::Option* time_option(CLI::Option* opt);

// A --topic filter: a name Kafka could have given a topic (Topic.validate:
// 1 to 249 of ASCII letters, digits, '.', '_' and '-', not "." or "..").
CLI::Option* topic_filter(CLI::Option* opt);

// A text option that may not be given empty (a file name, a time): "" is
// refused, never read as "not given".
CLI::Option* not_empty(CLI::Option* opt);

// The candidate closest to `word` when it is close enough to be a typo of
// it (or `word` is a prefix of it); empty otherwise.
std::string closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

// Columns help text is wrapped to.
size_t help_width();

// The progress line's two switches.
struct ProgressFlags {
  bool quiet = false;
  bool force = false;
  // After parsing.
  bool wanted() const { return Progress::wanted(quiet, force); }
};

// -q/--quiet and --progress; `when` ends --quiet's help ("shown ... when
// stderr is a terminal").
inline void add_progress_flags(CLI::App& app, ProgressFlags& f, const char* when) {
  app.add_flag("-q,--quiet", f.quiet, std::string("No progress line on stderr (") + when + ")");
  app.add_flag("--progress", f.force, "Show the progress line even when stdout is a pipe (stderr a terminal)")
      ->excludes("--quiet");
}

}  // namespace kseg
