// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/explain.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "lib/mapped_file.h"
#include "lib/units.h"

namespace kseg::doctor {

namespace fs = std::filesystem;

// What kseg-reindex's rebuild of an unreadable leader-epoch-checkpoint loses.
constexpr const char* kEpochsRebuiltLose =
    "nothing of the log: the file is rebuilt from the batches' leader epochs as Kafka's recovery assigns them (an "
    "epoch whose leader appended nothing gets no entry; Kafka adds its current one when it next leads)";

bool invalid_bytes(Code c) {
  switch (c) {
    case Code::log_crc_mismatch:
    case Code::log_bad_magic:
    case Code::log_bad_size:
    case Code::log_torn_tail:
    case Code::log_zero_tail:
    case Code::log_trailing_garbage:
    case Code::log_bad_control: return true;
    default: return false;
  }
}

bool offsets_out_of_order(Code c) { return c == Code::log_offset_order || c == Code::log_below_base_offset; }

namespace {

bool index_content(Code c) {
  switch (c) {
    case Code::index_size:
    case Code::index_not_increasing:
    case Code::index_entry_mismatch:
    case Code::index_past_log_end:
    case Code::index_untrimmed:
    case Code::timeindex_size:
    case Code::timeindex_not_monotonic:
    case Code::timeindex_entry_mismatch:
    case Code::timeindex_final_entry:
    case Code::timeindex_past_log_end:
    case Code::timeindex_preallocated_loaded:
    case Code::timeindex_untrimmed: return true;
    default: return false;
  }
}

bool producer_state(Code c) {
  switch (c) {
    case Code::txnindex_bad_version:  // the load throws on it; the rebuilt .txnindex is of version 0
    case Code::txnindex_size:
    case Code::txnindex_not_increasing:
    case Code::txnindex_missing_abort:
    case Code::txnindex_unexpected_entry:
    case Code::txnindex_entry_mismatch:
    case Code::snapshot_mismatch: return true;
    default: return false;
  }
}

// Codes Kafka deals with by itself at start-up, whatever the shutdown.
bool kafka_handles(Code c) {
  switch (c) {
    case Code::log_preallocated_tail:
    case Code::index_append_entry:
    case Code::index_preallocated:
    case Code::index_missing:
    case Code::timeindex_preallocated:
    case Code::timeindex_empty_batch:
    case Code::snapshot_corrupt:
    case Code::snapshot_crc:
    case Code::snapshot_past_log_end:
    case Code::epoch_past_log_end:
    case Code::log_offset_overflow:  // LogLoader splits the segment and loads again
    case Code::log_producer_fields:
    case Code::log_epoch_regression:
    case Code::dir_leftover_swap:
    case Code::dir_leftover_cleaned:
    case Code::dir_leftover_deleted:
    case Code::dir_leftover_tmp:
    case Code::dir_orphan_index:
    case Code::dir_leftover_kseg_tmp:
    case Code::dir_kseg_backup:
    case Code::dir_unknown_file: return true;
    default: return false;
  }
}

std::string size_offsets(int64_t bytes, int64_t offsets) {
  return fmt::format("{}, {} offset{}", human_bytes(bytes), offsets, offsets == 1 ? "" : "s");
}

// The segment a problem's file belongs to (by its name's offset prefix).
const SegmentFate* fate_of(const Startup& s, const std::string& file) {
  auto name = file_names::parse_segment_file_name(fs::path(file).filename().string());
  if (!name.ok()) return nullptr;
  for (const auto& f : s.segments)
    if (f.base == name->offset.value) return &f;
  return nullptr;
}

// Kafka's read of a fetch from each entry's own offset through the segment's
// .index as it is (OffsetIndex.lookup, then LogSegment's scan from the
// position it gives for the first batch ending at or after the offset). An
// entry past the offset's batch skips (testing its own offset is enough: one
// at or before that batch only makes the scan longer). No claim (nullopt)
// where an entry points inside a batch or a legacy wrapper would be served.
// One pass over the .log; memory in the index's entries, not the segment's batches.
std::optional<FetchSkip> fetch_skip(const std::string& index_path) {
  auto name = file_names::parse_segment_file_name(fs::path(index_path).filename().string());
  if (!name.ok() || name->kind != file_names::FileKind::index) return std::nullopt;
  auto index = MappedFile::open(index_path);
  auto log = MappedFile::open(fs::path(index_path).replace_extension(".log").string());
  if (!index.ok() || !log.ok()) return std::nullopt;
  const offset_index::View v(index->bytes(), name->offset, Position{0},
                             offset_index_width(index->bytes(), name->offset, log->bytes()));
  const int64_t n = v.slot_count();
  std::vector<std::pair<int64_t, int64_t>> asks;  // (position the lookup gives, offset asked), by position
  for (int64_t i = 0; i < n; ++i) {
    const int64_t target = v.offset(i).value;
    asks.emplace_back(offset_index::lookup(v, n, Offset{target}).position, target);
  }
  std::sort(asks.begin(), asks.end());
  // Offsets whose scan has begun, not yet served, each with whether a batch before the scan's
  // start already holds it (or a later offset): only then does the fetch skip anything (an entry
  // in a compaction gap or inside a legacy wrapper's range is served from the right batch).
  std::multimap<int64_t, bool> reading;
  int64_t max_last = INT64_MIN;  // of the batches before this one
  FetchSkip out;
  size_t next = 0;
  EntryScanner scan(log->bytes(), Position{0});
  while (auto e = scan.next()) {
    if (next < asks.size() && asks[next].first < e->position.value) return std::nullopt;  // inside a batch
    for (; next < asks.size() && asks[next].first == e->position.value; ++next)
      reading.emplace(asks[next].second, max_last >= asks[next].second);
    auto last = entry_last_offset(*e);
    if (!last.ok()) return std::nullopt;
    // A v2 batch is served from its base offset, a legacy message from its offset; a legacy
    // wrapper's inner offsets are not read (no claim).
    const bool wrapper = e->magic < 2 && e->bytes.size() > 17 && (e->bytes[17] & 0x07) != 0;
    const int64_t first = e->magic >= 2 ? e->offset : wrapper ? -1 : *last;
    for (auto it = reading.begin(); it != reading.end() && it->first <= *last; it = reading.erase(it)) {
      if (!it->second) continue;
      if (first < 0) return std::nullopt;
      if (first > it->first) {
        if (out.entries == 0) out.from = it->first, out.served_from = first;
        ++out.entries;
      }
    }
    max_last = std::max(max_last, *last);
  }
  // A scan that runs off the data: Kafka reads on in the next segment (not modelled).
  if (next < asks.size() || !reading.empty()) return std::nullopt;
  return out;
}

std::string not_recovered_because(const Startup& s) {
  return s.clean_shutdown ? "the log dir was shut down cleanly" : "the segment is below the recovery point";
}

// What recovery does with segment `f` and what it costs.
std::string recovery_text(const Startup& s, const SegmentFate& f) {
  std::string out = fmt::format("recovers the segment at start-up ({})", recover_why_text(f.why));
  if (f.stop_kind == "invalid_offset")
    out += fmt::format(": an offset that does not increase reaches its rebuilt index (InvalidOffsetException), so it "
                       "empties the segment: {}",
                       size_offsets(f.truncated_bytes, f.offsets_cut));
  else if (f.truncated_bytes > 0)
    out += fmt::format(" and truncates it at byte {}: {}", f.stop_position, size_offsets(f.truncated_bytes, f.offsets_cut));
  if (f.truncated_bytes > 0) {
    int64_t later = 0, later_bytes = 0;
    for (const auto& g : s.segments)
      if (g.deleted) {
        ++later;
        later_bytes += g.size;
      }
    if (f.why == RecoverWhy::unclean && later > 0)
      out += fmt::format("; then deletes the {} later segment{} ({})", later, later == 1 ? "" : "s", human_bytes(later_bytes));
  }
  return out;
}

std::string kafka_text(const PartitionDoc& d, const Finding& x) {
  const Problem& p = x.problem;
  const Startup* s = d.startup ? &*d.startup : nullptr;
  const SegmentFate* f = s ? fate_of(*s, p.file) : nullptr;
  const bool recovered = f && f->why != RecoverWhy::none;
  if (s && s->fails &&
      (p.code == Code::log_offset_overflow || p.code == Code::log_unrecoverable || p.code == Code::txnindex_bad_version ||
       (p.code == Code::epoch_corrupt && s->fails->find("/leader-epoch-checkpoint:") != std::string::npos)))
    return fmt::format("the load of this partition throws: {}", *s->fails);
  if (p.code == Code::epoch_corrupt)  // read, with entries out of order: LeaderEpochFileCache.assign
    return "reads it, and of entries whose epochs or start offsets do not increase keeps the later (it drops "
           "earlier ones not below them, with a warning)";
  if (invalid_bytes(p.code)) {
    if (f && f->deleted)
      return s->deletes_all ? "deleted with every segment: the log ends below its checkpointed log start"
                            : "deleted with its segment: an earlier segment's recovery truncates, and every later one goes";
    if (recovered) return recovery_text(*s, *f);
    if (s && f)
      return fmt::format("loads it as it is ({}); a fetch that reaches these bytes fails (CorruptRecordException), "
                         "and the log cleaner stops on them",
                         not_recovered_because(*s));
  }
  if (offsets_out_of_order(p.code) && s && f) {
    if (f->stop_kind == "invalid_offset") return recovery_text(*s, *f);
    if (recovered)
      return fmt::format("{}, and keeps these batches: recovery checks an offset only where it writes an index entry, "
                         "against the entry before it",
                         recovery_text(*s, *f));
    return fmt::format("loads it as it is ({}): Kafka checks no offsets at start-up", not_recovered_because(*s));
  }
  if (index_content(p.code)) {
    if (recovered) return fmt::format("rebuilds it: {}", recovery_text(*s, *f));
    if (s && f && x.fetch && x.fetch->entries > 0)
      return fmt::format("trusts it as it is ({}; Kafka checks no index content at start-up, KAFKA-7283): a fetch "
                         "from offset {} is served from offset {} on, and consumers never see the {} offsets between ({} "
                         "entr{} of the .index skip{} so)",
                         not_recovered_because(*s), x.fetch->from, x.fetch->served_from,
                         x.fetch->served_from - x.fetch->from, x.fetch->entries, x.fetch->entries == 1 ? "y" : "ies",
                         x.fetch->entries == 1 ? "s" : "");
    if (s && f && x.fetch)
      return fmt::format("trusts it as it is ({}; Kafka checks no index content at start-up, KAFKA-7283): a fetch "
                         "through it starts at or before the batch it asks for and reads on to it: nothing is "
                         "skipped, but it reads more",
                         not_recovered_because(*s));
    if (s && f && (p.code == Code::timeindex_untrimmed || p.code == Code::timeindex_preallocated_loaded))
      return fmt::format("loads it as it is ({}): its zeros count as entries, so {}",
                         not_recovered_because(*s),
                         p.code == Code::timeindex_untrimmed
                             ? "the segment's largest timestamp reads as 0: where the topic has time retention "
                               "(cleanup.policy delete, retention.ms not -1) its first pass deletes the segment, "
                               "however new its records (KAFKA-10207)"
                             : "the index is full: the next append rolls the segment and leaves the zero tail on it "
                               "(timeindex.untrimmed: time retention then deletes it)");
    if (s && f)
      return fmt::format("trusts it as it is ({}; Kafka checks no index content at start-up, KAFKA-7283): "
                         "lookups by offset or time through it read the wrong place, or fail at a fetch or a roll",
                         not_recovered_because(*s));
  }
  if (p.code == Code::index_missing && recovered) return fmt::format("rebuilds it: {}", recovery_text(*s, *f));
  if (p.code == Code::timeindex_missing)
    return recovered ? fmt::format("rebuilds it: {}", recovery_text(*s, *f))
                     : "creates an empty .timeindex and never rebuilds it: a time lookup takes the .log's "
                       "modification time for the segment's largest timestamp and scans the segment from its start, "
                       "so it still finds the offset (more slowly); retention goes by that modification time";
  if (p.code == Code::txnindex_below_base && recovered) return fmt::format("rebuilds it: {}", recovery_text(*s, *f));
  if (p.code == Code::log_offset_overflow)
    return "splits the segment where its offsets overflow (LogLoader's legacy overflow repair) and loads it again; "
           "nothing is lost";
  if (p.code == Code::dir_kseg_backup)
    return "ignores it (a directory): it holds the originals a kseg writer replaced; remove it once the broker has "
           "loaded the repaired partition";
  if (p.code == Code::dir_leftover_kseg_tmp) return "ignores it (no name Kafka knows); kseg reindex removes it";
  if (p.code == Code::dir_unknown_file) return "ignores it (LogLoader loads only the names it knows)";
  if (p.code == Code::partition_metadata_stray)
    return "renames the directory <topic>-<partition>.<id>-stray at start-up and serves the partition empty: every "
           "record seems gone (they stay in the -stray directory, never deleted)";
  if (producer_state(p.code))
    return "trusts it: read_committed consumers are served the aborted ranges it holds, not the log's";
  return code_info(p.code).summary;
}

}  // namespace

namespace {

bool needs(const PartitionDoc& d, bool in_service) {
  if (d.stray || !d.io_errors.empty() || (d.startup && (d.startup->fails || d.startup->loses()))) return true;
  for (const auto& f : d.findings)
    if (!f.kafka_handles && f.problem.severity != Severity::info &&
        (in_service || (f.problem.code != Code::txn_hanging && f.problem.code != Code::txn_unverified)))
      return true;
  return false;
}

}  // namespace

bool PartitionDoc::needs_fix() const { return needs(*this, true); }
bool PartitionDoc::blocks_recovery() const { return needs(*this, false); }

RootKafka explain_root(const Problem& p) {
  const std::string name = fs::path(p.file).filename().string();
  switch (p.code) {
    case Code::checkpoint_corrupt: {
      // Read through CheckpointFileWithFailureHandler, which reports the log dir failed on an
      // IOException even where LogManager catches it; an unchecked exception only its caller sees.
      checkpoint::Failure failure = checkpoint::Failure::io_exception;
      if (auto bytes = MappedFile::read_state_file(p.file); bytes.ok())
        (void)checkpoint::parse_offset_checkpoint(
            std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), p.file, Position{0},
            &failure);
      if (failure == checkpoint::Failure::io_exception)
        return {"the checkpoint reader reports the log dir failed: it goes offline at start-up, and every partition "
                "in it (with one log dir, the broker stops)",
                false, "offline"};
      if (name == "recovery-point-offset-checkpoint")
        return {"LogManager catches the number it cannot read and takes every recovery point as 0: after an unclean "
                "shutdown every segment of the log dir is recovered (the partitions' start-ups say so); after a clean "
                "one, nothing",
                true};
      if (name == "log-start-offset-checkpoint")
        return {"LogManager catches the number it cannot read and takes each partition's log start as its first "
                "segment's base: records deleted below a log start (DeleteRecords, retention) are served again",
                false};
      if (name == "cleaner-offset-checkpoint")
        return {"the log cleaner's thread dies at its first pass on the number it cannot read (\"Error due to\" in "
                "log-cleaner.log): the broker runs, and compacts nothing until the file is mended",
                false, "cleaner_stops"};
      return {"the number it cannot read fails every partition of the log dir that becomes leader or follower "
              "after it (NumberFormatException): the broker runs, those partitions are not served",
              false, "partitions_unserved"};
    }
    case Code::meta_corrupt:
      return {"the broker refuses the log dir: it goes offline at start-up, and every partition in it", false, "offline"};
    case Code::checkpoint_past_log_end:
      if (name == "recovery-point-offset-checkpoint")
        return {"LogLoader takes the recovery point no higher than the log end: nothing is lost", true};
      if (name == "replication-offset-checkpoint")
        return {"the high watermark is taken no higher than the log end when the partition's log is made: nothing "
                "is lost",
                true};
      if (name == "cleaner-offset-checkpoint")
        return {"the cleaner takes a checkpoint outside the log as none and cleans from the log start", true};
      if (name == "log-start-offset-checkpoint")
        return {"the log starts past its end: Kafka deletes every segment and starts the log empty at that offset "
                "(the partition's start-up says what goes)",
                false};
      break;
    default: break;
  }
  return {code_info(p.code).summary, false};
}

std::string shell_word(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./=+,:@%-").find(c) != std::string_view::npos);
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void explain(PartitionDoc& d) {
  bool invalid = false, index = false, producers = false, by_hand = false;
  std::map<std::string, std::optional<FetchSkip>> fetches;
  for (auto& x : d.findings) {
    const Code c = x.problem.code;
    if (!x.kafka.empty()) {  // an in-service finding (service.h): its texts and fixes are its own
      producers = producers || (c == Code::snapshot_missing && !x.kafka_handles);
      by_hand = by_hand || x.by_hand;
      continue;
    }
    const SegmentFate* f = d.startup ? fate_of(*d.startup, x.problem.file) : nullptr;
    const bool recovered = f && f->why != RecoverWhy::none;
    if (f && !recovered && index_content(c) && fs::path(x.problem.file).extension() == ".index") {
      auto it = fetches.find(x.problem.file);  // one model of the file for all its findings
      if (it == fetches.end()) it = fetches.emplace(x.problem.file, fetch_skip(x.problem.file)).first;
      x.fetch = it->second;
    }
    x.kafka = kafka_text(d, x);
    if (invalid_bytes(c)) {
      invalid = true;
      if (d.salvage)
        x.fixes.push_back({fmt::format("kseg reindex --salvage {}", shell_word(d.dir)), d.salvage->text()});
      if (d.recover)
        x.fixes.push_back({fmt::format("kseg reindex --recover {}", shell_word(d.dir)), d.recover->text()});
      continue;
    }
    // What salvage would cut out of the segments (a batch reaching into the next segment is no such cut).
    // (verify's finding of a batch reaching into the next segment expects "< <next base>": salvage,
    // which works within a segment, does not mend it.)
    const bool across_segments = c == Code::log_offset_order && x.problem.expected.rfind("< ", 0) == 0;
    if (offsets_out_of_order(c) && !across_segments && d.salvage && d.salvage->bytes > 0) {
      invalid = true;
      x.fixes.push_back({fmt::format("kseg reindex --salvage {}", shell_word(d.dir)), d.salvage->text()});
      continue;
    }
    if ((index_content(c) || c == Code::timeindex_missing) && !recovered) {
      index = true;
      x.fixes.push_back({fmt::format("kseg reindex {}", shell_word(d.dir)), "nothing (indexes only)"});
      continue;
    }
    if (index_content(c) || c == Code::timeindex_missing || (c == Code::txnindex_below_base && recovered)) {
      x.kafka_handles = true;  // the segment is recovered at start-up anyway
      if (c == Code::txnindex_below_base) d.saves_recovery = Action::producer_state;
      continue;
    }
    if (c == Code::index_missing && recovered && d.saves_recovery == Action::none) d.saves_recovery = Action::reindex;
    if (producer_state(c)) {
      producers = true;
      x.fixes.push_back({fmt::format("kseg reindex --producer-state {}", shell_word(d.dir)), "nothing (.txnindex and snapshots only)"});
      continue;
    }
    if (c == Code::partition_metadata_stray && x.problem.expected.size() == 22) {  // the metadata log's topic id
      by_hand = x.by_hand = true;
      x.fixes.push_back({fmt::format("printf 'version: 0\\ntopic_id: {}' > {}", x.problem.expected, shell_word(x.problem.file)),
                         "nothing if the records are the topic's; else move the directory away"});
      continue;
    }
    // What Kafka's load throws on, kseg-reindex rebuilds (reindex_plan.cc, plan_epochs); entries
    // that only fail to increase Kafka reads, keeping the later.
    if (c == Code::epoch_corrupt && !(d.startup && d.startup->fails &&
                                      d.startup->fails->find("/leader-epoch-checkpoint:") != std::string::npos)) {
      x.kafka_handles = true;
      continue;
    }
    if (c == Code::epoch_corrupt) {
      index = true;
      x.fixes.push_back({fmt::format("kseg reindex {}", shell_word(d.dir)), kEpochsRebuiltLose});
      continue;
    }
    if (kafka_handles(c)) {
      x.kafka_handles = true;
      continue;
    }
    if (x.problem.severity != Severity::info) {
      by_hand = x.by_hand = true;
      x.fixes.push_back({code_info(c).remedy, ""});
    }
  }
  // Kafka's start-up loses data without a finding that says so here (a
  // partition whose damage verify reports once): the plan prices the same.
  // (Not where the loss is a log start line past the log end as it is: salvage leaves the line,
  // and Kafka still deletes every segment; that is for a person to mend, add_steps.)
  if (d.startup && d.startup->loses() && !d.startup->line_past_end()) invalid = invalid || d.salvage.has_value();
  if (d.startup && d.startup->line_past_end()) by_hand = true;
  d.action = invalid       ? Action::salvage
             : producers   ? Action::producer_state
             : index       ? Action::reindex
             : by_hand     ? Action::by_hand
                           : Action::none;
}

}  // namespace kseg::doctor
