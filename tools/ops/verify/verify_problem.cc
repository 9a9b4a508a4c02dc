#include "tools/ops/verify/verify_problem.h"

#include <cstring>

namespace kseg {

namespace {

using S = Severity;

// Severities follow what Kafka does with the finding: what it writes itself
// or reads back unchanged is info, what it silently discards or repairs at
// start-up without losing data is a warning, anything that loses data, stops
// a broker or makes it serve wrong answers is an error.
constexpr CodeInfo kCodes[] = {
    {"log.crc_mismatch", S::error, "batch CRC (CRC-32C for v2, CRC-32 for v0/v1) differs from the stored one"},
    {"log.bad_magic", S::error, "magic byte is not 0, 1 or 2"},
    {"log.bad_size", S::error, "a batch size field is impossible (below the minimum, or runs past the end of a non-active segment)"},
    {"log.torn_tail", S::error, "the last batch of the active segment is incomplete (torn write); recovery truncates it"},
    {"log.zero_tail", S::error, "zero bytes where a batch should start (crash before data reached disk); recovery truncates them"},
    {"log.preallocated_tail", S::info, "zero-filled tail of an active segment of a page-multiple size (preallocate=true)"},
    {"log.trailing_garbage", S::error, "non-zero bytes after the last batch that do not form a batch"},
    {"log.bad_codec", S::error, "compression codec id unknown for the magic"},
    {"log.record_decode", S::error, "a record does not decode (bad varint, length, header) or decompression fails"},
    {"log.record_count", S::error, "recordsCount differs from the records decoded"},
    {"log.offset_delta", S::error, "record offset deltas not increasing or beyond lastOffsetDelta"},
    {"log.max_timestamp", S::error, "maxTimestamp differs from the largest record timestamp (CreateTime)"},
    {"log.producer_fields", S::warning, "producer id, epoch, sequence and transactional flag inconsistent"},
    {"log.offset_order", S::error, "offsets not strictly increasing within or across batches or segments"},
    {"log.below_base_offset", S::error, "an offset below the segment's base offset (from its file name)"},
    {"log.offset_overflow", S::error, "an offset more than 2^31-1 above the segment's base offset"},
    {"log.epoch_regression", S::warning, "partitionLeaderEpoch smaller than an earlier batch's"},
    {"log.max_bytes", S::info, "only the first --max-bytes of the file were checked"},
    {"index.size", S::error, ".index size is not a multiple of 8"},
    {"index.not_increasing", S::error, ".index offsets not strictly increasing or positions decreasing"},
    {"index.entry_mismatch", S::error, ".index entry does not point at the start of the batch holding its offset"},
    {"index.past_log_end", S::error, ".index entry beyond the data of the .log"},
    {"index.preallocated", S::info, "active segment's .index still preallocated (zero tail); Kafka 4.4 leaves it so"},
    {"index.untrimmed", S::warning, "non-active segment's .index has a zero tail Kafka would count as entries"},
    {"index.missing", S::warning, "non-empty .log without .index; the broker rebuilds it at start-up"},
    {"timeindex.size", S::error, ".timeindex size is not a multiple of 12"},
    {"timeindex.not_monotonic", S::error, ".timeindex timestamps not strictly increasing or offsets decreasing"},
    {"timeindex.entry_mismatch", S::error, ".timeindex entry is not the running max timestamp of the log and its batch"},
    {"timeindex.final_entry", S::error, "last .timeindex entry is not the segment's max timestamp (retention uses it)"},
    {"timeindex.past_log_end", S::error, ".timeindex offset beyond the last offset of the .log"},
    {"timeindex.preallocated", S::info, "active segment's .timeindex still preallocated (zero tail)"},
    {"timeindex.untrimmed", S::warning, "non-active segment's .timeindex has a zero tail"},
    {"timeindex.missing", S::warning, ".log with .index but no .timeindex; the broker creates it empty, not rebuilt"},
    {"txnindex.size", S::error, ".txnindex size is not a multiple of 34 (the broker would append misaligned)"},
    {"txnindex.bad_version", S::error, "AbortedTxn version is not 0 (the broker fails to load the segment)"},
    {"txnindex.below_base", S::error, "AbortedTxn lastOffset below the segment's base offset (sanity check fails)"},
    {"txnindex.not_increasing", S::error, "AbortedTxn lastOffset not strictly increasing"},
    {"txnindex.missing_abort", S::error, "an aborted transaction's ABORT marker has no .txnindex entry (READ_COMMITTED sees aborted data)"},
    {"txnindex.unexpected_entry", S::error, ".txnindex entry with no matching ABORT marker"},
    {"txnindex.entry_mismatch", S::error, ".txnindex entry fields differ from the ones replaying the log gives"},
    {"snapshot.corrupt", S::error, "producer snapshot fails Kafka's schema validation"},
    {"snapshot.crc", S::error, "producer snapshot CRC-32C differs from the stored one"},
    {"snapshot.past_log_end", S::warning, "producer snapshot above the log end offset; the broker deletes it"},
    {"snapshot.mismatch", S::error, "producer snapshot entry disagrees with the producer's last batch in the log"},
    {"epoch.corrupt", S::error, "leader-epoch-checkpoint unreadable or epochs/offsets not increasing"},
    {"epoch.mismatch", S::error, "leader-epoch-checkpoint start offset differs from the first batch of that epoch"},
    {"epoch.missing", S::warning, "a leader epoch present in the batches is missing from leader-epoch-checkpoint"},
    {"epoch.past_log_end", S::warning, "leader-epoch-checkpoint entry above the log end offset; the broker truncates it"},
    {"partition_metadata.corrupt", S::error, "partition.metadata unreadable by Kafka"},
    {"checkpoint.corrupt", S::error, "root offset checkpoint unreadable (the broker marks the log dir failed)"},
    {"checkpoint.past_log_end", S::error, "root checkpoint offset above the partition's log end offset"},
    {"meta.corrupt", S::error, "meta.properties unreadable by Kafka"},
    {"dir.bad_name", S::error, "directory name not <topic>-<partition> (the broker refuses to start)"},
    {"dir.file_name", S::error, "segment file name prefix is not a 20-digit offset"},
    {"dir.leftover_swap", S::warning, ".swap file left by an interrupted clean/split; completed at start-up"},
    {"dir.leftover_cleaned", S::warning, ".cleaned file left by an interrupted clean; deleted at start-up"},
    {"dir.leftover_deleted", S::info, ".deleted file awaiting asynchronous deletion"},
    {"dir.leftover_tmp", S::warning, ".tmp file left by an interrupted checkpoint write"},
    {"dir.orphan_index", S::warning, "index file without its .log; deleted at start-up"},
    {"dir.unknown_file", S::info, "file kseg does not know in a partition directory"},
};

}  // namespace

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

std::span<const CodeInfo> problem_codes() { return kCodes; }

const CodeInfo* find_code(const std::string& code) {
  for (const auto& c : kCodes)
    if (code == c.code) return &c;
  return nullptr;
}

void Findings::add(const std::string& code, const std::string& file, Position position, std::string message,
                   std::string expected, std::string found) {
  const CodeInfo* info = find_code(code);
  add(info ? info->severity : Severity::error, code, file, position, std::move(message), std::move(expected),
      std::move(found));
}

void Findings::add(Severity s, const std::string& code, const std::string& file, Position position,
                   std::string message, std::string expected, std::string found) {
  problems.push_back(Problem{s, code, file, position.value, std::move(message), std::move(expected), std::move(found)});
}

FileResult& Findings::file(const std::string& path, const char* kind) {
  for (auto& f : files)
    if (f.file == path) return f;
  files.push_back(FileResult{path, kind});
  return files.back();
}

}  // namespace kseg
