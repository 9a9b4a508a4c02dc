// SPDX-License-Identifier: Apache-2.0
#include "formats/checkpoint_file.h"

#include <optional>

#include <fmt/format.h>

namespace kseg::checkpoint {

namespace {

Error malformed(const java::Line& line, std::string_view file_path) {
  return Error{Errc::bad_value, line.position,
               fmt::format("Malformed line in checkpoint file [{}]: {}", file_path, line.text)};
}

}  // namespace

Status read(std::string_view text, Position base, int32_t expected_version, std::string_view file_path,
            const EntryParser& parse_entry, Failure* failure) {
  Failure ignored;
  Failure& kind = failure ? *failure : ignored;
  kind = Failure::io_exception;
  const std::vector<java::Line> lines = java::read_lines(text, base);
  if (lines.empty()) return {};
  const auto version = java::parse_int(lines[0].text);
  if (!version) return malformed(lines[0], file_path);
  if (*version != expected_version)
    return Status::fail(Errc::bad_magic, lines[0].position,
                        fmt::format("Unrecognised version:{}, expected version: {} in checkpoint file at: {}",
                                    *version, expected_version, file_path));
  if (lines.size() == 1) return {};
  const auto count = java::parse_int(lines[1].text);
  if (!count) return malformed(lines[1], file_path);
  if (*count < 0) {  // new ArrayList<>(count) in Kafka: IllegalArgumentException
    kind = Failure::unchecked;
    return Status::fail(Errc::bad_length, lines[1].position, fmt::format("Illegal Capacity: {}", *count));
  }
  for (size_t i = 2; i < lines.size(); ++i) {
    const LineVerdict v = parse_entry(lines[i].text);
    if (v.kind == LineVerdict::malformed) return malformed(lines[i], file_path);
    if (v.kind == LineVerdict::bad_number) {
      kind = Failure::unchecked;
      return Status::fail(Errc::bad_value, lines[i].position,
                          fmt::format("line {}: {}", lines[i].number, java::number_format_message(v.bad_field)));
    }
  }
  const auto found = static_cast<int64_t>(lines.size()) - 2;
  if (found != *count)
    return Status::fail(Errc::bad_length, base + Length{static_cast<int64_t>(text.size())},
                        fmt::format("Expected [{}] entries in checkpoint file [{}], but found only [{}]", *count,
                                    file_path, found));
  return {};
}

std::string write(int32_t version, std::span<const std::string> entry_lines) {
  std::string out = fmt::format("{}\n{}\n", version, entry_lines.size());
  for (const std::string& line : entry_lines) {
    out += line;
    out += '\n';
  }
  return out;
}

Result<std::vector<TopicPartitionOffset>> parse_offset_checkpoint(std::string_view text, std::string_view file_path,
                                                                  Position base, Failure* failure) {
  std::vector<TopicPartitionOffset> out;
  Status st = read(text, base, kOffsetCheckpointVersion, file_path, [&](std::string_view line) -> LineVerdict {
    const auto parts = java::split_whitespace(line);
    if (parts.size() != 3) return {LineVerdict::malformed, {}};
    const auto partition = java::parse_int(parts[1]);
    if (!partition) return {LineVerdict::bad_number, parts[1]};
    const auto offset = java::parse_long(parts[2]);
    if (!offset) return {LineVerdict::bad_number, parts[2]};
    out.push_back({std::string(parts[0]), *partition, *offset});
    return {};
  }, failure);
  if (!st.ok()) return st;
  return out;
}

std::string serialize_offset_checkpoint(std::span<const TopicPartitionOffset> entries) {
  std::vector<std::string> lines;
  lines.reserve(entries.size());
  for (const auto& e : entries) lines.push_back(fmt::format("{} {} {}", e.topic, e.partition, e.offset));
  return write(kOffsetCheckpointVersion, lines);
}

Result<std::vector<EpochEntry>> parse_leader_epoch_checkpoint(std::string_view text, std::string_view file_path,
                                                              Position base, Failure* failure) {
  std::vector<EpochEntry> out;
  Status st = read(text, base, kLeaderEpochCheckpointVersion, file_path, [&](std::string_view line) -> LineVerdict {
    const auto parts = java::split_whitespace(line);
    if (parts.size() != 2) return {LineVerdict::malformed, {}};
    const auto epoch = java::parse_int(parts[0]);
    if (!epoch) return {LineVerdict::bad_number, parts[0]};
    const auto start = java::parse_long(parts[1]);
    if (!start) return {LineVerdict::bad_number, parts[1]};
    out.push_back({*epoch, *start});
    return {};
  }, failure);
  if (!st.ok()) return st;
  return out;
}

std::string serialize_leader_epoch_checkpoint(std::span<const EpochEntry> entries) {
  std::vector<std::string> lines;
  lines.reserve(entries.size());
  for (const auto& e : entries) lines.push_back(fmt::format("{} {}", e.epoch, e.start_offset));
  return write(kLeaderEpochCheckpointVersion, lines);
}

Status validate_epoch_entries(std::span<const EpochEntry> entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const EpochEntry& e = entries[i];
    if (e.epoch < 0 || e.start_offset < 0)
      return Status::fail(Errc::bad_value, std::nullopt,
                          fmt::format("epoch entry {} ({} {}): epoch and start offset must be >= 0", i, e.epoch,
                                      e.start_offset));
    if (i == 0) continue;
    const EpochEntry& prev = entries[i - 1];
    if (e.epoch <= prev.epoch || e.start_offset <= prev.start_offset)
      return Status::fail(Errc::bad_value, std::nullopt,
                          fmt::format("epoch entry {} ({} {}) does not follow entry {} ({} {}): epochs and start "
                                      "offsets must increase",
                                      i, e.epoch, e.start_offset, i - 1, prev.epoch, prev.start_offset));
  }
  return {};
}

std::vector<EpochEntry> truncate_epochs_from_end(std::span<const EpochEntry> entries, int64_t end) {
  std::vector<EpochEntry> out;
  for (const auto& e : entries)
    if (e.start_offset < end) out.push_back(e);
  return out;
}

std::vector<EpochEntry> truncate_epochs_from_start(std::span<const EpochEntry> entries, int64_t start) {
  std::vector<EpochEntry> out;
  std::optional<EpochEntry> last_removed;
  for (const auto& e : entries) {
    if (e.start_offset <= start) last_removed = e;
    else out.push_back(e);
  }
  if (last_removed) out.insert(out.begin(), {last_removed->epoch, start});
  return out;
}

}  // namespace kseg::checkpoint
