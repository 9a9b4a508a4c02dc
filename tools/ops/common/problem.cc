// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/problem.h"

#include <cctype>
#include <iterator>

#include <fmt/format.h>

namespace kseg {

namespace {

using S = Severity;

// Severities follow what Kafka does with the finding: what it writes itself
// or reads back unchanged is info, what it silently discards or repairs at
// start-up without losing data is a warning, anything that loses data, stops
// a broker or makes it serve wrong answers is an error.
constexpr CodeInfo kCodes[] = {
    {Code::log_crc_mismatch, "log.crc_mismatch", S::error, "batch CRC (CRC-32C for v2, CRC-32 for v0/v1) differs from the stored one", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_bad_magic, "log.bad_magic", S::error, "magic byte is not 0, 1 or 2", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_bad_size, "log.bad_size", S::error, "a batch size field is impossible (below the minimum, or runs past the end of a non-active segment)", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_torn_tail, "log.torn_tail", S::error, "the last batch of the active segment is incomplete (torn write); recovery truncates it", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_zero_tail, "log.zero_tail", S::error, "zero bytes where a batch should start (crash before data reached disk); recovery truncates them", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_preallocated_tail, "log.preallocated_tail", S::info, "zero-filled tail of an active segment of a page-multiple size (preallocate=true)", "none: Kafka writes or reads it so"},
    {Code::log_trailing_garbage, "log.trailing_garbage", S::error, "non-zero bytes after the last batch that do not form a batch", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_bad_codec, "log.bad_codec", S::error, "compression codec id unknown for the magic", "no kseg repair: Kafka keeps the batch (its CRC holds) and consumers fail on it; move their groups past it (kafka-consumer-groups.sh --reset-offsets --to-offset LAST+1)"},
    {Code::log_record_decode, "log.record_decode", S::error, "a record does not decode (bad varint, length, header) or decompression fails", "no kseg repair: Kafka keeps the batch (its CRC holds) and consumers fail on it; move their groups past it (kafka-consumer-groups.sh --reset-offsets --to-offset LAST+1)"},
    {Code::log_unknown_tagged_fields, "log.unknown_tagged_fields", S::info, "an internal topic's record carries tagged fields Kafka 4.4.0's schema does not name (a newer Kafka's): the text prints it as Kafka 4.4.0 does, without them; JSON keeps them (unknown_tagged_fields)", "none: kseg-dump --format json shows them"},
    {Code::log_record_count, "log.record_count", S::error, "recordsCount differs from the records decoded", "no kseg repair: Kafka keeps the batch (its CRC holds) and consumers fail on it; move their groups past it (kafka-consumer-groups.sh --reset-offsets --to-offset LAST+1)"},
    {Code::log_offset_delta, "log.offset_delta", S::error, "record offset deltas not increasing or beyond lastOffsetDelta", "no kseg repair: Kafka keeps the batch (its CRC holds) and consumers fail on it; move their groups past it (kafka-consumer-groups.sh --reset-offsets --to-offset LAST+1)"},
    {Code::log_max_timestamp, "log.max_timestamp", S::error, "maxTimestamp differs from the largest record timestamp (CreateTime)", "no kseg repair: Kafka keeps the batch; time-based lookups and retention read the stored maxTimestamp"},
    {Code::log_producer_fields, "log.producer_fields", S::warning, "producer id, epoch, sequence and transactional flag inconsistent", "none needed: Kafka accepts the batch"},
    {Code::log_offset_order, "log.offset_order", S::error, "offsets not strictly increasing within or across batches or segments", "within a segment: kseg reindex --salvage (cuts out batches out of offset order); a batch reaching into the next segment's offsets: by hand (kseg dump both segments)"},
    {Code::log_below_base_offset, "log.below_base_offset", S::error, "an offset below the segment's base offset (from its file name)", "kseg reindex --salvage"},
    {Code::log_offset_overflow, "log.offset_overflow", S::error, "an offset more than 2^31-1 above the segment's base offset", "kseg reindex --salvage (Kafka's own recovery fails on it)"},
    {Code::log_epoch_regression, "log.epoch_regression", S::warning, "partitionLeaderEpoch smaller than an earlier batch's", "none needed: Kafka accepts it"},
    {Code::log_max_bytes, "log.max_bytes", S::info, "only the first --max-bytes of the file were checked", "check the rest: run again without --max-bytes"},
    {Code::log_bad_control, "log.bad_control", S::error, "control batch whose first record is no transaction marker; recovery keeps it and stops after it", "kseg reindex --salvage (keeps every valid batch) or --recover (as Kafka's unclean start-up); a plain kseg reindex says what each removes"},
    {Code::log_unrecoverable, "log.unrecoverable", S::error, "Kafka's recovery throws on the segment (an offset beyond 2^31-1 of the base, index full): the broker fails loading it", "kseg reindex --salvage (Kafka's own recovery fails on it)"},
    {Code::index_size, "index.size", S::error, ".index size is not a multiple of 8 (nor of 12)", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::index_not_increasing, "index.not_increasing", S::error, ".index offsets not strictly increasing or positions decreasing", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::index_entry_mismatch, "index.entry_mismatch", S::error, ".index entry does not point at the start of the batch holding its offset", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::index_append_entry, "index.append_entry", S::info, ".index entry names the last offset of a multi-batch append at its first batch (a follower, the cleaner, a 2.x broker's v0/v1 append of several messages); DumpLogSegments reports it as a mismatch", "none: Kafka writes or reads it so"},
    {Code::index_past_log_end, "index.past_log_end", S::error, ".index entry beyond the data of the .log", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::index_wide_entries, "index.wide_entries", S::warning, ".index of 12-byte entries (KIP-1333, experimental: no Kafka release writes them); Kafka 4.4 reads it as 8-byte entries after a clean shutdown (lookups at the wrong positions) and rebuilds it only when it recovers the segment", "kseg reindex --index-entry-bytes 8 (for any Kafka release)"},
    {Code::index_preallocated, "index.preallocated", S::info, "active segment's .index still preallocated (zero tail); Kafka 4.4 leaves it so", "none: Kafka writes or reads it so"},
    {Code::index_untrimmed, "index.untrimmed", S::warning, "non-active segment's .index has a zero tail Kafka would count as entries", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::index_missing, "index.missing", S::warning, "non-empty .log without .index; the broker rebuilds it at start-up", "none needed: the broker rebuilds it at start-up (kseg reindex does it now)"},
    {Code::timeindex_size, "timeindex.size", S::error, ".timeindex size is not a multiple of 12", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_not_monotonic, "timeindex.not_monotonic", S::error, ".timeindex timestamps not strictly increasing or offsets decreasing", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_entry_mismatch, "timeindex.entry_mismatch", S::error, ".timeindex entry is not the running max timestamp of the log and its batch", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_final_entry, "timeindex.final_entry", S::error, "last .timeindex entry is not the segment's max timestamp (retention uses it)", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_past_log_end, "timeindex.past_log_end", S::error, ".timeindex offset beyond the last offset of the .log", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_preallocated, "timeindex.preallocated", S::info, "active segment's .timeindex still preallocated (zero tail)", "none: Kafka writes or reads it so"},
    {Code::timeindex_preallocated_loaded, "timeindex.preallocated_loaded", S::error, "active segment's .timeindex still preallocated (zero tail) in a log dir shut down cleanly: Kafka loads the zeros as entries, rolls the segment at the next append and leaves it untrimmed (timeindex.untrimmed)", "kseg reindex (trims it to its entries)"},
    {Code::timeindex_untrimmed, "timeindex.untrimmed", S::error, "non-active segment's .timeindex has a zero tail: Kafka reads the segment's largest timestamp as 0, and its first time-retention pass deletes the segment (KAFKA-10207)", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_missing, "timeindex.missing", S::warning, ".log with .index but no .timeindex; the broker creates it empty, not rebuilt", "kseg reindex (rebuilds it as Kafka's recovery writes it)"},
    {Code::timeindex_empty_batch, "timeindex.empty_batch", S::info, ".timeindex entry names a batch the cleaner emptied (kept for its producer's state); DumpLogSegments reports its timestamp as -1", "none: Kafka writes or reads it so"},
    {Code::txnindex_size, "txnindex.size", S::error, ".txnindex size is not a multiple of 34 (the broker would append misaligned)", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_bad_version, "txnindex.bad_version", S::error, "AbortedTxn version is not 0 (the broker fails to load the segment)", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_below_base, "txnindex.below_base", S::error, "AbortedTxn lastOffset below the segment's base offset (sanity check fails)", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_not_increasing, "txnindex.not_increasing", S::error, "AbortedTxn lastOffset not strictly increasing", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_missing_abort, "txnindex.missing_abort", S::error, "an aborted transaction's ABORT marker has no .txnindex entry (READ_COMMITTED sees aborted data)", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_unexpected_entry, "txnindex.unexpected_entry", S::error, ".txnindex entry with no matching ABORT marker", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_entry_mismatch, "txnindex.entry_mismatch", S::error, ".txnindex entry fields differ from the ones replaying the log gives", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::txnindex_marker_removed, "txnindex.marker_removed", S::warning, "the ABORT marker a .txnindex entry names is gone from the log (a gap): the transaction stays open for the broker", "if READ_COMMITTED consumers stall there: kafka-transactions.sh abort, with the start offset the message names"},
    {Code::snapshot_corrupt, "snapshot.corrupt", S::error, "producer snapshot fails Kafka's schema validation", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::snapshot_crc, "snapshot.crc", S::error, "producer snapshot CRC-32C differs from the stored one", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::snapshot_past_log_end, "snapshot.past_log_end", S::warning, "producer snapshot above the log end offset; the broker deletes it", "none: the broker deletes it at start-up"},
    {Code::snapshot_mismatch, "snapshot.mismatch", S::error, "producer snapshot entry disagrees with the producer's last batch in the log", "kseg reindex --producer-state (rebuilds .txnindex and snapshots as Kafka's recovery writes them)"},
    {Code::epoch_corrupt, "epoch.corrupt", S::error, "leader-epoch-checkpoint unreadable or epochs/offsets not increasing", "kseg reindex rebuilds one Kafka's load throws on (unreadable, a negative entry) from the batches' leader epochs, as Kafka's recovery assigns them; entries that only fail to increase Kafka reads, keeping the later"},
    {Code::epoch_mismatch, "epoch.mismatch", S::error, "leader-epoch-checkpoint start offset differs from the first batch of that epoch", "no kseg repair yet"},
    {Code::epoch_missing, "epoch.missing", S::warning, "a leader epoch present in the batches is missing from leader-epoch-checkpoint", "no kseg repair yet"},
    {Code::epoch_past_log_end, "epoch.past_log_end", S::warning, "leader-epoch-checkpoint entry above the log end offset; the broker truncates it", "none: the broker truncates it at start-up (kseg truncate or reindex --recover do it now)"},
    {Code::partition_metadata_corrupt, "partition_metadata.corrupt", S::error, "partition.metadata unreadable by Kafka", "no kseg repair yet: write it again with the topic id kafka-topics.sh --describe shows"},
    {Code::partition_metadata_stray, "partition_metadata.stray", S::error, "partition.metadata missing, or its topic id not the one the log dir's KRaft metadata log gives the topic: Kafka 4.4 renames the directory <topic>-<partition>.<id>-stray at start-up and serves the partition empty (kseg-doctor reads the metadata log; kseg-verify does not)", "if the records are the topic's, before the broker starts: write partition.metadata with the topic id kafka-topics.sh --describe shows (version: 0, topic_id: ID); if they belong to a deleted topic, none: move the directory away"},
    {Code::checkpoint_corrupt, "checkpoint.corrupt", S::error, "root offset checkpoint unreadable (the broker marks the log dir failed)", "kseg doctor --fix sets it aside (kept in a backup); the broker starts without it (without recovery-point-offset-checkpoint it recovers every segment)"},
    {Code::checkpoint_past_log_end, "checkpoint.past_log_end", S::error, "root checkpoint offset above the partition's log end offset", "no kseg repair of the line alone yet (kseg truncate writes the lines of a partition it cuts)"},
    {Code::meta_corrupt, "meta.corrupt", S::error, "meta.properties unreadable by Kafka", "no kseg repair yet: restore meta.properties (cluster.id, node.id, directory.id)"},
    {Code::quorum_corrupt, "quorum.corrupt", S::error, "quorum-state unreadable: the KRaft node does not start", "no kseg repair: restore it from a backup; moved away, the node forgets its vote (safe only if the other voters hold the quorum)"},
    {Code::dir_bad_name, "dir.bad_name", S::error, "directory name not <topic>-<partition> (the broker refuses to start)", "rename or move the directory out of the log dir"},
    {Code::dir_file_name, "dir.file_name", S::error, "segment file name prefix is not a 20-digit offset", "move the file out of the partition directory"},
    {Code::dir_not_a_file, "dir.not_a_file", S::error, "a Kafka file name on a directory, a dangling or looping link or a special file: the broker cannot open it", "move it out of the partition directory"},
    {Code::dir_leftover_swap, "dir.leftover_swap", S::warning, ".swap file left by an interrupted clean/split; completed at start-up", "none: Kafka handles it at start-up, as the summary says"},
    {Code::dir_leftover_cleaned, "dir.leftover_cleaned", S::warning, ".cleaned file left by an interrupted clean; deleted at start-up", "none: Kafka handles it at start-up, as the summary says"},
    {Code::dir_leftover_deleted, "dir.leftover_deleted", S::info, ".deleted file awaiting asynchronous deletion", "none: the broker deletes it"},
    {Code::dir_leftover_tmp, "dir.leftover_tmp", S::warning, ".tmp file left by an interrupted checkpoint write", "none: Kafka handles it at start-up, as the summary says"},
    {Code::dir_leftover_kseg_tmp, "dir.leftover_kseg_tmp", S::warning, ".kseg-tmp file left by an interrupted kseg writer; Kafka ignores it", "kseg reindex removes it"},
    {Code::dir_kseg_backup, "dir.kseg_backup", S::warning, "originals kept by a kseg repair; remove once the repair is confirmed", "remove it once the broker has loaded the repaired partition"},
    {Code::dir_orphan_index, "dir.orphan_index", S::warning, "index file without its .log; deleted at start-up", "none: Kafka handles it at start-up, as the summary says"},
    {Code::dir_unknown_file, "dir.unknown_file", S::info, "file kseg does not know in a partition directory", "none: Kafka ignores it"},
    {Code::snapshot_missing, "snapshot.missing", S::warning, "no producer snapshot Kafka's load would read, after a clean shutdown: Kafka takes the partition for one written before snapshots and does not rebuild its producer state, so it forgets the producers in the log (kseg-doctor)", "kseg reindex --producer-state writes the snapshot Kafka's recovery would"},
    {Code::snapshot_stale, "snapshot.stale", S::info, "the newest producer snapshot Kafka's load reads is below the log end (or there is none): Kafka replays the log from it at start-up (kseg-doctor prices the bytes)", "none: Kafka replays it; kseg reindex --producer-state spares the replay"},
    {Code::txn_hanging, "txn.hanging", S::error, "a transaction open in the partition that its coordinator has ended or never had: it holds the last stable offset back forever (kseg-txn's verdict; kseg-doctor)", "once the broker is up: kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic T --partition P --start-offset FIRST"},
    {Code::txn_unverified, "txn.unverified", S::info, "a transaction open at the log end that kseg cannot judge: no coordinator partition in the log dir says whether it goes on (kseg-txn's verdict; kseg-doctor)", "kseg txn on the log dir that holds its __transaction_state partition"},
    {Code::txn_two_phase_open, "txn.two_phase_open", S::info, "a transaction open at the log end under two-phase commit (KIP-939): its coordinator never times it out, so it holds the last stable offset back until the external coordinator commits or aborts it (kseg-txn's ongoing (2PC); kseg-doctor)", "none while its application runs; if it is gone for good: kafka-transactions.sh forceTerminateTransaction --transactionalId ID on the running broker"},
    {Code::cleaner_dirty, "cleaner.dirty", S::info, "a compacted partition whose dirty ratio is above min.cleanable.dirty.ratio: the cleaner cleans it at its next pass; if it stays that dirty while the broker runs, the cleaner has stopped (kseg-doctor)", "none if the cleaner runs; kseg compact --until-clean cleans it offline"},
    {Code::retention_due, "retention.due", S::info, "segments past the topic's retention (retention.ms, retention.bytes) or below the log start: Kafka deletes them at its first retention check after start-up (kseg-doctor)", "none: Kafka deletes them; kseg truncate --retention frees the space now"},
    {Code::refuse_locked, "refuse.locked", S::error, "the log dir's .lock is held by another process (a running broker): a writer changes nothing", "stop the broker (or the other kseg run), then run again; --dry-run is safe beside a broker"},
    {Code::refuse_lock_file, "refuse.lock_file", S::error, "the log dir's .lock is a link, FIFO or directory, not the lock file a broker makes", "move it away; the broker makes its own at start-up"},
    {Code::refuse_interrupted_clean, "refuse.interrupted_clean", S::error, "a .swap or .cleaned file of an interrupted log cleaning: truncating or planning over it would guess what the cleaning leaves", "start the broker once (it finishes or discards it), or kseg compact without --dry-run (it finishes it as LogLoader does)"},
    {Code::refuse_interrupted_truncate, "refuse.interrupted_truncate", S::error, "the journal of an interrupted kseg truncate: another cut must wait for it", "run the kseg truncate the message names again: it finishes the cut"},
    {Code::refuse_foreign_journal, "refuse.foreign_journal", S::error, "a file under kseg truncate's journal name that kseg did not write", "move it away"},
    {Code::refuse_corrupt_before_cut, "refuse.corrupt_before_cut", S::error, "invalid bytes below the cut point: Kafka's recovery would drop batches the cut keeps", "kseg reindex --recover (or --salvage), then the cut again"},
    {Code::refuse_no_segment, "refuse.no_segment", S::error, "a partition directory with no segment: nothing to compact", "none: nothing to do"},
    {Code::refuse_not_compacted, "refuse.not_compacted", S::error, "the topic's cleanup.policy has no 'compact': the broker never compacts it", "kseg compact --force, if the topic is to be compacted all the same"},
    {Code::refuse_cleaner_stops, "refuse.cleaner_stops", S::error, "a batch Kafka's cleaner stops on (damaged, or a v0/v1 message a round empties): the round ends there", "kseg reindex --salvage removes a damaged batch; for a v0/v1 message, none: the broker's cleaner stops there too"},
    {Code::refuse_segment_overflow, "refuse.segment_overflow", S::error, "a cleaned segment would not fit (offsets beyond 2^31-1 of its base, a full index, over 2 GiB)", "none offline: the broker's cleaner splits the segment at its next cleaning"},
    {Code::refuse_excise_damaged, "refuse.excise_damaged", S::error, "invalid bytes in a segment kseg excise would rewrite: Kafka's recovery drops them, and a rewrite would keep or drop them unasked", "kseg reindex --recover (or --salvage), then kseg excise again"},
    {Code::note_swap_finished, "note.swap_finished", S::info, "an interrupted cleaning's .swap files finished (and the files they replace removed), as LogLoader does at start-up", "none: done as the broker would"},
    {Code::note_snapshot_deleted, "note.snapshot_deleted", S::info, "a producer snapshot at or below the log start or past the log end: Kafka's load deletes it, and so does the writer", "none: done as the broker would"},
    {Code::note_nothing_to_cut, "note.nothing_to_cut", S::info, "the cut point is at or past the log end: nothing to cut, as in Kafka's truncateTo", "none: nothing to do"},
};

// The enum and the table are one list: same length, same order, so
// code_info(c) is an index and no code can lack its row.
static_assert(std::size(kCodes) == static_cast<size_t>(Code::count_));
constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < std::size(kCodes); ++i)
    if (kCodes[i].id != static_cast<Code>(i)) return false;
  return true;
}
static_assert(table_in_enum_order());

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

const CodeInfo& code_info(Code c) { return kCodes[static_cast<size_t>(c)]; }
const char* code_name(Code c) { return code_info(c).code; }

const CodeInfo* find_code(const std::string& code) {
  for (const auto& c : kCodes)
    if (code == c.code) return &c;
  return nullptr;
}

Problem Problem::of(Code code, std::string file, std::optional<Position> position, std::string message,
                    std::string expected, std::string found) {
  return Problem{code_info(code).severity, code,           std::move(file),
                 position,                 std::move(message), std::move(expected), std::move(found)};
}

Error coded_error(Code code, Errc errc, std::optional<Position> position, std::string message) {
  return Error{errc, position, std::move(message), code_name(code)};
}

std::optional<Problem> problem_of(const Error& e) {
  const CodeInfo* c = e.problem ? find_code(e.problem) : nullptr;
  if (c == nullptr) return std::nullopt;
  return Problem{Severity::error, c->id, "", e.position, e.message, "", ""};
}

std::string error_text(const Error& e) {
  auto p = problem_of(e);
  return p ? problem_text(*p) : e.message;
}

std::string problem_text(const Problem& p) {
  std::string out = severity_name(p.severity);
  for (auto& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  out += fmt::format(" {} ", code_name(p.code));
  if (p.file.empty()) {
    out += p.message;  // it names file and position itself
  } else {
    out += p.file;
    if (p.position) out += fmt::format(":{}", *p.position);
    out += fmt::format(": {}", p.message);
  }
  if (!p.expected.empty() || !p.found.empty()) out += fmt::format(" (expected {}, found {})", p.expected, p.found);
  return out;
}

nlohmann::ordered_json problem_json(const Problem& p) {
  nlohmann::ordered_json j{{"severity", severity_name(p.severity)}, {"code", code_name(p.code)}};
  if (!p.file.empty()) j["file"] = p.file;
  j["position"] = p.position ? nlohmann::ordered_json(p.position->value) : nlohmann::ordered_json(nullptr);
  j["message"] = p.message;
  if (!p.expected.empty() || !p.found.empty()) {
    j["expected"] = p.expected;
    j["found"] = p.found;
  }
  return j;
}

}  // namespace kseg
