// SPDX-License-Identifier: Apache-2.0
// Planning for kseg-reindex: what each segment of a partition should look
// like after Kafka's recovery, compared with what is on disk.
#include <algorithm>
#include <filesystem>
#include <functional>

#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "formats/index_serves.h"
#include "formats/log_entry.h"
#include "formats/segment_salvage.h"
#include "formats/txn_index.h"
#include "lib/byte_reader.h"
#include "lib/mapped_file.h"
#include "lib/units.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/segment_end_code.h"
#include "tools/ops/partition/state_files.h"
#include "tools/ops/reindex/reindex.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

struct Segment {
  Offset base;
  std::string log_name;
  recover::SegmentRecovery recovery;
  bool active = false;  // the partition's last segment
  // A preallocated index of its own may stay: the active segment of a log dir
  // the broker shut down cleanly, under a plain run (Kafka loads it as it is;
  // after an unclean shutdown its recovery rebuilds it). Not a .timeindex,
  // but the metadata log's (Kafka recovers that log at every start): loaded
  // as it is, its zeros fill it, the next append rolls the segment and leaves
  // it untrimmed, and retention then reads its largest timestamp as 0
  // (verify: timeindex.preallocated_loaded; tests/kafka/timeindex-broker.sh).
  bool preallocated_ok = false;
  bool time_preallocated_ok = false;
};

// Where Kafka's own recovery throws: nothing of the partition is changed.
Problem refusal(const std::string& file, const Error& e) {
  return Problem::of(Code::log_unrecoverable, file, e.position, "refused: " + e.message);
}

std::string file_name(Offset base, file_names::FileKind kind) { return file_names::segment_file_name(base, kind); }

std::vector<Offset> segment_bases(const PartitionLayout& layout) {
  std::vector<Offset> bases;  // in offset order: the layout's map is
  for (const auto& [base, files] : layout.segments)
    if (files.canonical) bases.push_back(base);
  return bases;
}

// Whether `have` is the first `n` bytes of `want` followed by zero bytes
// only (the pages read are released as it goes: a preallocated index is
// 10 MiB by default).
bool want_then_zeros(MappedFile& have, const std::vector<uint8_t>& want, size_t n) {
  const Bytes b = have.bytes();
  if (b.size() < n || !std::equal(want.begin(), want.begin() + n, b.begin())) return false;
  constexpr size_t kChunk = 2 << 20;
  for (size_t from = n; from < b.size(); from += kChunk) {
    const size_t to = std::min(b.size(), from + kChunk);
    if (!std::all_of(b.begin() + from, b.begin() + to, [](uint8_t x) { return x == 0; })) return false;
    have.release_range(Position{static_cast<int64_t>(from)}, Position{static_cast<int64_t>(to)});
  }
  return true;
}

// Plans `name` rewritten as `want` unless it holds that already. With
// `zero_tail_ok` (Segment::preallocated_ok), `want` followed by
// zeros holds it too: the broker's own preallocated index, which it trims
// at the segment's roll or its clean shutdown (verify: index.preallocated);
// a time index without the last entry of `want` as well: recovery appends
// the segment's largest timestamp at its end, the broker at the roll.
//
// `serves`, when given (a plain run whose index settings were not set on
// the command line), keeps an index that differs from `want` but serves the
// log (formats/index_serves.h): the broker's own, written with another
// interval or by whole appends; rewriting it would fix nothing.
Status plan_index(const std::string& dir, const std::string& name, const std::vector<uint8_t>& want,
                  int64_t entry_size, safe::Plan& plan, bool zero_tail_ok = false,
                  const std::function<bool(Bytes)>& serves = {}) {
  const std::string path = dir + "/" + name;
  std::error_code ec;
  const auto st = fs::status(path, ec);  // a dangling link: missing
  std::string was("was missing");
  if (fs::exists(st)) {
    const bool regular = fs::is_regular_file(st);
    const auto size = regular ? fs::file_size(path, ec) : 0;
    was = fmt::format("was {} bytes", size);
    // A size that differs settles it: a preallocated index is read only when it may stay.
    const bool zero_tail = zero_tail_ok && regular && !ec && size > want.size() && size % entry_size == 0;
    // An index the broker (or kseg-reindex --index-entry-bytes 12) wrote at either width.
    const bool may_serve = serves && regular && !ec && (size % entry_size == 0 || size % 12 == 0);
    if (!regular || ec || size == want.size() || zero_tail || may_serve) {
      auto have = MappedFile::open(path);  // what is not a file is refused here, named
      if (!have.ok()) return have.error().in(path);
      if (std::equal(want.begin(), want.end(), have->bytes().begin(), have->bytes().end())) return {};
      if (zero_tail && want_then_zeros(*have, want, want.size())) return {};
      if (zero_tail && entry_size == 12 && !want.empty() && want_then_zeros(*have, want, want.size() - 12)) return {};
      if (may_serve && serves(have->bytes())) return {};
    }
  }
  plan.actions.push_back(safe::Action::write(name, want,
                          fmt::format("rebuilt: {} entries, {} bytes ({})", want.size() / static_cast<size_t>(entry_size),
                                      want.size(), was)));
  return {};
}

std::string offsets_text(std::optional<Offset> first, std::optional<Offset> last) {
  if (!first || !last) return "no offsets";
  return fmt::format("offsets {}..{}", *first, *last);
}

std::string declared_text(const recover::RemovedRange& removed) {
  return removed.entries > 0
             ? fmt::format("{} as declared by {} entr{} there", offsets_text(removed.first_offset, removed.last_offset),
                           removed.entries, removed.entries == 1 ? "y" : "ies")
             : std::string("no readable entry");
}

void plan_truncation(const Segment& s, Bytes log, safe::Plan& plan, Removed& removed) {
  const auto& r = s.recovery;
  const recover::RemovedRange cut = recover::describe_removed(log, r.valid_end, s.base);
  removed.add(r.file_size.bytes - r.valid_end.value, cut.first_offset, cut.last_offset);
  const std::string what = declared_text(cut);
  plan.actions.push_back(safe::Action::copy(
      s.log_name, {{Position{0}, Length{r.valid_end.value}}},
      fmt::format("keep {} of {} bytes (last kept offset {}); remove bytes [{}, {}): {} ({}: {})", r.valid_end,
                  r.file_size, r.last_offset ? fmt::format("{}", *r.last_offset) : std::string("none"), r.valid_end,
                  r.file_size, what, segment_end_name(r.stop), r.stop_detail)));
}

void plan_removal(const std::string& dir, const Segment& s, Offset cut_base, safe::Plan& plan, Removed& removed) {
  using file_names::FileKind;
  removed.add(s.recovery.file_size.bytes, s.recovery.first_offset, s.recovery.last_offset);
  // .log first: a crash part-way leaves orphan indexes, which Kafka deletes.
  for (FileKind k : {FileKind::log, FileKind::index, FileKind::timeindex, FileKind::txnindex}) {
    const std::string name = file_name(s.base, k);
    std::error_code ec;
    if (!fs::exists(dir + "/" + name, ec)) continue;
    const std::string why =
        k == FileKind::log ? fmt::format("{} bytes, {}: follows truncated segment {} (Kafka's recovery deletes it)",
                                         s.recovery.file_size, offsets_text(s.recovery.first_offset, s.recovery.last_offset),
                                         cut_base)
                           : std::string("index of a removed segment");
    plan.actions.push_back(safe::Action::remove(name, why));
  }
}

// --salvage: the .log as the concatenation of the kept ranges, one report
// per gap. `r` is the recovery of the new layout.
void plan_salvage(const Segment& s, const recover::Salvage& sv, const recover::SegmentRecovery& r, Length old_size,
                  safe::Plan& plan, Removed& removed) {
  for (const auto& g : sv.gaps) removed.add((g.end - g.begin).bytes, g.declared.first_offset, g.declared.last_offset);
  safe::Action a = safe::Action::copy(s.log_name, {}, "");
  for (const auto& p : sv.kept) a.ranges.push_back({p.begin, p.end - p.begin});
  a.why = fmt::format("keep {} of {} bytes in {} range{} ({} batches, offsets up to {}); {} gap{}", sv.kept_bytes(),
                      old_size, sv.kept.size(), sv.kept.size() == 1 ? "" : "s", r.valid_batches,
                      r.last_offset ? fmt::format("{}", *r.last_offset) : std::string("none"), sv.gaps.size(),
                      sv.gaps.size() == 1 ? "" : "s");
  for (const auto& g : sv.gaps)
    a.why += fmt::format("; remove bytes [{}, {}): {}{} ({}: {})", g.begin, g.end, declared_text(g.declared),
                         g.skipped_valid > 0 ? fmt::format(", {} valid batch{} out of offset order", g.skipped_valid,
                                                                 g.skipped_valid == 1 ? "" : "es")
                                             : std::string(),
                         g.reason, g.detail);
  plan.actions.push_back(std::move(a));
}

// What --salvage leaves for the broker: an ABORT marker the gaps cut out,
// named by the segment's .txnindex, no longer ends its transaction in the
// log (kseg-verify then reports the same code).
void note_removed_markers(const std::string& dir, const Segment& s, const recover::Salvage& sv,
                          std::vector<Problem>& problems) {
  const std::string path = dir + "/" + file_name(s.base, file_names::FileKind::txnindex);
  auto f = MappedFile::open(path);
  if (!f.ok()) return;
  txn_index::View v(f->bytes());
  for (int64_t i = 0; i < v.entry_count(); ++i) {
    const auto t = v.entry(i);
    for (const auto& g : sv.gaps) {
      if (!g.declared.first_offset || !g.declared.last_offset || t.last_offset < g.declared.first_offset->value ||
          t.last_offset > g.declared.last_offset->value)
        continue;
      problems.push_back(Problem::of(
          Code::txnindex_marker_removed, path, v.entry_position(i),
          fmt::format("the bytes removed at [{}, {}) held offset {}, the ABORT marker of producer {}'s transaction from "
                      "offset {}: a broker that rebuilds producer state from before it keeps the transaction open (if "
                      "READ_COMMITTED consumers stall there: kafka-transactions.sh abort --start-offset {})",
                      g.begin, g.end, t.last_offset, t.producer_id, t.first_offset, t.first_offset),
          "an ABORT marker", "removed bytes"));
    }
  }
}

// Salvages a damaged segment and replaces s.recovery by Kafka's recovery of
// the new layout. Each pass maps the file afresh so that it can release what
// it has read: resident memory stays flat on large segments.
Result<recover::Salvage> salvage(const std::string& dir, Segment& s, const recover::Config& config) {
  const std::string path = dir + "/" + s.log_name;
  auto f = MappedFile::open(path);
  if (!f.ok()) return f.error().in(path);
  auto sv = recover::salvage_segment(f->bytes(), s.base, config, [&](Position p) { f->release_before(p); });
  if (!sv.ok()) return sv.error();
  auto g = MappedFile::open(path);
  if (!g.ok()) return g.error().in(path);
  auto layout = recover::recover_layout(g->bytes(), sv->kept, s.base, config, [&](Position p) { g->release_before(p); });
  if (!layout.ok()) return layout.error();
  s.recovery = std::move(*layout);
  return sv;
}

// A segment that stays: its rebuilt indexes, and under a repair its .log cut
// at the first invalid batch (recover) or cut around its invalid bytes (salvage).
Status plan_kept(const std::string& dir, Segment& s, Bytes log, Repair repair, const recover::Config& config,
                 bool keep_serving, PartitionPlan& out, std::optional<recover::Salvage>& sv) {
  const std::string index_name = file_name(s.base, file_names::FileKind::index);
  const bool rewrite = repair != Repair::none && s.recovery.truncates();
  const Length old_size = s.recovery.file_size;
  if (rewrite && repair == Repair::salvage) {
    auto found = salvage(dir, s, config);
    if (!found.ok()) return found.error();
    sv = std::move(*found);
  }
  const auto& r = s.recovery;
  // A plain run keeps the broker's indexes of a log it leaves as it is when they serve it.
  const bool keep = keep_serving && repair == Repair::none && !r.truncates();
  const Bytes valid = log.subspan(0, static_cast<size_t>(std::min<int64_t>(r.valid_end.value, static_cast<int64_t>(log.size()))));
  std::function<bool(Bytes)> offsets_serve, times_serve;
  if (keep) {
    // No larger than segment.index.bytes: what Kafka sizes its indexes by.
    // Captured by value: the functions outlive this block.
    const size_t cap = static_cast<size_t>(config.segment_index_bytes);
    const Offset base = s.base;
    offsets_serve = [cap, base, valid](Bytes have) {
      return have.size() <= cap &&
             offset_index_serves(offset_index::View(have, base, Position{0}, offset_index_width(have, base, valid)), valid);
    };
    times_serve = [cap, base, valid](Bytes have) {
      return have.size() <= cap && time_index_serves(time_index::View(have, base), valid);
    };
  }
  if (rewrite) {
    // Without its .index Kafka recovers the segment at any start-up, so a
    // crash after this unlink is finished by the broker (safe_write.h).
    out.plan.actions.push_back(
        safe::Action::hide(index_name, "so that a crash from here on makes Kafka recover this segment"));
  } else {
    KSEG_RETURN_IF_ERROR(plan_index(dir, index_name, r.offset_index, r.offset_index_entry_bytes, out.plan, s.preallocated_ok, offsets_serve));
  }
  KSEG_RETURN_IF_ERROR(plan_index(dir, file_name(s.base, file_names::FileKind::timeindex), r.time_index, 12, out.plan,
                                  s.time_preallocated_ok, times_serve));
  if (rewrite) {
    if (sv) {
      plan_salvage(s, *sv, r, old_size, out.plan, out.removed);
      note_removed_markers(dir, s, *sv, out.problems);
    }
    else plan_truncation(s, log, out.plan, out.removed);
    out.plan.actions.push_back(safe::Action::write(index_name, r.offset_index,
                                                   fmt::format("rebuilt: {} entries, {} bytes (renamed last)",
                                                               r.offset_index.size() / static_cast<size_t>(r.offset_index_entry_bytes),
                                                               r.offset_index.size())));
  } else if (r.truncates()) {
    out.problems.push_back(Problem::of(
        segment_end_code(r.stop, s.active).value_or(Code::log_trailing_garbage), dir + "/" + s.log_name, r.valid_end,
        fmt::format("{} invalid bytes from here ({}: {}); --salvage or --recover removes them",
                    r.file_size - Length{r.valid_end.value}, segment_end_name(r.stop), r.stop_detail)));
  }
  return {};
}

// Temporary files a crashed run left that this plan does not rewrite: ours,
// ignored by Kafka, but clutter (a plan that rewrites one reuses the name).
void plan_stale_tmp(const std::string& dir, safe::Plan& plan) {
  const std::string suffix = safe::kTmpSuffix;
  std::vector<std::string> stale;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code type_ec;  // a symlink loop or a vanished file is no tmp file of ours
    if (!e.is_regular_file(type_ec) || name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    const std::string target = name.substr(0, name.size() - suffix.size());
    const bool rewritten = std::any_of(plan.actions.begin(), plan.actions.end(), [&](const safe::Action& a) {
      return a.name == target && a.replaces();
    });
    if (!rewritten) stale.push_back(name);
  }
  std::sort(stale.begin(), stale.end());
  for (auto& n : stale) plan.actions.push_back(safe::Action::remove(n, "left by an interrupted kseg run"));
}

// The leader epoch cache Kafka's recovery of every kept segment builds:
// each v2 batch whose partitionLeaderEpoch is above the latest so far starts
// an entry at its base offset (LogSegment.recover). Headers only.
Result<std::vector<checkpoint::EpochEntry>> epochs_of_batches(const std::vector<KeptLog>& kept) {
  std::vector<checkpoint::EpochEntry> out;
  for (const auto& k : kept) {
    auto log = MappedFile::open(k.path);
    if (!log.ok()) return log.error().in(k.path);
    for (const auto& r : k.ranges) {
      EntryScanner scan(log->bytes().subspan(static_cast<size_t>(r.begin.value), static_cast<size_t>(r.size.bytes)),
                        r.begin);
      while (auto e = scan.next()) {
        log->release_before(e->position);  // resident memory flat in the segment's size
        if (e->magic < 2 || e->bytes.size() < 16) continue;
        const auto epoch = static_cast<int32_t>(load_be32(e->bytes.data() + 12));
        if (epoch >= 0 && (out.empty() || epoch > out.back().epoch)) out.push_back({epoch, e->offset});
      }
    }
  }
  return out;
}

// LogLoader, once it has loaded and recovered the log, cuts the leader
// epoch cache at the log end (truncateFromEnd: entries starting at or after
// it go) and writes the checkpoint: done here where the log changes. A file
// Kafka's load throws on (it does not parse, or has a negative entry) is
// rebuilt from the kept batches, as Kafka's recovery of every segment would,
// then cut at the checkpointed log start as LogLoader cuts it.
Status plan_epochs(const std::string& dir, const std::vector<KeptLog>& kept, int64_t log_end, bool log_changes,
                   PartitionPlan& out) {
  const std::string name = "leader-epoch-checkpoint", path = dir + "/" + name;
  bool corrupt = std::any_of(out.left_as_is.begin(), out.left_as_is.end(),
                             [](const Problem& p) { return p.code == Code::epoch_corrupt; });
  if (corrupt) {  // entries that only fail to increase Kafka reads (keeping the later): left as they are
    auto bytes = MappedFile::read_state_file(path);
    if (bytes.ok()) {
      auto entries = checkpoint::parse_leader_epoch_checkpoint(
          std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
      corrupt = !entries.ok() || std::any_of(entries->begin(), entries->end(), [](const checkpoint::EpochEntry& e) {
        return e.epoch < 0 || e.start_offset < 0;
      });
    }
  }
  if (corrupt) {
    auto rebuilt = epochs_of_batches(kept);
    if (!rebuilt.ok()) return rebuilt.error();
    // Then, as LogLoader, cut at the checkpointed log start (an unreadable line: Kafka takes 0).
    if (auto start = partition_checkpoint(dir, RootCheckpoint::log_start); start.ok() && *start)
      *rebuilt = checkpoint::truncate_epochs_from_start(*rebuilt, **start);
    std::erase_if(out.left_as_is, [](const Problem& p) { return p.code == Code::epoch_corrupt; });
    const std::string text = checkpoint::serialize_leader_epoch_checkpoint(*rebuilt);
    out.plan.actions.push_back(safe::Action::write(
        name, std::vector<uint8_t>(text.begin(), text.end()),
        fmt::format("rebuilt from the batches' leader epochs ({} entr{}), as Kafka's recovery of every segment "
                    "assigns them: the file did not read (an epoch whose leader appended nothing has no entry)",
                    rebuilt->size(), rebuilt->size() == 1 ? "y" : "ies")));
    return {};
  }
  if (!log_changes) return {};
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  auto bytes = MappedFile::read_state_file(path);
  if (!bytes.ok()) return bytes.error().in(path);
  auto entries = checkpoint::parse_leader_epoch_checkpoint(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
  if (!entries.ok()) return {};
  const auto kept_entries = checkpoint::truncate_epochs_from_end(*entries, log_end);
  if (kept_entries.size() == entries->size()) return {};
  const std::string text = checkpoint::serialize_leader_epoch_checkpoint(kept_entries);
  out.plan.actions.push_back(safe::Action::write(
      name, std::vector<uint8_t>(text.begin(), text.end()),
      fmt::format("{} of {} entries kept: those from the log end {} on go, as Kafka's recovery cuts its epoch cache",
                  kept_entries.size(), entries->size(), log_end)));
  return {};
}

// The write protocol removes files before it renames new ones in. A crash
// between the two could leave no producer snapshot, and Kafka, after a clean
// shutdown with none, assumes there are no producers. Without the last
// segment's .index Kafka recovers that segment instead, rebuilding producer
// state from the log: so the .index goes first and comes back last.
void hide_while_snapshots_change(Offset last_base, const std::vector<uint8_t>& index, int64_t entry_bytes,
                                 size_t first_action, safe::Plan& plan) {
  const bool removes = std::any_of(plan.actions.begin() + static_cast<std::ptrdiff_t>(first_action), plan.actions.end(),
                                   [](const safe::Action& a) {
                                     return a.kind == safe::Action::Kind::remove && a.name.ends_with(".snapshot");
                                   });
  if (!removes) return;
  // Renames follow the plan's order, so the .index must come back after the
  // snapshots: a repair's own hide and rewrite of it (earlier) move here.
  const std::string name = file_name(last_base, file_names::FileKind::index);
  std::erase_if(plan.actions, [&](const safe::Action& a) { return a.name == name; });
  plan.actions.push_back(safe::Action::hide(name, "so that a crash while snapshots change makes Kafka recover this segment"));
  plan.actions.push_back(safe::Action::write(name, index, fmt::format("rebuilt: {} entries, {} bytes (renamed last)",
                                                                       index.size() / static_cast<size_t>(entry_bytes),
                                                                       index.size())));
}

}  // namespace

Result<PartitionPlan> plan_partition(const std::string& dir, const recover::Config& config, Repair repair,
                                     std::optional<Offset> only_base, const ProducerStateOptions& producers,
                                     bool keep_serving) {
  PartitionPlan out;
  out.plan.partition_dir = dir;
  auto layout = read_partition_layout(dir);
  if (!layout.ok()) return Error{Errc::io, std::nullopt, fmt::format("cannot list {}: {}", dir, layout.error().message)};
  const std::vector<Offset> all_bases = segment_bases(*layout);
  const bool clean_shutdown = log_dir_files(log_dir_of(dir)).clean_shutdown;
  const auto* bases = &all_bases;
  // --producer-state rewrites the snapshots; the other state files are never this tool's to fix.
  out.left_as_is = unchanged_state_problems(dir, *layout, !producers.rebuild);
  std::optional<Offset> cut_base;  // the segment --recover truncated; later ones go
  std::vector<KeptLog> kept;
  int64_t log_end = 0;
  bool log_changed = false, invalid_left = false;
  std::vector<uint8_t> last_index;  // the last kept segment's rebuilt .index
  int64_t last_index_entry_bytes = offset_index::kEntrySize;
  int64_t work = 0;  // the .log bytes read, for the progress line
  for (Offset base : *bases) {
    std::error_code ec;
    const auto size = fs::file_size(dir + "/" + file_name(base, file_names::FileKind::log), ec);
    if (!ec && (!only_base || base == *only_base)) work += static_cast<int64_t>(size);
  }
  progress_more(work);
  for (Offset base : *bases) {
    if (only_base && base != *only_base) continue;
    Segment s{base, file_name(base, file_names::FileKind::log), {}, base == bases->back()};
    s.preallocated_ok = s.active && repair == Repair::none && clean_shutdown;
    s.time_preallocated_ok = s.preallocated_ok && !active_indexes_loaded_as_is(dir);
    auto log = MappedFile::open(dir + "/" + s.log_name);
    if (!log.ok()) return log.error().in(dir + "/" + s.log_name);
    const ProgressDoneAtEnd told{log->size()};
    auto clean = recover_clean(*log, base, config);
    auto r = clean ? Result<recover::SegmentRecovery>(std::move(*clean))
                   : recover::recover_segment(log->bytes(), base, config, [&](Position p) { log->release_before(p); });
    if (!r.ok() && repair == Repair::salvage && r.error().code == Errc::refused) {
      // Where Kafka fails (e.g. offsets going back), salvage may still find
      // a layout it loads: mark the segment damaged (salvage starts over).
      recover::SegmentRecovery failed;
      failed.file_size = Length{static_cast<int64_t>(log->bytes().size())};
      failed.valid_end = Position{0};
      failed.stop_detail = r.error().message;
      r = std::move(failed);
    }
    if (!r.ok()) {
      out.problems.push_back(refusal(dir + "/" + s.log_name, r.error()));
      out.refused = true;
      out.plan.actions.clear();
      return out;
    }
    s.recovery = std::move(*r);
    out.segments++;
    if (cut_base) {
      plan_removal(dir, s, *cut_base, out.plan, out.removed);
      log_changed = true;
      continue;
    }
    std::optional<recover::Salvage> sv;
    const bool damaged = s.recovery.truncates();  // salvage replaces s.recovery by the new layout's
    if (Status st = plan_kept(dir, s, log->bytes(), repair, config, keep_serving, out, sv); !st.ok()) {
      if (st.error().code != Errc::refused) return st.error();
      out.problems.push_back(refusal(dir + "/" + s.log_name, st.error()));
      out.refused = true;
      out.plan.actions.clear();
      return out;
    }
    KeptLog k{base, dir + "/" + s.log_name, {}};
    if (sv) {
      for (const auto& p : sv->kept) k.ranges.push_back({p.begin, p.end - p.begin});
    } else if (s.recovery.valid_end.value > 0) {
      k.ranges.push_back({Position{0}, Length{s.recovery.valid_end.value}});
    }
    if (repair != Repair::none && damaged) log_changed = true;
    if (repair == Repair::none && damaged) invalid_left = true;
    last_index = s.recovery.offset_index;
    last_index_entry_bytes = s.recovery.offset_index_entry_bytes;
    log_end = s.recovery.last_offset ? s.recovery.last_offset->value + 1 : base.value;
    kept.push_back(std::move(k));
    if (repair == Repair::recover && s.recovery.truncates()) cut_base = base;
  }
  if (!only_base) KSEG_RETURN_IF_ERROR(plan_epochs(dir, kept, log_end, !kept.empty() && repair != Repair::none, out));
  if (!only_base && !kept.empty() && (producers.rebuild || log_changed)) {
    if (invalid_left) {
      // The state would be that of a log cut at its invalid bytes, which stay.
      Problem p = Problem::of(Code::log_trailing_garbage, dir, std::nullopt,
                              "producer state left as it is: the log keeps invalid bytes (--recover or --salvage "
                              "removes them, then rebuilds it)");
      p.severity = Severity::warning;
      out.problems.push_back(std::move(p));
    } else {
      const size_t before = out.plan.actions.size();
      KSEG_RETURN_IF_ERROR(plan_producer_state(dir, kept, log_end, producers, out.plan));
      hide_while_snapshots_change(kept.back().base, last_index, last_index_entry_bytes, before, out.plan);
    }
  }
  plan_stale_tmp(dir, out.plan);
  out.invalid_left = invalid_left;
  return out;
}

void Removed::add(int64_t n_bytes, std::optional<Offset> from, std::optional<Offset> to) {
  bytes += n_bytes;
  if (!from || !to || *to < *from) return;
  offsets += to->value - from->value + 1;
  first = first ? std::min(*first, from->value) : from->value;
  last = last ? std::max(*last, to->value) : to->value;
}

std::string Removed::text() const {
  if (!first) return fmt::format("{}, no readable offsets", human_bytes(bytes));
  return fmt::format("{}, {} offset{} ({}..{})", human_bytes(bytes), offsets, offsets == 1 ? "" : "s", *first, *last);
}

}  // namespace kseg
