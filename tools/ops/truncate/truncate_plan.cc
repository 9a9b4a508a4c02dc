// SPDX-License-Identifier: Apache-2.0
// Planning for kseg-truncate: the files Kafka leaves after each cut and a
// clean shutdown, from the partition as it is on disk. Work is proportional
// to the segment that is cut, not to the partition: besides it, a cut reads
// the last segment from its last index entry, the batches a snapshot replay
// needs (from the newest snapshot below the new end: usually the cut
// segment), and for --to-time and retention the time indexes' last entries.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/producer_state.h"
#include "formats/time_index.h"
#include "formats/txn_index.h"
#include "lib/mapped_file.h"
#include "lib/time_text.h"
#include "tools/ops/common/java_text.h"
#include "tools/ops/partition/log_end.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/truncate/truncate.h"
#include "tools/ops/truncate/truncate_input.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

using truncation::Input;
using truncation::Root;
using truncation::offset_for_time;
using truncation::retention_prefix;

namespace {

std::string seg_name(int64_t base, FileKind k) { return file_names::segment_file_name(Offset{base}, k); }

Error fail(Errc code, std::string message) { return Error{code, std::nullopt, std::move(message)}; }


bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// The builder of one plan: the partition's files as Kafka leaves them.
struct Builder {
  Input& p;
  TruncatePlan& out;
  int64_t new_start = 0;     // log start offset afterwards
  int64_t loaded_start = 0;  // the log start Kafka loads the partition with (before an interrupted run's)
  std::vector<int64_t> removed_snapshots;

  void remove_segment(const Segment& s, const std::string& why) {
    out.bytes_freed += s.size;
    for (FileKind k : {FileKind::log, FileKind::index, FileKind::timeindex, FileKind::txnindex})
      if (exists(s.path(k)))
        out.main.actions.push_back(safe::Action::remove(
            seg_name(s.base, k), k == FileKind::log ? fmt::format("{} bytes: {}", s.size, why) : "index of a removed segment"));
  }
  void remove_snapshot(int64_t offset, const std::string& name, const std::string& why) {
    out.main.actions.push_back(safe::Action::remove(name, why));
    removed_snapshots.push_back(offset);
  }
  // Snapshots left after the plan, by offset.
  std::vector<std::pair<int64_t, std::string>> kept_snapshots() const {
    std::vector<std::pair<int64_t, std::string>> kept;
    for (const auto& s : p.snapshots)
      if (std::find(removed_snapshots.begin(), removed_snapshots.end(), s.first) == removed_snapshots.end())
        kept.push_back(s);
    return kept;
  }
};

void set_line(Input& p, TruncatePlan& out, RootCheckpoint c, std::optional<int64_t> value, bool first = false) {
  Root& r = p.line(c);
  if (r.mine == value) return;
  if (!r.present && !value) return;
  std::vector<checkpoint::TopicPartitionOffset> entries;
  bool placed = false;
  for (const auto& e : r.entries) {
    if (e.topic == p.topic && e.partition == p.number) {
      if (value && !placed) entries.push_back({p.topic, p.number, *value});
      placed = true;
      continue;
    }
    entries.push_back(e);
  }
  if (value && !placed) entries.push_back({p.topic, p.number, *value});
  const std::string text = checkpoint::serialize_offset_checkpoint(entries);
  auto fmt_v = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string("none"); };
  out.checkpoints.push_back({root_checkpoint_name(c), r.mine, value});
  safe::Action a = safe::Action::write(root_checkpoint_name(c), std::vector<uint8_t>(text.begin(), text.end()),
                                       fmt::format("{}-{}: {} -> {}", p.topic, p.number, fmt_v(r.mine), fmt_v(value)))
                       .in_log_dir();
  (first ? out.first : out.main).actions.push_back(std::move(a));
  r.present = true;  // what a later line of the same file starts from
  r.entries = std::move(entries);
  r.mine = value;
}

void set_epochs(Input& p, TruncatePlan& out, const std::vector<checkpoint::EpochEntry>& epochs, bool force = false) {
  if (!force && (!p.epoch_file || epochs == p.epochs)) return;
  const std::string text = checkpoint::serialize_leader_epoch_checkpoint(epochs);
  out.main.actions.push_back(safe::Action::write("leader-epoch-checkpoint", std::vector<uint8_t>(text.begin(), text.end()),
                                                 fmt::format("{} of {} entries kept", epochs.size(), p.epochs.size())));
}

// LeaderEpochFileCache's truncateFromStart and truncateFromEnd (formats/checkpoint_file.h).
using checkpoint::truncate_epochs_from_end;
using checkpoint::truncate_epochs_from_start;

// The producer state at `end`, as Kafka holds it: loaded at the log start
// the broker loaded with (a truncateTo reloads from it too), from the
// snapshots the plan keeps, then the batches up to `end`.
Result<std::vector<uint8_t>> snapshot_at(const Input& p, const Builder& b, int64_t end) {
  auto ps = producer_start(p.dir, b.kept_snapshots(), std::min(b.loaded_start, b.new_start), end);
  if (!ps.ok()) return ps.error();
  if (Status st = replay_producers(p.logs(), ps->from, end, ps->state); !st.ok()) return st.error();
  return producer_snapshot::encode(ps->state.entries());
}

// Where Kafka writes a snapshot at close: at the log end, when none is there
// and it is above the newest one left (or the log start offset).
Status plan_end_snapshot(Input& p, Builder& b, int64_t end) {
  int64_t newest = b.new_start;
  for (const auto& [offset, name] : b.kept_snapshots())
    if (offset <= end) newest = std::max(newest, offset);
  if (end <= newest) return {};
  auto bytes = snapshot_at(p, b, end);
  if (!bytes.ok()) return bytes.status();
  const std::string name = file_names::segment_file_name(Offset{end}, FileKind::snapshot);
  b.out.main.actions.push_back(safe::Action::write(
      name, std::move(*bytes), fmt::format("producer state at the new end {}, as Kafka writes it at close", end)));
  return {};
}

// Kafka's readLargestTimestamp over the kept part [0, cut) of a segment:
// the last time-index entry, then any larger batch max after its position.
time_index::TimestampOffset largest_timestamp(Bytes log, int64_t base, const std::vector<offset_index::Entry>& offsets,
                                              std::optional<time_index::Entry> last, int64_t cut) {
  time_index::TimestampOffset best{last ? last->timestamp_ms : time_index::kNoTimestamp,
                                   Offset{last ? base + last->relative_offset : base}};
  int64_t from = 0;
  for (const auto& o : offsets)
    if (base + o.relative_offset <= best.offset.value) from = o.position;
  if (from < 0 || from > cut) from = 0;
  EntryScanner scanner(log.subspan(0, static_cast<size_t>(cut)).subspan(static_cast<size_t>(from)), Position{from});
  while (auto e = scanner.next()) {
    const auto c = check_entry(*e);
    if (c.max_timestamp > best.timestamp_ms) best = {c.max_timestamp, Offset{c.last_offset}};
  }
  return best;
}

// The live entries (as Kafka wrote them, before any zero tail) of an index
// file with an offset below `end`, appended to `out`; the entries from the
// first one no lookup may use on (formats' validate_entries: a negative
// offset or position, offsets or positions out of order) are dropped, and
// the returned text says which and why ("" when none is).
template <class View, class Entry>
std::string entries_below(const View& v, int64_t end, std::vector<Entry>& out) {
  int64_t n = v.live_entry_count();
  std::string dropped;
  if (const Status st = validate_entries(v, n); !st.ok()) {
    const int64_t bad = st.error().position ? st.error().position->value / v.entry_size() : 0;
    dropped = fmt::format("; entry {} and those after it dropped: {}", bad, st.error().message);
    n = bad;
  }
  for (int64_t i = 0; i < n; ++i)
    if (v.offset(i).value < end) out.push_back(v.entry(i));
  return dropped;
}

// Cuts the partition so that it ends at the batch boundary at or below
// `target` (truncateTo), `target` within [first base, log end).
// Where a cut at `target` falls in segment `si`: the first batch whose last
// offset is >= target starts at `cut`; the log then ends at `end`. Every
// batch kept must be one Kafka's recovery keeps: a corrupt one is refused.
struct CutPoint {
  int64_t cut = 0, end = 0;
};
Result<CutPoint> find_cut(const Input& p, size_t si, MappedFile& f, int64_t target) {
  const Segment& s = p.segments[si];
  EntryScanner scanner(f.bytes(), Position{0});
  CutPoint c{f.size(), s.base};
  bool found = false;
  while (auto e = scanner.next()) {
    f.release_before(e->position);  // MappedFile drops pages in steps: resident memory stays flat
    const auto check = check_entry(*e);
    if (check.last_offset >= target) {
      c.cut = e->position.value;
      found = true;
      break;
    }
    if (check.fault() != SegmentEnd::clean)
      return refusal(Code::refuse_corrupt_before_cut, e->position,
                     fmt::format("{}:{}: {} in a batch before the cut point (offsets up to {}); kseg-truncate "
                                 "keeps only batches Kafka's recovery keeps: run kseg-reindex --recover first",
                                 s.path(FileKind::log), e->position.value, segment_end_name(check.fault()),
                                 check.last_offset));
    c.end = next_offset(check.last_offset);
  }
  if (!found && scanner.end() != SegmentEnd::clean && !(si + 1 == p.segments.size()))
    return refusal(Code::refuse_corrupt_before_cut, scanner.valid_end(),
                   fmt::format("{}:{}: {} before the cut point; run kseg-reindex --recover first", s.path(FileKind::log),
                               scanner.valid_end().value, segment_end_name(scanner.end())));
  if (!found) c.cut = scanner.valid_end().value;
  return c;
}

// The cut segment's .txnindex without the transactions that end at or past
// `end`; none when it keeps them all (or has none).
std::optional<safe::Action> cut_txn_index(const Segment& s, int64_t end) {
  auto txn = MappedFile::open(s.path(FileKind::txnindex));
  if (!txn.ok()) return std::nullopt;
  txn_index::View v(txn->bytes());
  int64_t keep = 0;
  while (keep < v.entry_count() && v.entry(keep).last_offset < end) ++keep;
  if (keep * txn_index::kEntrySize == txn->size()) return std::nullopt;
  return safe::Action::copy(seg_name(s.base, FileKind::txnindex), {{Position{0}, Length{keep * txn_index::kEntrySize}}},
                            fmt::format("{} of {} aborted transactions end below {}", keep, v.entry_count(), end));
}

Status plan_cut(Input& p, Builder& b, int64_t target) {
  TruncatePlan& out = b.out;
  size_t si = 0;
  for (size_t i = 0; i < p.segments.size(); ++i)
    if (p.segments[i].base <= target) si = i;
  const Segment& s = p.segments[si];
  auto f = MappedFile::open(s.path(FileKind::log));
  if (!f.ok()) return f.error().in(s.path(FileKind::log));
  auto point = find_cut(p, si, *f, target);
  if (!point.ok()) return point.error();
  const int64_t cut = point->cut, end = point->end;
  out.new_end = end;
  b.new_start = std::min(p.log_start(), end);

  // Later segments go, the last first: a crash leaves a contiguous prefix.
  for (size_t i = p.segments.size(); i-- > si + 1;)
    b.remove_segment(p.segments[i], fmt::format("segment {} is past the new end {}", p.segments[i].base, end));
  for (auto it = p.snapshots.rbegin(); it != p.snapshots.rend(); ++it)
    if (it->first > end)
      b.remove_snapshot(it->first, it->second, fmt::format("producer snapshot past the new end {}", end));

  // The cut segment: .log to `cut`, indexes without entries at or past `end`.
  std::vector<safe::Action> renames;
  const bool cuts_log = cut < f->size();
  if (cuts_log) {
    out.bytes_freed += f->size() - cut;
    // Armed first: a crash from here on leaves an unclean shutdown whose
    // recovery starts at this segment, rebuilding its indexes from the .log.
    if (const auto rp = p.line(RootCheckpoint::recovery_point).mine; rp && *rp > s.base)
      set_line(p, out, RootCheckpoint::recovery_point, s.base, true);
    renames.push_back(safe::Action::copy(seg_name(s.base, FileKind::log), {{Position{0}, Length{cut}}},
                                         fmt::format("keep bytes [0, {}) of {}: offsets below {}", cut, f->size(), end)));
  }
  std::vector<offset_index::Entry> offsets;
  bool offsets_changed = cuts_log;
  std::string offsets_dropped;
  int64_t offsets_width = offset_index::kEntrySize;  // kept as the file has it (8, or KIP-1333's 12)
  if (auto idx = MappedFile::open(s.path(FileKind::index)); idx.ok()) {
    const offset_index::View v(idx->bytes(), Offset{s.base}, Position{0},
                               offset_index_width(idx->bytes(), Offset{s.base}, f->bytes()));
    offsets_width = v.entry_size();
    offsets_dropped = entries_below(v, end, offsets);
    // An offset below the new end lies in a batch that starts before the cut.
    const auto past = std::find_if(offsets.begin(), offsets.end(), [&](const auto& e) { return e.position >= cut; });
    if (past != offsets.end() && offsets_dropped.empty())
      offsets_dropped = fmt::format("; entry {} and those after it dropped: position {} is at or past the cut at {}",
                                    past - offsets.begin(), past->position, cut);
    offsets.erase(past, offsets.end());
    offsets_changed = offsets_changed || static_cast<int64_t>(offsets.size()) * offsets_width != idx->size();
  }
  std::vector<time_index::Entry> times;
  if (auto tix = MappedFile::open(s.path(FileKind::timeindex)); tix.ok()) {
    const std::string times_dropped = entries_below(time_index::View(tix->bytes(), Offset{s.base}), end, times);
    // LogSegment.truncateTo re-reads the largest timestamp of what is left
    // (a broker knows its segments' largest timestamps once it has appended,
    // run retention or answered ListOffsets); the next roll or close appends
    // it when it is above the last entry kept.
    const auto top = largest_timestamp(f->bytes(), s.base, offsets,
                                       times.empty() ? std::nullopt : std::optional(times.back()), cut);
    if (top.timestamp_ms > (times.empty() ? time_index::kNoTimestamp : times.back().timestamp_ms))
      times.push_back({top.timestamp_ms, static_cast<int32_t>(top.offset.value - s.base)});
    std::vector<uint8_t> want = time_index::encode(times);
    if (want.size() != static_cast<size_t>(tix->size()) || !std::equal(want.begin(), want.end(), tix->bytes().begin()))
      renames.push_back(safe::Action::write(seg_name(s.base, FileKind::timeindex), std::move(want),
                                            fmt::format("{} entries below {}{}", times.size(), end, times_dropped)));
  }
  if (auto txn = cut_txn_index(s, end)) renames.push_back(std::move(*txn));
  for (auto& a : renames) out.main.actions.push_back(std::move(a));
  // UnifiedLog.truncateTo: the leader epochs from the new end go.
  set_epochs(p, out, truncate_epochs_from_end(p.epochs, end));
  if (Status st = plan_end_snapshot(p, b, end); !st.ok()) return st;
  if (offsets_changed)
    out.main.actions.push_back(safe::Action::write(seg_name(s.base, FileKind::index), offset_index::encode(offsets, offsets_width),
                                                   fmt::format("{} entries below {} (renamed last){}", offsets.size(), end,
                                                               offsets_dropped)));
  // The cleaner's checkpoint: at most the new active segment's base.
  const auto& cc = p.line(RootCheckpoint::cleaner).mine;
  if (cc && *cc > s.base) set_line(p, out, RootCheckpoint::cleaner, s.base);
  return {};
}

// truncateFullyAndStartAt(n): no segment left but an empty one at n.
Status plan_full(Input& p, Builder& b, int64_t n) {
  TruncatePlan& out = b.out;
  for (size_t i = p.segments.size(); i-- > 0;) {
    const Segment& s = p.segments[i];
    if (s.base != n) {
      b.remove_segment(s, fmt::format("every segment goes (the log restarts at {})", n));
      continue;
    }
    out.bytes_freed += s.size;
    if (exists(s.path(FileKind::txnindex)))
      out.main.actions.push_back(safe::Action::remove(seg_name(s.base, FileKind::txnindex), "index of an emptied segment"));
  }
  for (auto it = p.snapshots.rbegin(); it != p.snapshots.rend(); ++it)
    b.remove_snapshot(it->first, it->second, "producer state is empty after a full truncation");
  for (FileKind k : {FileKind::log, FileKind::timeindex, FileKind::index})
    out.main.actions.push_back(
        safe::Action::write(seg_name(n, k), {}, fmt::format("the empty segment the log restarts at, {}", n)));
  set_epochs(p, out, {}, p.epoch_file);
  out.new_end = n;
  b.new_start = n;
  const auto& cc = p.line(RootCheckpoint::cleaner).mine;
  if (cc && *cc > n) set_line(p, out, RootCheckpoint::cleaner, n);
  return {};
}

// The empty segment at `base` an interrupted run (or none) left without
// some of its files: Kafka makes them when it loads, so does a re-run.
void ensure_empty_segment(const Input& p, TruncatePlan& out, int64_t base) {
  for (FileKind k : {FileKind::log, FileKind::timeindex, FileKind::index})
    if (!exists(p.dir + "/" + seg_name(base, k)))
      out.main.actions.push_back(safe::Action::write(seg_name(base, k), {}, fmt::format("the empty active segment at {}", base)));
}


// Deletes the first `count` segments, as deleteSegments does: the log start
// offset rises to the first one left (a new empty one at the log end when
// all go), leader epochs are cut from the start there.
Status plan_delete_prefix(Input& p, Builder& b, size_t count, int64_t log_start, const std::string& why) {
  TruncatePlan& out = b.out;
  out.new_end = p.log_end;
  if (p.segments.empty()) {  // an interrupted run removed them all: the empty segment it rolls
    b.new_start = std::max(log_start, p.log_end);
    ensure_empty_segment(p, out, p.log_end);
    set_epochs(p, out, truncate_epochs_from_start(p.epochs, b.new_start));
    return {};
  }
  int64_t first = p.log_end;
  // deleteSegments rolls first when every segment goes (the rules never
  // count an empty last segment, so the last one here holds data).
  if (count == p.segments.size())
    for (FileKind k : {FileKind::log, FileKind::timeindex, FileKind::index})
      out.main.actions.push_back(safe::Action::write(
          seg_name(p.log_end, k), {}, fmt::format("the empty active segment Kafka rolls when every segment goes")));
  if (count < p.segments.size()) first = p.segments[count].base;
  if (count + 1 == p.segments.size() && p.segments.back().size == 0) ensure_empty_segment(p, out, first);
  for (size_t i = 0; i < count; ++i) {
    const Segment& s = p.segments[i];
    b.remove_segment(s, why);
    for (const auto& [offset, name] : p.snapshots)
      if (offset == s.base) b.remove_snapshot(offset, name, "producer snapshot of a removed segment");
  }
  b.new_start = truncation::start_after_prefix(p, count, log_start);
  set_epochs(p, out, truncate_epochs_from_start(p.epochs, b.new_start));
  return plan_end_snapshot(p, b, p.log_end);
}


// The cut as its options say; `with_now`: with the clock, which a re-run of
// the same command line reads anew (so a journal does not hold it).
std::string mode_text(const TruncateOptions& o, bool with_now = true) {
  switch (o.mode) {
    case TruncateMode::to_offset: return fmt::format("--to-offset {}", o.value);
    case TruncateMode::to_time: return fmt::format("--to-time {}", o.value);
    case TruncateMode::log_start: return fmt::format("--log-start {}", o.value);
    case TruncateMode::full: return fmt::format("--full {}", o.value);
    case TruncateMode::retention: {
      std::string s;
      if (o.retention_ms) s += fmt::format("--retention-ms {} ", *o.retention_ms);
      if (o.retention_bytes) s += fmt::format("--retention-bytes {} ", *o.retention_bytes);
      if (o.now_ms && with_now) s += fmt::format("--now {} ", *o.now_ms);
      if (!s.empty()) s.pop_back();
      return s;
    }
  }
  return "";
}

// The cut the mode asks for, planned into `b`; what it comes to, for the
// summary (out.summary set instead when a time finds no batch).
Result<std::string> plan_mode(Input& p, Builder& b, const TruncateOptions& o, bool resume,
                              std::optional<int64_t> hw_line) {
  TruncatePlan& out = b.out;
  const std::string& dir = p.dir;
  const int64_t hw = hw_line.value_or(p.log_end);  // no line: as a single replica's leader, the log end
  std::string what;
  int64_t target = o.value;
  switch (resume && o.mode == TruncateMode::to_time ? TruncateMode::to_offset : o.mode) {
    case TruncateMode::to_time: {
      if (o.value < 0) return fail(Errc::usage, fmt::format("{}: --to-time must be >= 0", dir));
      auto found = offset_for_time(p, o.value);
      if (!found.ok()) return found.error();
      if (!*found) {
        out.new_end = p.log_end;
        out.new_start = out.old_start;
        out.what = fmt::format("no batch has a timestamp >= {}: nothing to cut (log ends at {})", o.value, p.log_end);
        out.summary = fmt::format("{}: {}", dir, out.what);
        return std::string();
      }
      target = **found;
      what = fmt::format("the first record with a timestamp >= {} is at offset {}; ", o.value, target);
      [[fallthrough]];
    }
    case TruncateMode::to_offset: {
      if (resume) target = *p.journal_end;
      if (target < 0) return fail(Errc::usage, fmt::format("{}: --to-offset must be >= 0, not {}", dir, target));
      if (resume && !p.segments.empty() && target >= p.log_end) {
        // The interrupted run cut the .log already: finish its other files.
        if (Status st = plan_cut(p, b, p.log_end); !st.ok()) return st.error();
        what += fmt::format("finishing an interrupted cut: the log ends at {}", out.new_end);
        break;
      }
      if (target >= p.log_end) {
        // UnifiedLog.truncateTo: no effect at or past the end but the epoch
        // cache cut at the end; so a cut an interruption finished re-runs.
        if (o.mode == TruncateMode::to_offset)
          out.note = note(Code::note_nothing_to_cut, dir,
                          fmt::format("offset {} is at or past the log end {}: nothing to cut", target, p.log_end));
        set_epochs(p, out, truncate_epochs_from_end(p.epochs, p.log_end));
        out.new_end = p.log_end;
        what += fmt::format("nothing to cut: the log ends at {}", p.log_end);
        break;
      }
      if (target < p.first_base()) {
        if (Status st = plan_full(p, b, target); !st.ok()) return st.error();
        what += fmt::format("{} is below the first segment ({}): the log restarts empty at {}", target, p.first_base(), target);
        break;
      }
      if (Status st = plan_cut(p, b, target); !st.ok()) return st.error();
      what += out.new_end == target ? fmt::format("the log now ends at {}", out.new_end)
                                    : fmt::format("offset {} is inside a batch or a gap: the log now ends at {} (the "
                                                  "batch boundary below it)", target, out.new_end);
      break;
    }
    case TruncateMode::full: {
      if (o.value < 0) return fail(Errc::usage, fmt::format("{}: --full must be >= 0", dir));
      if (Status st = plan_full(p, b, o.value); !st.ok()) return st.error();
      what = fmt::format("every record goes: the log restarts empty at {}", o.value);
      break;
    }
    case TruncateMode::log_start: {
      if (o.value < 0) return fail(Errc::usage, fmt::format("{}: --log-start must be >= 0", dir));
      if (o.value > hw)
        return fail(Errc::usage,
                    fmt::format("{}: log start {} is above the {} {}: Kafka's DeleteRecords refuses it "
                                "(OffsetOutOfRangeException)", dir, o.value,
                                hw_line ? "high watermark (replication-offset-checkpoint)" : "log end offset", hw));
      if (o.value <= out.old_start && !resume) {
        out.new_end = p.log_end;
        what = fmt::format("nothing to do: the log start offset is {} already", out.old_start);
        break;
      }
      auto n = retention_prefix(p, TruncateOptions{}, hw, o.value);
      if (!n.ok()) return n.error();
      if (Status st = plan_delete_prefix(p, b, *n, o.value, fmt::format("wholly below the log start offset {}", o.value));
          !st.ok())
        return st.error();
      what = fmt::format("log start offset {} -> {}; {} segment{} wholly below it removed", out.old_start, b.new_start, *n,
                         *n == 1 ? "" : "s");
      break;
    }
    case TruncateMode::retention: {
      auto n = retention_prefix(p, o, hw, out.old_start);
      if (!n.ok()) return n.error();
      if (resume) {  // the segments below the log start the interrupted run made
        *n = 0;
        while (*n < p.segments.size() && p.segments[*n].base < *p.journal_start) ++*n;
      }
      if (*n == 0 && !resume) {
        out.new_end = p.log_end;
        what = "no segment breaches retention";
        break;
      }
      if (Status st = plan_delete_prefix(p, b, *n, out.old_start, "breaches retention"); !st.ok()) return st.error();
      what = fmt::format("{} segment{} breach retention; the log start offset is now {}", *n, *n == 1 ? "" : "s",
                         b.new_start);
      break;
    }
  }
  return what;
}

// The root checkpoints' lines, as LogManager writes them at shutdown.
void plan_root_lines(Input& p, TruncatePlan& out, const TruncateOptions& o, std::optional<int64_t> rp_line,
                     std::optional<int64_t> hw_line) {
  // Recovery point: clamped to the new end (truncateTo), raised to the new
  // log start (maybeIncrementLogStartOffset), the start of an emptied log.
  if (rp_line)
    set_line(p, out, RootCheckpoint::recovery_point,
             o.mode == TruncateMode::full ? out.new_end : std::max(std::min(*rp_line, out.new_end), out.new_start));
  if (hw_line) set_line(p, out, RootCheckpoint::replication, std::max(std::min(*hw_line, out.new_end), out.new_start));
  // Listed only above the first segment's base; lowered before anything
  // else is cut (a log start above the log end makes the broker wipe it).
  int64_t first_base = out.new_end;
  for (const auto& s : p.segments) {
    bool gone = false;
    for (const auto& a : out.main.actions)
      if (a.kind == safe::Action::Kind::remove && a.name == seg_name(s.base, FileKind::log)) gone = true;
    if (!gone) {
      first_base = s.base;
      break;
    }
  }
  if (o.mode == TruncateMode::full) first_base = o.value;
  // A log start that moves is written first, as what it becomes: a crash
  // before the segments follow then leaves Kafka the right log start (one
  // lowered: never above the log end, which makes it wipe the partition;
  // one raised: never back below records deleted; no segment left: the
  // empty one it makes is at the new start).
  if (out.new_start != out.old_start) set_line(p, out, RootCheckpoint::log_start, out.new_start, true);
  set_line(p, out, RootCheckpoint::log_start,
           out.new_start > first_base ? std::optional<int64_t>(out.new_start) : std::nullopt);
}

// The clean-shutdown marker: moved aside first, so that a crash leaves an
// unclean shutdown (Kafka then recovers from the recovery point and
// rebuilds producer state), written back once everything is durable; the
// journal that lets a re-run finish the same cut.
void plan_journal(const Input& p, const Builder& b, std::optional<int64_t> rp_line, const std::string& identity) {
  TruncatePlan& out = b.out;
  if (out.changes()) {
    nlohmann::json j;
    j["recovery_point"] = rp_line ? nlohmann::json(*rp_line) : nlohmann::json(nullptr);
    // The marker's bytes as they were (any bytes: hex).
    std::string hex;
    if (p.marker) append_hex(hex, Bytes(*p.marker));
    j["marker_hex"] = p.marker ? nlohmann::json(hex) : nlohmann::json(nullptr);
    j["args"] = identity;
    j["end"] = out.new_end;
    j["start"] = out.new_start;
    j["loaded_start"] = b.loaded_start;
    const std::string text = j.dump() + "\n";
    out.journal_bytes.assign(text.begin(), text.end());
    if (exists(p.log_dir + "/" + kCleanShutdownFile))
      out.first.actions.insert(out.first.actions.begin(),
                               safe::Action::remove(kCleanShutdownFile, "until the cut is durable").in_log_dir());
    out.marker = p.marker;
    out.journal = true;
  } else if (p.journal) {
    out.journal = true;  // nothing left to do but finish: marker back, journal gone
    out.marker = p.marker;
  }
}

}  // namespace

Result<TruncatePlan> plan_truncate(const std::string& dir, const TruncateOptions& o) {
  auto loaded = truncation::load(dir);
  if (!loaded.ok()) return loaded.error();
  Input& p = *loaded;
  TruncatePlan out;
  out.partition_dir = dir;
  out.main.partition_dir = out.first.partition_dir = dir;
  out.old_end = p.log_end;
  out.old_start = p.log_start();
  Builder b{p, out, out.old_start, out.old_start, {}};
  if (p.journal && p.journal_loaded_start) b.loaded_start = *p.journal_loaded_start;
  const auto hw_line = p.line(RootCheckpoint::replication).mine;
  // Before a plan (or an interrupted one) armed recovery.
  const auto rp_line = p.journal ? p.journal_recovery_point : p.line(RootCheckpoint::recovery_point).mine;
  const std::string mode = mode_text(o), identity = mode_text(o, false);
  if (p.journal && p.journal_args != identity)
    return refusal(Code::refuse_interrupted_truncate, std::nullopt,
                   fmt::format("{}/{}: an interrupted `kseg-truncate {}` left this: run it again to finish it before "
                               "another cut", dir, kTruncateJournal, p.journal_args));
  // A re-run after an interruption makes the cut the journal names: the end
  // and start it resolved (a time or the clock could resolve anew).
  const bool resume = p.journal && p.journal_end && p.journal_start;
  auto what = plan_mode(p, b, o, resume, hw_line);
  if (!what.ok()) return what.error();
  if (!out.summary.empty()) return out;
  out.new_start = b.new_start;
  // Kafka deletes an index without its .log when it loads; so does a cut.
  for (const auto& name : p.orphan_indexes)
    out.main.actions.push_back(safe::Action::remove(name, "index without its .log (an interrupted removal)"));
  plan_root_lines(p, out, o, rp_line, hw_line);
  // Kafka's load deletes the snapshots it cannot start from (at or below the
  // log start it loads with, or past the log end); so does a cut. A run with
  // nothing to cut changes no file: a re-run after a --log-start, which
  // leaves one at the new log start as Kafka does, is a no-op.
  if (out.changes() || p.journal)
    for (const auto& [offset, name] : snapshots_loader_deletes(b.kept_snapshots(), b.loaded_start, p.log_end))
      b.remove_snapshot(offset, name, offset > p.log_end ? fmt::format("producer snapshot past the log end {} (Kafka's load "
                                                                   "deletes it)", p.log_end)
                                                     : fmt::format("producer snapshot at or below the log start {} "
                                                                   "(Kafka's load deletes it)", b.loaded_start));
  plan_journal(p, b, rp_line, identity);
  out.what = fmt::format("{}: {}", mode, *what);
  out.summary = fmt::format("{}: {}", dir, out.what);
  return out;
}

}  // namespace kseg
