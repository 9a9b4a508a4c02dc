// What a cleaning round reads of a partition before it reads any batch: the
// segments with their sizes, mtimes and index sizes, the log dir's
// checkpoint lines, the aborted transactions, the producer state at the log
// end (the newest readable snapshot, then the batches after it), and an
// interrupted swap, finished first by LogLoader's rule.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "formats/log_entry.h"
#include "formats/batch_v2.h"
#include "formats/producer_state.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/log_end.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/producer_start.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::compact {

namespace fs = std::filesystem;
using file_names::FileKind;

std::string Partition::path(int64_t base, const char* suffix) const {
  return fmt::format("{}/{:020d}{}", dir, base, suffix);
}

namespace {

Error fail(Errc c, std::string m) { return Error{c, std::nullopt, std::move(m)}; }

int64_t mtime_ms(const struct stat& sb) {
  return static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000 + sb.st_mtim.tv_nsec / 1000000;
}

Result<std::vector<uint8_t>> read_small(const std::string& path) {
  auto b = MappedFile::read_state_file(path);
  if (!b.ok()) return b.error().in(path);
  return b;
}

// LogLoader's recovery of an interrupted swap: .cleaned files go, and so do
// .swap files at or above the lowest .cleaned base; every other file of a
// segment the remaining swaps cover, [lowest swap base, highest swap end), is
// deleted (kept in the backup by kseg), then .swap is stripped.
Status finish_swaps(const std::string& dir, const PartitionLayout& layout, const safe::DirLock* held,
                    std::vector<std::string>& notes) {
  std::vector<std::pair<int64_t, std::string>> swaps, cleaned;
  for (const auto& l : layout.leftovers) {
    if (l.kind != Leftover::swap && l.kind != Leftover::cleaned) continue;
    auto n = file_names::parse_segment_file_name(l.name);
    if (!n.ok()) continue;
    (l.kind == Leftover::swap ? swaps : cleaned).emplace_back(n->offset.value, l.name);
  }
  if (swaps.empty() && cleaned.empty()) return {};
  if (!held)
    return fail(Errc::refused, fmt::format("{}/{}: an interrupted clean; a run without --dry-run (or the broker's "
                                           "start-up) finishes it first", dir, (swaps.empty() ? cleaned : swaps)[0].second));
  int64_t min_cleaned = INT64_MAX;
  for (const auto& [b, name] : cleaned) min_cleaned = std::min(min_cleaned, b);
  safe::Plan drop{dir, {}};
  for (const auto& [b, name] : cleaned) drop.actions.push_back(safe::Action::remove(name, "an interrupted clean's output (LogLoader deletes it)"));
  std::vector<std::pair<int64_t, std::string>> keep;
  for (const auto& [b, name] : swaps) {
    if (b >= min_cleaned) drop.actions.push_back(safe::Action::remove(name, "a swap above an unfinished clean (LogLoader deletes it)"));
    else keep.emplace_back(b, name);
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& [b, name] : keep) {
    auto n = file_names::parse_segment_file_name(name);
    if (n->kind != FileKind::log) continue;
    auto end = segment_next_offset(dir + "/" + name, b);
    if (!end.ok()) return end.error();
    lo = std::min(lo, b);
    // An emptied segment ends where it starts; its own base is still
    // replaced (Kafka's rename overwrites it), so it is covered too.
    hi = std::max(hi, std::max(*end, b == INT64_MAX ? b : b + 1));
  }
  auto covered = [&](const std::string& name) {
    auto n = file_names::parse_segment_file_name(name);
    return n.ok() && n->transient == file_names::TransientSuffix::none && n->offset.value >= lo && n->offset.value < hi;
  };
  for (const auto& [base, files] : layout.segments)
    for (const auto& [kind, name] : files.names)
      if (covered(name)) drop.actions.push_back(safe::Action::remove(name, "covered by an interrupted swap (LogLoader deletes it)"));
  for (const auto& l : layout.leftovers)  // an index whose .log an interrupted removal took first
    if (l.kind == Leftover::orphan_index && covered(l.name))
      drop.actions.push_back(safe::Action::remove(l.name, "covered by an interrupted swap (LogLoader deletes it)"));
  for (const auto& a : drop.actions) notes.push_back(fmt::format("{}/{}: {}", dir, a.name, a.why));
  for (const auto& [b, name] : keep) notes.push_back(fmt::format("{}/{}: swap finished, as LogLoader finishes it", dir, name));
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

// A segment as a round needs it: sizes, mtime, largest timestamp (the time
// index's last slot, else the mtime) and its aborted transactions.
Result<Segment> read_segment(const Partition& p, Offset base, const SegmentFiles& files) {
  Segment s;
  s.base = base.value;
  struct stat sb {};
  const std::string log = p.path(s.base, ".log");
  if (::stat(log.c_str(), &sb) != 0) return fail(Errc::io, fmt::format("{}: cannot stat", log));
  s.size = sb.st_size;
  s.mtime_ms = mtime_ms(sb);
  s.largest_timestamp = s.mtime_ms;
  const std::string idx = p.path(s.base, ".index"), tix = p.path(s.base, ".timeindex");
  if (::stat(idx.c_str(), &sb) == 0) s.index_bytes = sb.st_size / 8 * 8;
  else s.index_bytes = -1;
  if (::stat(tix.c_str(), &sb) == 0) {
    s.timeindex_bytes = sb.st_size / 12 * 12;
    if (s.timeindex_bytes > 0) {
      auto f = MappedFile::open(tix);
      if (!f.ok()) return fail(Errc::io, fmt::format("{}: {}", tix, f.error().message));
      time_index::View v(f->bytes(), Offset{s.base});
      const int64_t n = v.slot_count();
      if (n > 0 && v.entry(n - 1).timestamp_ms >= 0) s.largest_timestamp = v.entry(n - 1).timestamp_ms;
    }
  } else {
    s.timeindex_bytes = -1;
  }
  if (files.has(FileKind::txnindex)) {
    auto bytes = read_small(p.path(s.base, ".txnindex"));
    if (!bytes.ok()) return bytes.error();
    auto d = txn_index::decode(txn_index::View(*bytes), p.path(s.base, ".txnindex"));
    if (!d.ok()) return fail(Errc::refused, fmt::format("{} (kseg reindex rebuilds it)", d.error().message));
    s.aborted = std::move(*d);
  }
  return s;
}

}  // namespace

Result<Partition> load(const std::string& dir, const safe::DirLock* held, std::vector<std::string>& notes) {
  Partition p;
  p.dir = dir;
  p.log_dir = safe::log_dir_of(dir);
  auto tp = file_names::parse_partition_dir_name(fs::path(dir).filename().string());
  if (!tp.ok()) return fail(Errc::usage, fmt::format("{}: not a partition directory name (<topic>-<partition>)", dir));
  p.topic = tp->topic;
  p.number = tp->partition;
  auto layout = read_partition_layout(dir);
  if (!layout.ok()) return fail(Errc::io, fmt::format("cannot list {}: {}", dir, layout.error().message));
  if (Status st = finish_swaps(dir, *layout, held, notes); !st.ok()) return st.error();
  layout = read_partition_layout(dir);
  if (!layout.ok()) return fail(Errc::io, fmt::format("cannot list {}: {}", dir, layout.error().message));
  if (!layout->not_files.empty())
    return fail(Errc::refused, fmt::format("{}/{}: {} (kseg-verify explains)", dir, layout->not_files[0].first,
                                           layout->not_files[0].second));
  for (const auto& [base, files] : layout->segments) {
    if (!files.canonical) continue;
    auto seg = read_segment(p, base, files);
    if (!seg.ok()) return seg.error();
    p.segments.push_back(std::move(*seg));
  }
  for (size_t i = 0; i + 1 < p.segments.size(); ++i)
    if (p.segments[i].index_bytes < 0 || p.segments[i].timeindex_bytes < 0)
      return fail(Errc::refused, fmt::format("{}: no offset or time index (the broker rebuilds it at start-up; "
                                             "kseg reindex rebuilds it offline)", p.path(p.segments[i].base, ".log")));
  for (const auto& [offset, name] : layout->snapshots) p.snapshots.emplace_back(offset.value, name);
  std::sort(p.snapshots.begin(), p.snapshots.end());
  // The log dir's checkpoints.
  std::optional<int64_t> log_start, hw;
  for (RootCheckpoint c : {RootCheckpoint::log_start, RootCheckpoint::replication, RootCheckpoint::cleaner}) {
    auto lines = read_checkpoint_lines(p.log_dir, c, p.topic, p.number);
    if (!lines.ok()) return lines.error();
    if (c == RootCheckpoint::log_start) log_start = lines->mine;
    if (c == RootCheckpoint::replication) hw = lines->mine;
    if (c == RootCheckpoint::cleaner) {
      p.cleaner_present = lines->present;
      p.cleaner_line = lines->mine;
      p.cleaner_entries = std::move(lines->entries);
    }
  }
  if (p.segments.empty()) return fail(Errc::refused, fmt::format("{}: no segment", dir));
  auto end = segment_next_offset(p.path(p.segments.back().base, ".log"), p.segments.back().base,
                                 p.path(p.segments.back().base, ".index"));
  if (!end.ok()) return end.error();
  p.leo = *end;
  p.log_start = std::max(p.segments.front().base, log_start.value_or(0));
  // Kafka's leader starts from the checkpointed high watermark, clamped to
  // the log; with none (a log dir copied without it) the log end is taken.
  p.hw_from_checkpoint = hw.has_value();
  p.hw = std::clamp(hw.value_or(p.leo), p.log_start, p.leo);
  // The snapshots Kafka's load deletes (one at the log start is left by
  // DeleteRecords or retention to a segment base): never read, and removed
  // with the first round's checkpoint, as the broker's next start would.
  p.loader_deletes = snapshots_loader_deletes(p.snapshots, p.log_start, p.leo);
  for (const auto& s : p.loader_deletes) {
    notes.push_back(fmt::format("{}/{}: producer snapshot {} (Kafka's load deletes it; so does a round)", dir, s.second,
                                s.first > p.leo ? "past the log end" : "at or below the log start"));
    std::erase(p.snapshots, s);
  }
  // Producer state at the log end, as Kafka's loader rebuilds it.
  auto ps = producer_start(dir, p.snapshots, p.log_start, p.leo);
  if (!ps.ok()) return ps.error();
  std::vector<std::pair<int64_t, std::string>> logs;
  for (const auto& s : p.segments) logs.emplace_back(s.base, p.path(s.base, ".log"));
  ProducerState& state = ps->state;
  if (Status st = replay_producers(logs, ps->from, INT64_MAX, state); !st.ok()) return st.error();
  for (const auto& e : state.entries()) p.producers[e.producer_id] = e;
  return p;
}

}  // namespace kseg::compact
