// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/producer_start.h"

#include <algorithm>

#include "formats/batch_v2.h"
#include "formats/log_entry.h"
#include "formats/producer_snapshot.h"
#include "lib/mapped_file.h"

namespace kseg {

std::vector<std::pair<int64_t, std::string>> snapshot_files(const PartitionLayout& layout) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const auto& [offset, name] : layout.snapshots) out.emplace_back(offset.value, name);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<int64_t, std::string>> snapshots_loader_deletes(
    std::span<const std::pair<int64_t, std::string>> snapshots, int64_t log_start, int64_t log_end) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const auto& s : snapshots)
    if (!loader_keeps_snapshot(s.first, log_start, log_end)) out.push_back(s);
  return out;
}

std::vector<int64_t> snapshots_kept_of_strays(std::span<const int64_t> offsets, std::span<const int64_t> bases) {
  std::vector<int64_t> out;
  std::optional<int64_t> stray;  // the newest snapshot at no base so far
  for (int64_t o : offsets) {
    if (std::binary_search(bases.begin(), bases.end(), o)) out.push_back(o);
    else stray = o;
  }
  if (stray && (bases.empty() || *stray > bases.back())) out.insert(std::upper_bound(out.begin(), out.end(), *stray), *stray);
  return out;
}

Result<ProducerStart> producer_start(const std::string& dir, std::span<const std::pair<int64_t, std::string>> snapshots,
                                     int64_t log_start, int64_t end, std::optional<ProducerExpiry> expiry) {
  ProducerStart out;
  out.from = log_start;
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    const auto& [offset, name] = *it;
    if (!loader_keeps_snapshot(offset, log_start, end)) continue;
    const std::string path = dir + "/" + name;
    auto bytes = MappedFile::read_state_file(path);
    if (!bytes.ok()) return bytes.error().in(path);
    auto snap = producer_snapshot::read(*bytes);
    if (!snap.ok()) continue;
    if (expiry) out.state.load(snap->entries, expiry->now_ms, expiry->expiration_ms);
    else out.state.load(snap->entries);
    out.from = offset;
    out.snapshot = offset;
    break;
  }
  return out;
}

Status replay_producers(std::span<const std::pair<int64_t, std::string>> logs, int64_t from, int64_t end,
                        ProducerState& state, int64_t* replayed) {
  for (size_t i = 0; i < logs.size(); ++i) {
    const auto& [base, path] = logs[i];
    if (end != INT64_MAX && base >= end) break;
    if (i + 1 < logs.size() && logs[i + 1].first <= from) continue;
    auto f = MappedFile::open(path);
    if (!f.ok()) return f.error().in(path);
    EntryScanner scanner(f->bytes(), Position{0});
    while (auto e = scanner.next()) {
      f->release_before(e->position);
      const int64_t last = v2::last_offset_of(*e);
      if (last < from) continue;
      if (end != INT64_MAX && last >= end) return {};
      if (Status st = state.apply(*e); !st.ok()) return st.error().in(path);
      if (replayed) ++*replayed;
    }
  }
  return {};
}

}  // namespace kseg
