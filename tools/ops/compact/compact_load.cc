// SPDX-License-Identifier: Apache-2.0
// What a cleaning round reads of a partition before it reads any batch: the
// segments with their sizes, mtimes and index sizes, the log dir's
// checkpoint lines, the aborted transactions, the producer state at the log
// end (the newest readable snapshot, then the batches after it), and an
// interrupted swap, finished first by LogLoader's rule.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "lib/mapped_file.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/partition/swap.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::compact {

namespace fs = std::filesystem;
using file_names::FileKind;

std::string Input::path(int64_t base, const char* suffix) const {
  return fmt::format("{}/{:020d}{}", dir, base, suffix);
}

namespace {

Error fail(Errc c, std::string m) { return Error{c, std::nullopt, std::move(m)}; }

Result<std::vector<uint8_t>> read_small(const std::string& path) {
  auto b = MappedFile::read_state_file(path);
  if (!b.ok()) return b.error().in(path);
  return b;
}

// LogLoader's recovery of an interrupted swap (partition/swap.h), applied:
// the files it removes kept in a backup by kseg.
Status finish_swaps(const std::string& dir, const PartitionLayout& layout, const safe::DirLock* held,
                    std::vector<Problem>& notes) {
  // Refused before any .swap is read (a dry run holds no lock), naming the first one.
  std::string first_swap, first_cleaned;
  for (const auto& l : layout.leftovers) {
    if (l.kind == Leftover::swap && first_swap.empty()) first_swap = l.name;
    if (l.kind == Leftover::cleaned && first_cleaned.empty()) first_cleaned = l.name;
  }
  if (first_swap.empty() && first_cleaned.empty()) return {};
  if (!held)
    return refusal(Code::refuse_interrupted_clean, std::nullopt,
                   fmt::format("{}/{}: an interrupted clean; a run without --dry-run (or the broker's start-up) "
                               "finishes it first",
                               dir, first_swap.empty() ? first_cleaned : first_swap));
  auto plan = plan_swap_finish(dir, layout);
  if (!plan.ok()) return plan.error();
  if (plan->empty()) return {};
  safe::Plan drop{dir, {}};
  for (const auto& [name, why] : plan->removed) drop.actions.push_back(safe::Action::remove(name, why));
  for (const auto& a : drop.actions) notes.push_back(note(Code::note_swap_finished, dir + "/" + a.name, a.why));
  const auto& keep = plan->renamed;
  for (const auto& [b, name] : keep)
    notes.push_back(note(Code::note_swap_finished, dir + "/" + name, "swap finished, as LogLoader finishes it"));
  if (!drop.empty()) {
    // The interrupted run's backup directory may be gone; these are copies
    // of data the swap replaces, kept in a backup of their own.
    auto r = safe::apply(drop, safe::ApplyOptions{}, *held);
    if (!r.ok()) return r.error();
  }
  // Kafka strips .swap in any order: the covered files are gone by now.
  auto d = safe::Dir::open(dir);
  if (!d.ok()) return d.error();
  for (const auto& [b, name] : keep) {
    const std::string to = name.substr(0, name.size() - std::string(".swap").size());
    if (::renameat(d->fd(), name.c_str(), d->fd(), to.c_str()) != 0)
      return fail(Errc::io, fmt::format("{}: cannot rename to {}: {}", d->path(name), to, std::strerror(errno)));
  }
  return d->fsync();
}

}  // namespace

Result<Input> load(const std::string& dir, const safe::DirLock* held, std::vector<Problem>& notes,
                   bool swaps_as_they_are) {
  if (auto tp = file_names::parse_partition_dir_name(fs::path(dir).filename().string()); !tp.ok())
    return fail(Errc::usage, fmt::format("{}: not a partition directory name (<topic>-<partition>)", dir));
  if (!swaps_as_they_are) {
    auto layout = read_partition_layout(dir);
    if (!layout.ok()) return fail(Errc::io, fmt::format("cannot list {}: {}", dir, layout.error().message));
    if (Status st = finish_swaps(dir, *layout, held, notes); !st.ok()) return st.error();
  }
  auto loaded = load_partition(dir);
  if (!loaded.ok()) return loaded.error();
  Input p;
  static_cast<Partition&>(p) = std::move(*loaded);
  if (!p.layout.not_files.empty())
    return refusal(Code::dir_not_a_file, std::nullopt,
                   fmt::format("{}/{}: {} (kseg-verify explains)", dir, p.layout.not_files[0].first,
                               p.layout.not_files[0].second));
  if (p.segments.empty()) return refusal(Code::refuse_no_segment, std::nullopt, fmt::format("{}: no segment", dir));
  for (size_t i = 0; i + 1 < p.segments.size(); ++i)
    if (p.segments[i].index_bytes < 0 || p.segments[i].timeindex_bytes < 0)
      return refusal(p.segments[i].index_bytes < 0 ? Code::index_missing : Code::timeindex_missing, std::nullopt,
                     fmt::format("{}: no offset or time index (the broker rebuilds it at start-up; kseg reindex "
                                 "rebuilds it offline)", p.segments[i].path(FileKind::log)));
  for (const auto& s : p.segments) {
    auto ts = largest_timestamp(s);
    if (!ts.ok()) return fail(Errc::io, ts.error().message);
    p.largest_timestamps.push_back(*ts);
    auto& aborted = p.aborted.emplace_back();
    if (!s.has(FileKind::txnindex)) continue;
    auto bytes = read_small(s.path(FileKind::txnindex));
    if (!bytes.ok()) return bytes.error();
    auto d = txn_index::decode(txn_index::View(*bytes), s.path(FileKind::txnindex));
    if (!d.ok()) return fail(Errc::refused, fmt::format("{} (kseg reindex rebuilds it)", d.error().message));
    aborted = std::move(*d);
  }
  auto hw = p.high_watermark(p.log_start());
  if (!hw.ok()) return hw.error();
  p.hw = hw->offset;
  p.hw_from_checkpoint = hw->from_checkpoint;
  auto cleaner = p.root(RootCheckpoint::cleaner);
  if (!cleaner.ok()) return cleaner.error();
  p.cleaner_present = cleaner->present;
  p.cleaner_line = cleaner->mine;
  p.cleaner_entries = std::move(cleaner->entries);
  // The snapshots Kafka's load deletes (one at the log start is left by
  // DeleteRecords or retention to a segment base): never read, and removed
  // with the first round's checkpoint, as the broker's next start would.
  p.loader_deletes = snapshots_loader_deletes(p.snapshots, p.log_start(), p.log_end);
  for (const auto& s : p.loader_deletes) {
    notes.push_back(note(Code::note_snapshot_deleted, dir + "/" + s.second,
                         fmt::format("producer snapshot {} (Kafka's load deletes it; so does a round)",
                                     s.first > p.log_end ? "past the log end" : "at or below the log start")));
    std::erase(p.snapshots, s);
  }
  // Producer state at the log end, as Kafka's loader rebuilds it.
  auto state = load_producers(p);
  if (!state.ok()) return state.error();
  for (const auto& e : state->state.entries()) p.producers[e.producer_id] = e;
  return p;
}

}  // namespace kseg::compact
