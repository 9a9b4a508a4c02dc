// .timeindex checks. Kafka appends (T, O) with T the segment's running max
// batch timestamp (strictly greater than the last entry's) and O the last
// offset of the earliest batch holding it, at each offset-index point and
// once more at roll/close with the segment's max.
#include <algorithm>

#include <fmt/format.h>

#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/verify_index.h"

namespace kseg {

namespace {

// Each point where the segment's running max timestamp strictly rises.
struct MaxPoint {
  int64_t timestamp;
  int64_t first_offset, last_offset;  // of the batch that raised it
};

std::vector<MaxPoint> max_points(const SegmentScan& s) {
  std::vector<MaxPoint> out;
  int64_t max = time_index::kNoTimestamp;
  for (const auto& b : s.batches)
    if (b.max_timestamp > max) {
      max = b.max_timestamp;
      out.push_back({max, b.first_offset, b.last_offset});
    }
  return out;
}

bool all_zero(Bytes b) { return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; }); }

void check_entry(const std::string& path, const SegmentScan& s, const std::vector<MaxPoint>& points, int64_t slot,
                 const time_index::TimestampOffset& e, Findings& f) {
  const Position at{slot * time_index::kEntrySize};
  const bool cut = s.checked_bytes < s.file_size || s.tail_damaged;
  if (e.offset.value >= s.next_offset()) {
    if (!cut)
      f.add("timeindex.past_log_end", path, at, fmt::format("entry ({}, {}) beyond the log", e.timestamp_ms, e.offset),
            fmt::format("offset < {}", s.next_offset()), std::to_string(e.offset.value));
    return;
  }
  auto it = std::lower_bound(points.begin(), points.end(), e.timestamp_ms,
                             [](const MaxPoint& p, int64_t t) { return p.timestamp < t; });
  if (it != points.end() && it->timestamp == e.timestamp_ms) {
    // Kafka < 3.8 stored the offset of the record with the max timestamp,
    // which lies inside the same batch.
    if (e.offset.value == it->last_offset || (e.offset.value >= it->first_offset && e.offset.value <= it->last_offset))
      return;
    f.add("timeindex.entry_mismatch", path, at,
          fmt::format("timestamp {} first becomes the segment's max in the batch ending at offset {}", e.timestamp_ms,
                      it->last_offset),
          std::to_string(it->last_offset), std::to_string(e.offset.value));
    return;
  }
  if (cut && (points.empty() || e.timestamp_ms > points.back().timestamp)) return;
  // The running max when the batch holding the entry's offset was appended.
  int64_t expected = time_index::kNoTimestamp;
  for (const auto& p : points)
    if (p.first_offset <= e.offset.value) expected = p.timestamp;
  f.add("timeindex.entry_mismatch", path, at,
        fmt::format("entry ({}, {}): the timestamp is never the segment's running max", e.timestamp_ms, e.offset),
        std::to_string(expected), std::to_string(e.timestamp_ms));
}

void check_final(const std::string& path, const std::vector<MaxPoint>& points,
                 const time_index::View& v, int64_t live, Findings& f) {
  if (points.empty()) return;
  const auto& want = points.back();
  const std::string expected = fmt::format("({}, {})", want.timestamp, want.last_offset);
  if (live == 0) {
    f.add("timeindex.final_entry", path, Position{0}, "no entry for the segment's max timestamp", expected, "no entries");
    return;
  }
  const auto last = v.timestamp_offset(live - 1);
  if (last.timestamp_ms != want.timestamp)
    f.add("timeindex.final_entry", path, v.slot_position(live - 1),
          "the last entry is not the segment's max timestamp", expected,
          fmt::format("({}, {})", last.timestamp_ms, last.offset));
}

}  // namespace

bool check_time_index(const std::string& path, const SegmentScan& s, Findings& f) {
  auto mf = MappedFile::open(path);
  if (!mf.ok()) {
    f.io_error(path, mf.error().message);
    return false;
  }
  mf->set_drop_page_cache(true);
  time_index::View v(mf->bytes(), s.base_offset);
  auto& fr = f.file(path, "timeindex");
  fr.size_bytes = fr.checked_bytes = mf->size();
  if (v.trailing_bytes().bytes != 0)
    f.add("timeindex.size", path, Position{v.slot_count() * time_index::kEntrySize}, "size is not a multiple of 12",
          "a multiple of 12", std::to_string(mf->size()));
  const int64_t slots = v.slot_count();
  const Bytes data = mf->bytes().first(static_cast<size_t>(slots * time_index::kEntrySize));
  int64_t live = v.live_entry_count();
  if (live == 1 && v.entry(0) == time_index::Entry{}) live = 0;
  int64_t used = slots;
  while (used > live && all_zero(data.subspan(static_cast<size_t>((used - 1) * time_index::kEntrySize), 12))) --used;
  if (used > live) {
    const auto prev = v.timestamp_offset(live - 1), cur = v.timestamp_offset(live);
    f.add("timeindex.not_monotonic", path, v.slot_position(live),
          fmt::format("entry {} does not follow entry {} ({}, {})", live, live - 1, prev.timestamp_ms, prev.offset),
          fmt::format("timestamp > {}, offset >= {}", prev.timestamp_ms, prev.offset),
          fmt::format("({}, {})", cur.timestamp_ms, cur.offset));
  } else if (live < slots) {
    const std::string code = s.last_segment ? "timeindex.preallocated" : "timeindex.untrimmed";
    f.add(code, path, v.slot_position(live), fmt::format("{} entries, then {} zero-filled slots", live, slots - live),
          fmt::format("{} bytes", live * time_index::kEntrySize), fmt::format("{} bytes", mf->size()));
  }
  const auto points = max_points(s);
  for (int64_t i = 0; i < used; ++i)
    if (i < live || !all_zero(data.subspan(static_cast<size_t>(i * time_index::kEntrySize), 12)))
      check_entry(path, s, points, i, v.timestamp_offset(i), f);
  const bool complete = !s.damaged && s.checked_bytes == s.file_size;
  // Kafka 4.4 appends the final entry at roll; close() does not (checked on
  // broker-log-dir, shut down cleanly), so the active segment is exempt.
  if (complete && used == live && !s.last_segment) check_final(path, points, v, live, f);
  fr.entries = used;
  return true;
}

}  // namespace kseg
