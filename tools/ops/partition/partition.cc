// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/partition.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/log_end.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

int64_t mtime_ms(const struct stat& sb) {
  return static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000 + sb.st_mtim.tv_nsec / 1000000;
}

// Whole entries of an index file in bytes, -1 when there is none.
int64_t whole_entries(const std::string& path, int64_t entry_size) {
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) return -1;
  if (entry_size == 8 && sb.st_size % 12 == 0) return sb.st_size;  // maybe KIP-1333's 12-byte entries: whole either way
  return sb.st_size / entry_size * entry_size;
}

}  // namespace

std::string Segment::path(FileKind k) const { return stem + file_names::suffix(k) + transient; }

std::string Partition::path(int64_t base, FileKind k) const {
  return dir + "/" + file_names::segment_file_name(Offset{base}, k);
}

std::vector<std::pair<int64_t, std::string>> Partition::logs() const {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const auto& s : segments) out.emplace_back(s.base, s.path(FileKind::log));
  return out;
}

Result<CheckpointLines> Partition::root(RootCheckpoint which) const {
  if (topic.empty()) return CheckpointLines{};
  return read_checkpoint_lines(log_dir, which, topic, number);
}

Result<Partition::HighWatermark> Partition::high_watermark(int64_t start) const {
  auto line = root(RootCheckpoint::replication);
  if (!line.ok()) return line.error();
  return HighWatermark{std::clamp(line->mine.value_or(log_end), start, std::max(start, log_end)),
                       line->mine.has_value()};
}

Result<Partition> load_partition(const std::string& dir, const LoadOptions& o) {
  Partition p;
  p.dir = dir;
  p.log_dir = o.log_dir.empty() ? log_dir_of(dir) : o.log_dir;
  if (auto tp = file_names::parse_partition_dir_name(fs::path(dir).filename().string()); tp.ok()) {
    p.topic = tp->topic;
    p.number = tp->partition;
  } else if (o.need_name) {
    return Error{Errc::usage, std::nullopt, fmt::format("{}: not a partition directory name (<topic>-<partition>)", dir)};
  }
  if (o.listed) {
    p.layout = *o.listed;
  } else {
    auto layout = read_partition_layout(dir, o.unreadable);
    if (!layout.ok())
      return Error{Errc::io, std::nullopt, fmt::format("cannot list {}: {}", dir, layout.error().message)};
    p.layout = std::move(*layout);
  }
  for (const auto& [base, files] : p.layout.segments) {
    if (!files.canonical) continue;
    Segment s;
    s.base = base.value;
    s.files = files;
    s.stem = dir + "/" + fmt::format("{:020d}", s.base);
    struct stat sb {};
    if (::stat(s.path(FileKind::log).c_str(), &sb) != 0)
      return Error{Errc::io, std::nullopt, fmt::format("{}: cannot stat", s.path(FileKind::log))};
    s.size = sb.st_size;
    s.mtime_ms = mtime_ms(sb);
    s.index_bytes = whole_entries(s.path(FileKind::index), 8);
    s.timeindex_bytes = whole_entries(s.path(FileKind::timeindex), 12);
    p.segments.push_back(std::move(s));
  }
  for (const auto& [offset, name] : p.layout.snapshots) p.snapshots.emplace_back(offset.value, name);
  std::sort(p.snapshots.begin(), p.snapshots.end());
  if (!p.topic.empty()) {
    auto start = checkpoint_line(p.log_dir, RootCheckpoint::log_start, p.topic, p.number);
    if (start.ok()) p.log_start_line = *start;
    else if (!o.log_start_as_log_manager || start.error().code == Errc::io) return start.error();
  }
  if (p.segments.empty()) {
    p.log_end = p.first_base();
    return p;
  }
  const Segment& active = p.segments.back();
  if (o.active_end && o.active_end->first == active.base) {
    p.log_end = o.active_end->second;
    return p;
  }
  auto end = segment_next_offset(active.path(FileKind::log), active.base, active.path(FileKind::index));
  if (!end.ok()) return end.error();
  p.log_end = *end;
  return p;
}

Result<int64_t> largest_timestamp(const Segment& s) {
  if (s.timeindex_bytes > 0) {
    auto f = MappedFile::open(s.path(FileKind::timeindex));
    if (!f.ok()) return f.error().in(s.path(FileKind::timeindex));
    time_index::View v(f->bytes(), Offset{s.base});
    if (const int64_t n = v.slot_count(); n > 0 && v.entry(n - 1).timestamp_ms >= 0) return v.entry(n - 1).timestamp_ms;
  }
  return s.mtime_ms;
}

Result<LoadedProducers> load_producers(const Partition& p, std::optional<ProducerExpiry> expiry) {
  auto ps = producer_start(p.dir, p.snapshots, p.log_start(), p.log_end, expiry);
  if (!ps.ok()) return ps.error();
  LoadedProducers out{std::move(ps->state), ps->snapshot, 0};
  if (ps->from >= p.log_end) return out;  // a snapshot at the log end: nothing after it to replay
  KSEG_RETURN_IF_ERROR(replay_producers(p.logs(), ps->from, INT64_MAX, out.state, &out.replayed));
  return out;
}

}  // namespace kseg
