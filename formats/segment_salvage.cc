// SPDX-License-Identifier: Apache-2.0
#include "formats/segment_salvage.h"

#include <optional>

#include "formats/batch_walk.h"

namespace kseg::recover {

int64_t Salvage::kept_bytes() const {
  int64_t n = 0;
  for (const auto& p : kept) n += (p.end - p.begin).bytes;
  return n;
}

namespace {

struct Resync {
  Position at;           // where kept data resumes (the file's end if nowhere)
  int64_t skipped = 0;   // valid entries passed over on the way
};

// An entry Kafka's recovery keeps and that follows `last_kept`: on failure
// sets reason/detail.
bool keepable(const EntryVerdict& v, const std::optional<Offset>& last_kept, std::string& reason, std::string& detail) {
  if (!v.valid || v.ends_scan) {
    reason = segment_end_name(v.stop);
    detail = v.detail;
    return false;
  }
  if (last_kept && v.base_offset <= *last_kept) {
    reason = "offset_order";
    detail = fmt::format("batch offsets {}..{} do not follow the last kept offset {}", v.base_offset, v.last_offset,
                         *last_kept);
    return false;
  }
  return true;
}

// From `from`, the next entry worth keeping: a valid checksum found by the
// cheap byte-by-byte search, then judged in full. A whole entry with a valid
// checksum that cannot be kept is skipped over, not searched inside.
Result<Resync> resync(Bytes log, size_t from, Offset base_offset, const Config& config,
                      const std::optional<Offset>& last_kept) {
  Resync out{Position{static_cast<int64_t>(log.size())}};
  for (size_t pos = from; pos < log.size();) {
    auto found = next_valid_entry(log, pos, base_offset);
    if (!found) break;
    EntryScanner one(log.subspan(*found), Position{static_cast<int64_t>(*found)});
    auto e = one.next();
    if (!e) {  // cannot happen: next_valid_entry saw a whole entry
      pos = *found + 1;
      continue;
    }
    auto v = judge_entry(*e, config);
    if (!v.ok()) return v.error();
    std::string reason, detail;
    if (keepable(*v, last_kept, reason, detail)) {
      out.at = e->position;
      break;
    }
    if (v->valid && !v->ends_scan) out.skipped++;
    pos = v->valid ? static_cast<size_t>((e->position + e->total()).value) : *found + 1;
  }
  return out;
}

}  // namespace

Result<Salvage> salvage_segment(Bytes log, Offset base_offset, const Config& config,
                                const std::function<void(Position)>& scanned) {
  Salvage out;
  std::optional<Offset> last_kept;
  size_t pos = 0;
  while (pos < log.size()) {
    EntryScanner scanner(log.subspan(pos), Position{static_cast<int64_t>(pos)});
    std::optional<Gap> gap;
    size_t search_from = 0;
    Status failed;
    walk_entries(scanner, [&](const WalkEntry& w) {
      const EntryRef& e = w.ref();
      auto v = judge_entry(e, w.check(), config);
      if (!v.ok()) {
        failed = v.status();
        return Step::stop;
      }
      Gap g{e.position, e.position, {}, "", "", 0};
      if (!keepable(*v, last_kept, g.reason, g.detail)) {
        // A whole valid entry is not searched inside for another.
        search_from = static_cast<size_t>((v->valid ? e.position + e.total() : e.position + Length{1}).value);
        if (v->valid && !v->ends_scan) g.skipped_valid = 1;
        gap = std::move(g);
        return Step::stop;
      }
      last_kept = v->last_offset;
      if (scanned) scanned(e.position);
      return Step::accept;
    });
    if (!failed.ok()) return failed.error();
    const Position run_end = gap ? gap->begin : scanner.valid_end();
    if (run_end.value > static_cast<int64_t>(pos)) out.kept.push_back({Position{static_cast<int64_t>(pos)}, run_end});
    if (!gap) {
      if (scanner.end() == SegmentEnd::clean) break;
      gap = Gap{run_end, run_end, {}, segment_end_name(scanner.end()), segment_end_detail(scanner), 0};
      search_from = static_cast<size_t>(run_end.value) + 1;
    }
    auto next = resync(log, search_from, base_offset, config, last_kept);
    if (!next.ok()) return next.error();
    gap->end = next->at;
    gap->skipped_valid += next->skipped;
    gap->declared = describe_removed(log.first(static_cast<size_t>(gap->end.value)), gap->begin, base_offset);
    out.gaps.push_back(std::move(*gap));
    pos = static_cast<size_t>(next->at.value);
    if (scanned) scanned(Position{static_cast<int64_t>(pos)});
  }
  return out;
}

}  // namespace kseg::recover
