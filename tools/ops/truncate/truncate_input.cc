// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/truncate/truncate_input.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/file_names.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "lib/time_text.h"

namespace kseg::truncation {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

}  // namespace

namespace {

// The small state files (checkpoints, snapshots, the marker, the journal).
Result<std::vector<uint8_t>> read_small(const std::string& path) {
  auto bytes = MappedFile::read_state_file(path);
  if (!bytes.ok()) return bytes.error().in(path);
  return bytes;
}

// An interrupted run moved the marker aside and lowered the recovery point
// first, noting both in its journal: this run starts from what was there
// before.
Status read_journal(Input& p) {
  const std::string journal = p.dir + "/" + kTruncateJournal;
  if (!exists(journal)) return {};
  auto bytes = read_small(journal);
  if (!bytes.ok()) return bytes.error();
  auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (!j.is_object())
    return refusal(Code::refuse_foreign_journal, std::nullopt,
                   fmt::format("{}: not the journal kseg-truncate writes; remove it", journal));
  p.journal = true;
  if (j.contains("args") && j["args"].is_string()) p.journal_args = j["args"].get<std::string>();
  if (j.contains("end") && j["end"].is_number_integer()) p.journal_end = j["end"].get<int64_t>();
  if (j.contains("start") && j["start"].is_number_integer()) p.journal_start = j["start"].get<int64_t>();
  if (j.contains("loaded_start") && j["loaded_start"].is_number_integer())
    p.journal_loaded_start = j["loaded_start"].get<int64_t>();
  if (j.contains("recovery_point") && j["recovery_point"].is_number_integer())
    p.journal_recovery_point = j["recovery_point"].get<int64_t>();
  if (!p.marker && j.contains("marker_hex") && j["marker_hex"].is_string()) {
    const std::string hex = j["marker_hex"].get<std::string>();
    std::vector<uint8_t> m;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      uint8_t byte = 0;
      if (std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16).ec != std::errc())
        return refusal(Code::refuse_foreign_journal, std::nullopt,
                   fmt::format("{}: not the journal kseg-truncate writes; remove it", journal));
      m.push_back(byte);
    }
    p.marker = std::move(m);
  }
  return {};
}

}  // namespace

Result<Input> load(const std::string& dir) {
  auto loaded = load_partition(dir);
  if (!loaded.ok()) return loaded.error();
  Input p;
  static_cast<Partition&>(p) = std::move(*loaded);
  for (const auto& l : p.layout.leftovers) {
    if (l.kind == Leftover::swap || l.kind == Leftover::cleaned)
      return refusal(Code::refuse_interrupted_clean, std::nullopt,
                     fmt::format("{}/{}: an interrupted log cleaning; start the broker once (it completes or "
                                 "discards it) before truncating", dir, l.name));
    if (l.kind == Leftover::orphan_index) p.orphan_indexes.push_back(l.name);
  }
  const std::string epoch_path = dir + "/leader-epoch-checkpoint";
  if (exists(epoch_path)) {
    auto bytes = read_small(epoch_path);
    if (!bytes.ok()) return bytes.error();
    auto e = checkpoint::parse_leader_epoch_checkpoint(
        std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), epoch_path);
    if (!e.ok()) return e.error().in(epoch_path);
    p.epoch_file = true;
    p.epochs = std::move(*e);
  }
  for (RootCheckpoint c : kRootCheckpoints) {
    auto lines = p.root(c);
    if (!lines.ok()) return lines.error();
    p.roots[static_cast<size_t>(c)] = std::move(*lines);
  }
  const std::string marker = p.log_dir + "/" + kCleanShutdownFile;
  if (exists(marker)) {
    auto bytes = read_small(marker);
    if (!bytes.ok()) return bytes.error();
    p.marker = std::move(*bytes);
  }
  if (Status st = read_journal(p); !st.ok()) return st.error();
  return p;
}

// FileRecords.searchForTimestamp within one batch: the first record at or
// after `start` with a timestamp >= t. The cleaner keeps a batch's max
// timestamp when it removes the record that had it, so the header alone
// does not say. Legacy batches answer by their header (one timestamp each
// for uncompressed messages).
namespace {

Result<std::optional<int64_t>> first_record_at(const EntryRef& e, const EntryCheck& c, int64_t t, int64_t start) {
  if (!c.v2()) return std::optional<int64_t>(std::max(c.last_offset, start));
  RecordWalker walker;
  std::optional<int64_t> hit;
  const Status st = walker.batch(e, c.header, [&](const EntryRecord& r) {
    if (r.offset >= start && r.timestamp >= t) hit = r.offset;
    return !hit;
  });
  if (!st.ok()) return st.error();
  return hit;
}

}  // namespace

// Kafka's fetchOffsetByTimestamp: the first segment whose largest timestamp
// is >= t, its time index entry for t, then the first record from there at
// or above the log start offset whose timestamp is >= t; none when that
// segment has none.
Result<std::optional<int64_t>> offset_for_time(Input& p, int64_t t) {
  const int64_t start = p.log_start();
  for (const auto& s : p.segments) {
    auto largest = largest_timestamp(s);
    if (!largest.ok()) return largest.error();
    if (*largest < t) continue;
    auto f = MappedFile::open(s.path(FileKind::log));
    if (!f.ok()) return f.error().in(s.path(FileKind::log));
    int64_t from_offset = s.base, from = 0;
    if (auto tix = MappedFile::open(s.path(FileKind::timeindex)); tix.ok()) {
      time_index::View v(tix->bytes(), Offset{s.base});
      from_offset = std::max(time_index::lookup(v, v.live_entry_count(), t).offset.value, start);
    }
    if (auto idx = MappedFile::open(s.path(FileKind::index)); idx.ok()) {
      offset_index::View v(idx->bytes(), Offset{s.base}, Position{0},
                           offset_index_width(idx->bytes(), Offset{s.base}, f->bytes()));
      from = offset_index::lookup(v, v.live_entry_count(), Offset{from_offset}).position;
    }
    if (from < 0 || from > f->size()) from = 0;
    EntryScanner scanner(f->bytes().subspan(static_cast<size_t>(from)), Position{from});
    while (auto e = scanner.next()) {
      const auto c = check_entry(*e);
      if (c.max_timestamp < t || c.last_offset < start) continue;
      auto hit = first_record_at(*e, c, t, start);
      if (!hit.ok()) return hit.error().in(s.path(FileKind::log));
      if (*hit) return hit;
    }
    break;  // Kafka looks in that segment only
  }
  return std::optional<int64_t>();
}

// deleteOldSegments: the contiguous prefix of segments each rule deletes,
// rules in Kafka's order: log start offset, retention.bytes, retention.ms.
int64_t start_after_prefix(const Partition& p, size_t count, int64_t log_start) {
  return std::max(log_start, count < p.segments.size() ? p.segments[count].base : p.log_end);
}

Result<size_t> retention_prefix(const Partition& p, const TruncateOptions& o, int64_t hw, int64_t log_start,
                                const std::function<Result<int64_t>(size_t)>& largest) {
  size_t deleted = 0;
  auto prefix = [&](auto&& deletable) -> Result<size_t> {
    size_t n = deleted;
    while (n < p.segments.size()) {
      const bool last = n + 1 == p.segments.size();
      const int64_t upper = last ? p.log_end : p.segments[n + 1].base;
      if (hw < upper || (last && p.segments[n].size == 0)) break;
      auto ok = deletable(n);
      if (!ok.ok()) return ok.error();
      if (!*ok) break;
      ++n;
    }
    return n;
  };
  auto by_start = prefix([&](size_t i) -> Result<bool> {
    return i + 1 < p.segments.size() && p.segments[i + 1].base <= log_start;
  });
  if (!by_start.ok()) return by_start.error();
  deleted = *by_start;
  if (o.retention_bytes && *o.retention_bytes >= 0) {
    int64_t size = 0;
    for (size_t i = deleted; i < p.segments.size(); ++i) size += p.segments[i].size;
    if (size >= *o.retention_bytes) {
      int64_t diff = size - *o.retention_bytes;
      auto by_size = prefix([&](size_t i) -> Result<bool> {
        if (diff - p.segments[i].size < 0) return false;
        diff -= p.segments[i].size;
        return true;
      });
      if (!by_size.ok()) return by_size.error();
      deleted = *by_size;
    }
  }
  if (o.retention_ms && *o.retention_ms >= 0) {
    const int64_t now = clock_ms(o.now_ms);
    auto by_time = prefix([&](size_t i) -> Result<bool> {
      auto ts = largest ? largest(i) : largest_timestamp(p.segments[i]);
      if (!ts.ok()) return ts.error();
      return now - *ts > *o.retention_ms;
    });
    if (!by_time.ok()) return by_time.error();
    deleted = *by_time;
  }
  return deleted;
}

}  // namespace kseg::truncation
