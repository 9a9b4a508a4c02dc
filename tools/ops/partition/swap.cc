// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/swap.h"

#include <algorithm>

#include "formats/file_names.h"
#include "tools/ops/partition/log_end.h"

namespace kseg {

using file_names::FileKind;

Result<SwapFinish> plan_swap_finish(const std::string& dir, const PartitionLayout& layout) {
  SwapFinish out;
  std::vector<std::pair<int64_t, std::string>> swaps, cleaned;
  for (const auto& l : layout.leftovers) {
    if (l.kind != Leftover::swap && l.kind != Leftover::cleaned) continue;
    auto n = file_names::parse_segment_file_name(l.name);
    if (!n.ok()) continue;
    (l.kind == Leftover::swap ? swaps : cleaned).emplace_back(n->offset.value, l.name);
  }
  if (swaps.empty() && cleaned.empty()) return out;
  int64_t min_cleaned = INT64_MAX;
  for (const auto& [b, name] : cleaned) min_cleaned = std::min(min_cleaned, b);
  for (const auto& [b, name] : cleaned) out.removed.emplace_back(name, "an interrupted clean's output (LogLoader deletes it)");
  for (const auto& [b, name] : swaps) {
    if (b >= min_cleaned) out.removed.emplace_back(name, "a swap above an unfinished clean (LogLoader deletes it)");
    else out.renamed.emplace_back(b, name);
  }
  for (const auto& [b, name] : out.renamed) {
    auto n = file_names::parse_segment_file_name(name);
    if (n->kind != FileKind::log) continue;
    auto end = segment_next_offset(dir + "/" + name, b);
    if (!end.ok()) return end.error();
    out.lo = std::min(out.lo, b);
    // An emptied segment ends where it starts; its own base is still
    // replaced (Kafka's rename overwrites it), so it is covered too.
    out.hi = std::max(out.hi, std::max(*end, b == INT64_MAX ? b : b + 1));
  }
  auto covered = [&](const std::string& name) {
    auto n = file_names::parse_segment_file_name(name);
    return n.ok() && n->transient == file_names::TransientSuffix::none && n->offset.value >= out.lo &&
           n->offset.value < out.hi;
  };
  for (const auto& [base, files] : layout.segments)
    for (const auto& [kind, name] : files.names)
      if (covered(name)) out.removed.emplace_back(name, "covered by an interrupted swap (LogLoader deletes it)");
  for (const auto& l : layout.leftovers)  // an index whose .log an interrupted removal took first
    if (l.kind == Leftover::orphan_index && covered(l.name))
      out.removed.emplace_back(l.name, "covered by an interrupted swap (LogLoader deletes it)");
  return out;
}

}  // namespace kseg
