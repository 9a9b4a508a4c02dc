// SPDX-License-Identifier: Apache-2.0
// kseg-excise's command line: selectors and options into ExciseOptions, then run_excise.
#include "tools/cli/excise_cli.h"

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/cli/writer_cli.h"
#include "tools/ops/common/ask.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/excise/excise.h"

namespace kseg {

namespace {

constexpr const char* kSelectors = "Selectors (a record goes when every one given matches it)";

std::optional<int64_t> whole(std::string_view s) {
  int64_t v = 0;
  if (s.empty() || s.size() > 19) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;  // decimal only: "010" is ten, never octal
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::string> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, v, 16);
    if (ec != std::errc() || p != hex.data() + i + 2) return std::nullopt;
    out.push_back(static_cast<char>(v));
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::pair<int64_t, int64_t>>> parse_offset_list(const std::string& text) {
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item(text.data() + at, comma - at);
    const size_t dots = item.find("..");
    if (dots == std::string_view::npos) {
      auto v = whole(item);
      if (!v) return std::nullopt;
      out.emplace_back(*v, *v);
    } else {
      auto a = whole(item.substr(0, dots));
      const std::string_view rest = item.substr(dots + 2);
      auto b = rest.empty() ? std::optional<int64_t>(INT64_MAX) : whole(rest);
      if (!a || !b || *b < *a) return std::nullopt;
      out.emplace_back(*a, *b);
    }
    at = comma + 1;
  }
  return out;
}

int excise_main(int argc, char** argv) {
  CLI::App app{
      "Remove chosen records from Kafka partitions offline, every other record at its offset: a poison pill, a\n"
      "leaked secret, an erased person's data. Each batch holding a chosen record is rebuilt as Kafka's log\n"
      "cleaner rebuilds the batches it filters (same base offset, last offset, producer and leader epoch; kept\n"
      "empty when all its records go); every other batch is copied byte for byte, and the segment's indexes\n"
      "rebuilt as Kafka's recovery writes them. Consumers see a gap, as after compaction. Run it on every\n"
      "replica, brokers stopped, or the record comes back from a replica that has it.",
      "kseg-excise"};
  setup_help(app, "kseg-excise",
             {"kseg-excise --dry-run --offsets 1234 orders-0        # what would go",
              "kseg-excise --yes --offsets 1234 orders-0           # remove offset 1234",
              "kseg-excise --yes --key '^user-42$' --digest orders-0  # the digest: replicas"},
             {"0  done, or nothing selected", "1  with --dry-run: records would be removed; else refused on the data",
              "2  usage error (no selector, a bad list or regex, no --yes without a terminal)",
              "3  a file unreadable or unwritable, the log dir locked, or the records changed"});
  ExciseOptions o;
  WriterFlags flags;
  std::string offsets, key_hex, header;
  bool yes = false;
  app.add_option("paths", o.paths, "Partition directories or log directories")->required();
  auto* off = app.add_option("--offsets", offsets, "Records at these offsets: A, A..B (inclusive), A.. (to the end), "
                                                   "comma-separated")->group(kSelectors);
  not_empty(app.add_option("--key", o.select.key_regex,
                           "Records whose key matches this regular expression (ECMAScript; ^...$ for the whole key)"))
      ->group(kSelectors);
  auto* kh = not_empty(app.add_option("--key-hex", key_hex, "Records whose key is exactly these bytes, in hex"))
                 ->group(kSelectors);
  not_empty(app.add_option("--header", header,
                           "Records with a header of this name, whose value matches REGEX if NAME=REGEX is given"))
      ->group(kSelectors);
  int_range(app.add_option("--producer-id", o.select.producer_id, "Records of this producer id"), 0, INT64_MAX)
      ->group(kSelectors);
  not_empty(app.add_option("--value-contains", o.select.value_contains, "Records whose value holds these bytes"))
      ->group(kSelectors);
  time_option(app.add_option("--from-time", o.select.from_time, "Records with this timestamp or later: epoch ms or "
                                                                 "ISO 8601"))
      ->group(kSelectors);
  time_option(app.add_option("--to-time", o.select.to_time, "Records with this timestamp or earlier (as --from-time)"))
      ->group(kSelectors);
  not_empty(app.add_option("--topic-config", o.topic_config,
                           "A properties file of the topic's configs (index.interval.bytes, segment.index.bytes)"));
  not_empty(app.add_option("--broker-config", o.broker_config, "The broker's server.properties (its log.* defaults)"));
  app.add_flag("--digest", o.digest,
               "Print a digest of the partition's .log files after the run: equal on replicas excised alike");
  app.add_flag("--yes,-y", yes, "Write without asking (a script must give it)")->group(kGroupSafety);
  add_partition_filter(app, o, flags);
  add_plan_flags(app, o);
  add_format_option(app, o);
  add_allow_empty_flag(app, o, "no partition");
  add_backup_flags(app, flags);
  kh->excludes(app.get_option("--key"));
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  if (*off) {
    auto list = parse_offset_list(offsets);
    if (!list) {
      std::fprintf(stderr, "kseg-excise: --offsets %s: not a list of offsets (A, A..B or A.., comma-separated)\n",
                   offsets.c_str());
      return kExitUsage;
    }
    o.select.offsets = std::move(*list);
  }
  if (*kh) {
    auto bytes = from_hex(key_hex);
    if (!bytes) {
      std::fprintf(stderr, "kseg-excise: --key-hex %s: not hex digits in pairs\n", key_hex.c_str());
      return kExitUsage;
    }
    o.select.key = std::move(*bytes);
  }
  if (!header.empty()) {
    const size_t eq = header.find('=');
    o.select.header_name = header.substr(0, eq);
    if (eq != std::string::npos) o.select.header_regex = header.substr(eq + 1);
  }
  if (!o.select.any()) {
    std::fprintf(stderr, "kseg-excise: say which records go: --offsets, --key, --key-hex, --header, --producer-id, "
                         "--value-contains, --from-time or --to-time\n");
    return kExitUsage;
  }
  // Nothing is removed on a guess: the chosen records are shown and asked about on a terminal,
  // and a script says --yes.
  std::map<std::string, std::string> shown;  // what the terminal was shown, for the run that writes
  if (!o.dry_run && !yes) {
    if (!can_ask()) {
      std::fprintf(stderr, "kseg-excise: it asks before it writes, and there is no terminal to ask on: give --yes "
                           "(--dry-run lists what it removes)\n");
      return kExitUsage;
    }
    ExciseOptions look = o;
    look.dry_run = true;
    look.json = false;
    look.shown = o.shown = &shown;
    const int rc = run_writer("kseg-excise", flags, look, [&](Sink& out, Sink& err) { return run_excise(look, out, err); });
    if (rc != kExitProblems) return rc;  // nothing selected, or an error
    if (!ask_yes("kseg-excise", "remove the records above (the originals kept unless --no-backup)?")) {
      std::fprintf(stderr, "kseg-excise: nothing written\n");
      return kExitProblems;
    }
  }
  return run_writer("kseg-excise", flags, o, [&](Sink& out, Sink& err) { return run_excise(o, out, err); });
}

}  // namespace kseg
