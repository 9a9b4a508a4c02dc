// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_state.h"

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/meta_properties.h"
#include "formats/partition_metadata.h"
#include "formats/quorum_state.h"
#include "lib/mapped_file.h"

namespace kseg {

FileResult* read_small_file(const std::string& path, const char* kind, std::string& out, Findings& f) {
  auto bytes = MappedFile::read_state_file(path);
  if (!bytes.ok()) {
    f.io_error(path, bytes.error().message);
    return nullptr;
  }
  out.assign(bytes->begin(), bytes->end());
  auto& fr = f.file(path, kind);
  fr.size_bytes = fr.checked_bytes = static_cast<int64_t>(out.size());
  return &fr;
}

Position line_position(std::string_view text, int64_t line) {
  size_t pos = 0;
  for (int64_t i = 0; i < line && pos != std::string_view::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  return Position{pos == std::string_view::npos ? static_cast<int64_t>(text.size()) : static_cast<int64_t>(pos)};
}

void EpochTracker::batch(const BatchInfo& b, const std::string& file, Findings& f) {
  if (b.magic < 2 || b.leader_epoch < 0 || !b.crc_ok) {
    prev_last_ = b.last_offset;
    return;
  }
  if (b.leader_epoch > latest_) {
    latest_ = b.leader_epoch;
    transitions_.push_back({b.leader_epoch, b.first_offset, prev_last_});
  } else if (b.leader_epoch < latest_) {
    f.add(Code::log_epoch_regression, file, b.position + Length{12}, "partitionLeaderEpoch below an earlier batch's",
          fmt::format(">= {}", latest_), std::to_string(b.leader_epoch));
  }
  prev_last_ = b.last_offset;
}

bool EpochTracker::batches_within(int64_t from, int64_t to) const {
  // Each epoch's batches run from its first batch to the last offset before
  // the next epoch's first batch (or the last batch).
  for (size_t i = 0; i < transitions_.size(); ++i) {
    const int64_t last = i + 1 < transitions_.size() ? transitions_[i + 1].prev_last : prev_last_;
    if (transitions_[i].start < to && last >= from) return true;
  }
  return false;
}

namespace {

// The checkpoint's view of one epoch the batches show.
void check_transition(const std::string& path, std::string_view text, const std::vector<checkpoint::EpochEntry>& cp,
                      const EpochTracker::Transition& t, Findings& f) {
  const int32_t epoch = t.epoch;
  const int64_t start = t.start;
  for (size_t k = 0; k < cp.size(); ++k) {
    if (cp[k].epoch != epoch) continue;
    // Raising the log start offset moves the earliest entry up to it;
    // compaction may remove an epoch's first batches (but not its start).
    const bool moved_up = k == 0 && cp[k].start_offset > start;
    const bool compacted = cp[k].start_offset < start && cp[k].start_offset > t.prev_last;
    if (cp[k].start_offset != start && !moved_up && !compacted)
      f.add(Code::epoch_mismatch, path, line_position(text, static_cast<int64_t>(k) + 2),
            fmt::format("epoch {} starts at another offset in the log", epoch), std::to_string(start),
            std::to_string(cp[k].start_offset));
    return;
  }
  if (!cp.empty() && epoch < cp.front().epoch) return;  // dropped with the data below the log start
  f.add(Code::epoch_missing, path, Position{static_cast<int64_t>(text.size())},
        fmt::format("epoch {} (first batch at offset {}) has no entry", epoch, start),
        fmt::format("{} {}", epoch, start), "no entry");
}

}  // namespace

void check_leader_epoch_checkpoint(const std::string& path, const EpochTracker& epochs, int64_t log_end_offset,
                                   Findings& f) {
  std::string text;
  auto* fr = read_small_file(path, "leader-epoch-checkpoint", text, f);
  if (!fr) return;
  auto cp = checkpoint::parse_leader_epoch_checkpoint(text, path);
  if (!cp.ok()) {
    f.add(Code::epoch_corrupt, path, cp.error().position, cp.error().message);
    return;
  }
  fr->entries = static_cast<int64_t>(cp->size());
  if (auto st = checkpoint::validate_epoch_entries(*cp); !st.ok()) {
    f.add(Code::epoch_corrupt, path, std::nullopt, st.error().message);
    return;
  }
  if (log_end_offset < 0) return;  // the file alone: nothing to compare with
  for (const auto& t : epochs.transitions()) check_transition(path, text, *cp, t, f);
  for (size_t k = 0; k < cp->size(); ++k) {
    const auto& e = (*cp)[k];
    const Position at = line_position(text, static_cast<int64_t>(k) + 2);
    if (e.start_offset > log_end_offset) {
      f.add(Code::epoch_past_log_end, path, at, fmt::format("epoch {} starts above the log end offset", e.epoch),
            fmt::format("<= {}", log_end_offset), std::to_string(e.start_offset));
      continue;
    }
    bool seen = false;
    for (const auto& t : epochs.transitions()) seen = seen || t.epoch == e.epoch;
    // A new leader's entry precedes its first batch; the first entry may
    // name an epoch whose batches retention removed, any entry one whose
    // batches compaction removed: only batches of another epoch in its
    // range contradict it.
    const int64_t range_end = k + 1 < cp->size() ? (*cp)[k + 1].start_offset : log_end_offset;
    if (!seen && k > 0 && e.start_offset < log_end_offset && epochs.batches_within(e.start_offset, range_end))
      f.add(Code::epoch_mismatch, path, at, fmt::format("epoch {} has no batch in the log", e.epoch),
            "a batch with this epoch", "none");
  }
}

void check_partition_metadata(const std::string& path, Findings& f) {
  std::string text;
  auto* fr = read_small_file(path, "partition.metadata", text, f);
  if (!fr) return;
  auto m = partition_metadata::parse(text, path);
  if (!m.ok()) f.add(Code::partition_metadata_corrupt, path, m.error().position, m.error().message);
}

void check_meta_properties(const std::string& path, Findings& f) {
  std::string text;
  auto* fr = read_small_file(path, "meta.properties", text, f);
  if (!fr) return;
  auto m = meta_properties::parse(text);
  if (!m.ok()) f.add(Code::meta_corrupt, path, m.error().position, m.error().message);
}

void check_quorum_state(const std::string& path, Findings& f) {
  std::string text;
  auto* fr = read_small_file(path, "quorum-state", text, f);
  if (!fr) return;
  auto q = quorum_state::parse(text);
  if (!q.ok()) f.add(Code::quorum_corrupt, path, q.error().position, q.error().message);
}

void check_root_checkpoint(const std::string& path, const std::map<std::string, PartitionRange>& partitions,
                           Findings& f) {
  std::string text;
  auto* fr = read_small_file(path, "checkpoint", text, f);
  if (!fr) return;
  auto cp = checkpoint::parse_offset_checkpoint(text, path);
  if (!cp.ok()) {
    f.add(Code::checkpoint_corrupt, path, cp.error().position, cp.error().message);
    return;
  }
  fr->entries = static_cast<int64_t>(cp->size());
  for (size_t k = 0; k < cp->size(); ++k) {
    const auto& e = (*cp)[k];
    auto it = partitions.find(fmt::format("{}-{}", e.topic, e.partition));
    if (it == partitions.end()) continue;  // not verified in this run
    if (e.offset > it->second.log_end)
      f.add(Code::checkpoint_past_log_end, path, line_position(text, static_cast<int64_t>(k) + 2),
            fmt::format("{}-{}: offset above the partition's log end offset", e.topic, e.partition),
            fmt::format("<= {}", it->second.log_end), std::to_string(e.offset));
  }
}

}  // namespace kseg
