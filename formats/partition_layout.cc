// SPDX-License-Identifier: Apache-2.0
#include "formats/partition_layout.h"

#include <algorithm>

namespace kseg {

PartitionLayout classify_partition(std::vector<std::string> names) {
  using file_names::FileKind;
  using file_names::TransientSuffix;
  std::sort(names.begin(), names.end());
  PartitionLayout l;
  std::map<Offset, SegmentFiles> all;
  for (auto& name : names) {
    if (name == "leader-epoch-checkpoint" || name == "partition.metadata" || name == "quorum-state") continue;
    if (name.ends_with(file_names::kKsegTmpSuffix) || name.ends_with(file_names::kKsegJournalSuffix)) {
      l.leftovers.push_back({Leftover::kseg_tmp, std::move(name)});
      continue;
    }
    if (name.ends_with(".tmp")) {
      l.leftovers.push_back({Leftover::tmp, std::move(name)});
      continue;
    }
    // Every KRaft snapshot suffix holds ".checkpoint": other names skip the
    // parse, which formatted an error message for each segment file.
    if (name.find(".checkpoint") != std::string::npos) {
      if (auto k = file_names::parse_kraft_snapshot_name(name); k.ok()) {
        if (k->state == file_names::SnapshotState::complete) l.kraft_snapshots.push_back(std::move(name));
        else l.leftovers.push_back(
                 {k->state == file_names::SnapshotState::deleted ? Leftover::kraft_deleted : Leftover::kraft_partial,
                  std::move(name)});
        continue;
      }
    }
    auto n = file_names::parse_segment_file_name(name);
    if (!n.ok() || n->kind == FileKind::unknown) {
      l.leftovers.push_back({Leftover::unknown, std::move(name)});
      continue;
    }
    if (n->transient != TransientSuffix::none) {
      const Leftover::Kind k = n->transient == TransientSuffix::swap      ? Leftover::swap
                               : n->transient == TransientSuffix::cleaned ? Leftover::cleaned
                                                                          : Leftover::deleted;
      l.leftovers.push_back({k, std::move(name)});
      continue;
    }
    if (!n->canonical_prefix) l.odd_prefixes.push_back(name);
    if (n->kind == FileKind::snapshot) {
      l.snapshots.emplace_back(n->offset, std::move(name));
      continue;
    }
    SegmentFiles& s = all[n->offset];
    if (n->kind == FileKind::log) s.canonical = n->canonical_prefix;
    s.names[n->kind] = std::move(name);
  }
  for (auto& [base, s] : all) {
    if (s.has(FileKind::log)) {
      l.segments.emplace(base, std::move(s));
      continue;
    }
    for (auto& [kind, name] : s.names) l.leftovers.push_back({Leftover::orphan_index, std::move(name)});
  }
  return l;
}

}  // namespace kseg
