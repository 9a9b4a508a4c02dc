// SPDX-License-Identifier: Apache-2.0
#include "formats/file_names.h"

#include <fmt/format.h>

#include "formats/java_text.h"

namespace kseg::file_names {

namespace {

constexpr std::string_view kCheckpoint = ".checkpoint";
constexpr std::string_view kPartial = ".checkpoint.part";
constexpr std::string_view kDeletedCheckpoint = ".checkpoint.deleted";

Error bad_name(std::string_view what, std::string_view name) {
  return Error{Errc::bad_value, std::nullopt, fmt::format("{}: '{}'", what, name)};
}

bool all_digits(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return !s.empty();
}

bool has_space(std::string_view s) {
  for (char c : s)
    if (java::is_space(c)) return true;
  return false;
}

// ^(\S+)-(\S+)\.(\S+)$ for the name with its -delete/-future/-stray removed.
bool matches_marked_dir(std::string_view stem) {
  if (stem.empty() || has_space(stem)) return false;
  const size_t dot = stem.find_last_of('.', stem.size() - 2);
  if (dot == std::string_view::npos || dot + 1 >= stem.size()) return false;
  const size_t dash = stem.find('-', 1);
  return dash != std::string_view::npos && dash + 1 < dot;
}

}  // namespace

const char* suffix(FileKind k) {
  switch (k) {
    case FileKind::log: return ".log";
    case FileKind::index: return ".index";
    case FileKind::timeindex: return ".timeindex";
    case FileKind::txnindex: return ".txnindex";
    case FileKind::snapshot: return ".snapshot";
    case FileKind::unknown: return "";
  }
  return "";
}

const char* suffix(TransientSuffix s) {
  switch (s) {
    case TransientSuffix::none: return "";
    case TransientSuffix::deleted: return ".deleted";
    case TransientSuffix::cleaned: return ".cleaned";
    case TransientSuffix::swap: return ".swap";
  }
  return "";
}

std::string offset_prefix(Offset offset) {
  if (offset.value >= 0) return fmt::format("{:020}", offset.value);
  const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(offset.value);
  return fmt::format("-{:020}", magnitude);
}

std::string segment_file_name(Offset base_offset, FileKind kind, TransientSuffix transient) {
  return offset_prefix(base_offset) + suffix(kind) + suffix(transient);
}

Result<Offset> offset_from_file_name(std::string_view name) {
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return bad_name("file name has no '.' after the offset", name);
  auto v = java::parse_long(name.substr(0, dot));
  if (!v) return bad_name("file name does not start with an offset", name);
  return Offset{*v};
}

Result<SegmentFileName> parse_segment_file_name(std::string_view name) {
  auto offset = offset_from_file_name(name);
  if (!offset.ok()) return offset.error();
  SegmentFileName out;
  out.offset = offset.value();
  const size_t dot = name.find('.');
  out.canonical_prefix = dot == kOffsetDigits && all_digits(name.substr(0, dot));
  std::string_view rest = name.substr(dot);
  for (auto t : {TransientSuffix::deleted, TransientSuffix::cleaned, TransientSuffix::swap}) {
    std::string_view s = suffix(t);
    if (rest.size() > s.size() && rest.ends_with(s)) {
      out.transient = t;
      rest.remove_suffix(s.size());
      break;
    }
  }
  for (auto k : {FileKind::log, FileKind::index, FileKind::timeindex, FileKind::txnindex, FileKind::snapshot})
    if (rest == suffix(k)) out.kind = k;
  return out;
}

Result<PartitionDirName> parse_partition_dir_name(std::string_view name) {
  const auto not_partition = [&] {
    return bad_name("not in the form of topic-partition or topic-partition.uniqueId-delete", name);
  };
  if (name.empty() || name.find('-') == std::string_view::npos) return not_partition();
  PartitionDirName out;
  std::string_view stem = name;
  for (auto [sfx, kind] : {std::pair{std::string_view{"-delete"}, DirKind::deleting},
                           std::pair{std::string_view{"-future"}, DirKind::future},
                           std::pair{std::string_view{"-stray"}, DirKind::stray}}) {
    if (!name.ends_with(sfx)) continue;
    std::string_view marked = name.substr(0, name.size() - sfx.size());
    if (!matches_marked_dir(marked)) return not_partition();
    const size_t dot = marked.rfind('.');
    out.kind = kind;
    out.unique_id = std::string(marked.substr(dot + 1));
    stem = marked.substr(0, dot);
    break;
  }
  const size_t dash = stem.rfind('-');
  if (dash == std::string_view::npos) return not_partition();
  std::string_view topic = stem.substr(0, dash), partition = stem.substr(dash + 1);
  if (topic.empty() || partition.empty()) return not_partition();
  auto p = java::parse_int(partition);
  if (!p) return not_partition();
  out.topic = std::string(topic);
  out.partition = *p;
  return out;
}

std::string partition_dir_name(std::string_view topic, int32_t partition) {
  return fmt::format("{}-{}", topic, partition);
}

Result<KraftSnapshotName> parse_kraft_snapshot_name(std::string_view name) {
  KraftSnapshotName out;
  if (name.ends_with(kPartial)) out.state = SnapshotState::partial;
  else if (name.ends_with(kDeletedCheckpoint)) out.state = SnapshotState::deleted;
  else if (!name.ends_with(kCheckpoint)) return bad_name("not a KRaft snapshot name (.checkpoint)", name);
  constexpr size_t kPrefix = kOffsetDigits + 1 + kEpochDigits;
  if (name.size() < kPrefix || name[kOffsetDigits] != '-' || !all_digits(name.substr(0, kOffsetDigits)) ||
      !all_digits(name.substr(kOffsetDigits + 1, kEpochDigits)))
    return bad_name("KRaft snapshot name is not <20-digit offset>-<10-digit epoch>", name);
  auto offset = java::parse_long(name.substr(0, kOffsetDigits));
  auto epoch = java::parse_int(name.substr(kOffsetDigits + 1, kEpochDigits));
  if (!offset || !epoch) return bad_name("KRaft snapshot offset or epoch out of range", name);
  out.end_offset = Offset{*offset};
  out.epoch = *epoch;
  return out;
}

std::string kraft_snapshot_name(Offset end_offset, int32_t epoch) {
  return fmt::format("{:020}-{:010}{}", end_offset.value, epoch, kCheckpoint);
}

}  // namespace kseg::file_names
