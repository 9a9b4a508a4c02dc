// SPDX-License-Identifier: Apache-2.0
#include "tools/cli/dump_cli.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>

#include "lib/time_text.h"
#include "tools/cli/help.h"
#include "tools/ops/dump/dump.h"
#include "tools/ops/partition/targets.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/common/threads.h"

namespace kseg {

namespace {

bool decoder_from_name(const std::string& name, ValueDecoder& out) {
  auto is = [&](const char* cls) {
    return name == std::string("org.apache.kafka.tools.api.") + cls || name == std::string("kafka.serializer.") + cls;
  };
  if (name.empty() || is("StringDecoder")) out = ValueDecoder::string;
  else if (is("IntegerDecoder")) out = ValueDecoder::integer;
  else if (is("LongDecoder")) out = ValueDecoder::long_int;
  else if (name == "hex") out = ValueDecoder::hex;
  else if (name == "base64") out = ValueDecoder::base64;
  else return false;
  return true;
}

// --files as Kafka reads it: split on ',' without trimming, trailing empty
// items dropped.
std::vector<std::string> kafka_file_list(const std::string& csv) {
  std::vector<std::string> items;
  if (csv.empty()) return items;
  for (size_t start = 0;;) {
    const size_t comma = csv.find(',', start);
    items.push_back(csv.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  while (!items.empty() && items.back().empty()) items.pop_back();
  return items;
}

// The files the paths name, into `files`; an exit status when a path cannot
// be listed (3) or holds nothing to dump without --allow-empty (3).
std::optional<int> add_path_files(const std::vector<std::string>& paths, const DumpFilter& filter, bool allow_empty,
                                  std::vector<std::string>& files) {
  bool empty_path = false;
  for (const auto& p : paths) {
    const Targets expanded = expand_targets({p});
    if (!expanded.errors.empty()) {
      std::fprintf(stderr, "kseg-dump: %s\n", expanded.errors.front().c_str());
      return kExitIo;
    }
    const size_t before = files.size();
    for (const Target& t : expanded.targets) {
      if (t.kind == Target::file) files.push_back(t.path);
      // Filters select records: of a directory, only the segments are read.
      if (t.kind == Target::log_dir && !filter.any())
        for (auto& f : log_dir_state_files(t.path)) files.push_back(std::move(f));
      if (t.kind != Target::partition) continue;
      for (const auto& f : partition_files(t.path, !filter.any()))
        if (!filter.any() || f.ends_with(".log")) files.push_back(f);
    }
    if (files.size() == before && !allow_empty) {
      std::fprintf(stderr, "kseg-dump: %s: nothing to dump: no segment, index or snapshot file in it (--allow-empty "
                   "accepts this)\n", p.c_str());
      empty_path = true;
    }
  }
  if (empty_path) return kExitIo;
  return std::nullopt;
}

// The filters' options given as text until parsed (finish_filter).
struct FilterText {
  std::string from_time, to_time;
  bool no_seek = false;
};

void add_filter_options(CLI::App& app, DumpFilter& filter, FilterText& text) {
  int_range(app.add_option("--from-offset", filter.from_offset, "Records at this offset or later"), 0, INT64_MAX)
      ->group(kGroupFilter);
  int_range(app.add_option("--to-offset", filter.to_offset, "Records at this offset or earlier"), 0, INT64_MAX)
      ->group(kGroupFilter);
  not_empty(app.add_option("--from-time", text.from_time, "Records with this timestamp or later: epoch ms or ISO 8601 "
                           "(UTC unless it says, e.g. 2026-12-02T18:00:00Z)"))->group(kGroupFilter);
  not_empty(app.add_option("--to-time", text.to_time, "Records with this timestamp or earlier (as --from-time)"))
      ->group(kGroupFilter);
  // -1: batches written without a producer id.
  int_range(app.add_option("--producer-id", filter.producer_id, "Batches of this producer id"), -1, INT64_MAX)
      ->group(kGroupFilter);
  app.add_option("--key", filter.key, "Records whose key is exactly these bytes")->group(kGroupFilter);
  app.add_flag("--no-seek", text.no_seek, "Read each .log from its start, not from where its .index points")
      ->group(kGroupFilter);
}

// The times read (false, said on stderr, for one that is neither form).
bool finish_filter(const FilterText& text, DumpFilter& filter) {
  filter.seek = !text.no_seek;
  for (auto [in, out, name] : {std::tuple{&text.from_time, &filter.from_time, "--from-time"},
                               std::tuple{&text.to_time, &filter.to_time, "--to-time"}}) {
    if (in->empty()) continue;
    *out = parse_time_ms(*in);
    if (!*out) {
      std::fprintf(stderr, "kseg-dump: %s: '%s' is neither epoch milliseconds nor an ISO 8601 time "
                   "(2026-12-02T18:00:00Z)\n", name, in->c_str());
      return false;
    }
  }
  return true;
}

// kafka-dump-log's own options in one help group, kseg's in another (the
// filters have theirs).
void group_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string name = opt->get_name();
    if (!opt->nonpositional() || name == "--help" || name == "--version") continue;  // these stay first
    if (opt->get_group() == kGroupFilter) continue;
    const bool kafka = name != "--format" && name != "--threads" && name != "--quiet" && name != "--progress" && name != "--time-format" &&
                       name != "--allow-empty" && name != "--max-decompressed-bytes";
    opt->group(kafka ? kGroupKafka : kGroupKseg);
  }
}

}  // namespace

int dump_main(int argc, char** argv) {
  CLI::App app{
      "Print the files of a Kafka partition directory: segments (.log), indexes (.index, .timeindex, .txnindex),\n"
      "producer snapshots (.snapshot) and KRaft snapshots (.checkpoint). Text output is byte-identical to\n"
      "kafka-dump-log.sh; --format json/jsonl gives every field with byte positions. Beyond it, a directory\n"
      "or file named as a path also prints the checkpoints, partition.metadata, meta.properties and\n"
      "quorum-state; '-' reads a segment from standard input.",
      "kseg-dump"};
  setup_help(app, "kseg-dump",
             {"kseg-dump --files 00000000000000000000.log  # as kafka-dump-log prints it",
              "kseg-dump --deep-iteration --print-data-log orders-0",
              "kseg-dump --format jsonl --deep-iteration orders-0 | jq .offset"},
             {"0  every file read, nothing wrong", "1  problems in the data (CRC, torn tail, bad index entry, ...)",
              "2  usage error", "3  a file could not be read, or nothing to dump"});
  DumpOptions o;
  std::string files_csv, format = "text", key_decoder, value_decoder;
  std::vector<std::string> paths;
  app.add_option("--files", files_csv, "Comma-separated list of files to dump (kafka-dump-log's form)");
  app.add_option("paths", paths, "Files, partition directories or log directories to dump");
  bool allow_empty = false;
  size_option(app.add_option("--max-decompressed-bytes", o.max_decompressed_bytes,
                              "Largest decompressed batch accepted (bytes, or 1G...; default 256M); a larger one is "
                              "reported, not read"),
              1, INT64_MAX);
  app.add_flag("--allow-empty", allow_empty, "Exit 0, not 3, for a directory with nothing to dump");
  app.add_flag("--print-data-log", o.print_data_log, "Print each record's key and value (implies --deep-iteration)");
  app.add_flag("--deep-iteration", o.deep_iteration, "Print every record, decompressing batches");
  app.add_flag("--verify-index-only", o.verify_index_only, "Check index entries against the log without printing them");
  app.add_flag("--index-sanity-check", o.index_sanity_check, "Only run Kafka's index sanity check");
  app.add_flag("--skip-record-metadata", o.skip_record_metadata, "Omit offsets, timestamps and sizes in record lines");
  // kafka-dump-log's Integer options: any int, as Kafka takes them (a negative
  // --max-bytes is reported as Kafka reports it).
  int_range(app.add_option("--max-message-size", o.max_message_size,
                           "Largest batch expected at an index position (default 5242880)"),
            INT32_MIN, INT32_MAX);
  int_range(app.add_option("--max-bytes", o.max_bytes, "Read only the first N bytes of each .log/.checkpoint file"),
            INT32_MIN, INT32_MAX);
  int_range(app.add_option("--threads", o.threads, "Threads printing a .log (default: one per CPU; output is the same)"),
            1, INT32_MAX);
  auto* kd = app.add_option("--key-decoder-class", key_decoder,
                            "Key decoder: org.apache.kafka.tools.api. (or kafka.serializer.) StringDecoder, IntegerDecoder or "
                            "LongDecoder; or hex or base64")
                 ->expected(0, 1);
  auto* vd = app.add_option("--value-decoder-class", value_decoder, "Value decoder (as --key-decoder-class)")
                 ->expected(0, 1);
  bool offsets = false, txn_log = false, cluster_metadata = false, share_state = false, remote_log = false;
  app.add_flag("--offsets-decoder", offsets, "Parse records as __consumer_offsets records");
  app.add_flag("--transaction-log-decoder", txn_log, "Parse records as __transaction_state records");
  app.add_flag("--cluster-metadata-decoder", cluster_metadata, "Parse records as KRaft metadata records");
  app.add_flag("--remote-log-metadata-decoder", remote_log,
               "Parse records as __remote_log_metadata records (tiered storage's segment metadata)");
  app.add_flag("--share-group-state-decoder", share_state, "Parse records as __share_group_state records");
  DumpFilter& filter = o.filter;
  FilterText filter_text;
  add_filter_options(app, filter, filter_text);
  std::string time_format = "ms";
  app.add_option("--time-format", time_format, "Timestamps in JSON output: ms (default) or iso (refused with text, which stays Kafka's)")
      ->check(CLI::IsMember({"ms", "iso"}));
  ProgressFlags progress;
  add_progress_flags(app, progress, "shown only when stderr is a terminal");
  app.add_option("--format", format, "Output format: text (kafka-dump-log's), json or jsonl")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  group_options(app);
  if (auto rc = parse_args(app, argc, argv)) return *rc;
  o.progress = progress.wanted();
  o.threads = capped_threads("kseg-dump", o.threads);
  o.time_format = time_format == "iso" ? TimeFormat::iso : TimeFormat::ms;
  if (o.time_format == TimeFormat::iso && format == "text") {
    std::fprintf(stderr, "kseg-dump: --time-format iso applies to --format json or jsonl: the text output stays "
                         "Kafka's, byte for byte\n");
    return kExitUsage;
  }
  if (!finish_filter(filter_text, filter)) return kExitUsage;
  o.files = kafka_file_list(files_csv);
  o.kafka_form_files = o.files.size();
  if (auto rc = add_path_files(paths, filter, allow_empty, o.files)) return *rc;
  if (o.files.empty()) {
    if (!paths.empty()) return kExitOk;  // --allow-empty
    std::fprintf(stderr, "kseg-dump: nothing to dump: give --files or paths (see --help)\n");
    return kExitUsage;
  }
  if (!decoder_from_name(key_decoder, o.key_decoder) || !decoder_from_name(value_decoder, o.value_decoder)) {
    std::fprintf(stderr,
                 "kseg-dump: unknown decoder class '%s'; kseg-dump decodes with StringDecoder, IntegerDecoder or "
                 "LongDecoder (of org.apache.kafka.tools.api or kafka.serializer), hex or base64\n",
                 (decoder_from_name(key_decoder, o.key_decoder) ? value_decoder : key_decoder).c_str());
    return kExitUsage;
  }
  if (offsets) o.parser = RecordParser::offsets;
  else if (txn_log) o.parser = RecordParser::transaction_log;
  else if (cluster_metadata) o.parser = RecordParser::cluster_metadata;
  else if (remote_log) o.parser = RecordParser::remote_log_metadata;
  else if (share_state) o.parser = RecordParser::share_group_state;
  // As in Kafka: any decoder option turns printing on; printing implies deep iteration.
  if (o.parser != RecordParser::plain || kd->count() > 0 || vd->count() > 0) o.print_data_log = true;
  if (o.print_data_log) o.deep_iteration = true;
  o.format = format == "json" ? OutputFormat::json : format == "jsonl" ? OutputFormat::jsonl : OutputFormat::text;
  Sink out(stdout), err(stderr);
  return exit_after_run("kseg-dump", run_dump(o, out, err));
}

}  // namespace kseg
