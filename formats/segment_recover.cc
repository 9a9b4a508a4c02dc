// SPDX-License-Identifier: Apache-2.0
#include "formats/segment_recover.h"

#include <vector>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/batch_walk.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"
#include "formats/offset_index.h"
#include "formats/time_index.h"

namespace kseg::recover {

namespace {

// What recover needs from one batch, read from its header only (Kafka's
// FileChannelRecordBatch never decompresses here).
struct BatchFacts {
  Offset base_offset;
  Offset last_offset;
  int64_t max_timestamp_ms = -1;
  bool needs_marker_check = false;  // v2 control batch with a producer id and records
};

// RecordBatch.ensureValid; on failure sets `stop`/`detail` and returns nullopt.
std::optional<BatchFacts> validate(const EntryRef& e, const EntryCheck& c, SegmentEnd& stop, std::string& detail) {
  stop = c.fault();
  if (stop == SegmentEnd::too_small) detail = too_small_text(e);
  if (stop == SegmentEnd::bad_crc) detail = crc_mismatch_text(c);
  if (stop != SegmentEnd::clean) return std::nullopt;
  BatchFacts f;
  f.base_offset = Offset{c.base_offset};
  f.last_offset = Offset{c.last_offset};
  f.max_timestamp_ms = c.max_timestamp;  // v0: none (Kafka's NO_TIMESTAMP)
  f.needs_marker_check = needs_marker_check(c);
  return f;
}

// The running state of one recover() call.
struct Rebuilder {
  Offset base;
  const Config& config;
  offset_index::Writer offsets{base, config.index_entry_bytes};
  time_index::Writer times{base};
  int64_t max_ts = -1;
  Offset max_ts_offset = base;
  Position last_indexed{0};

  int64_t offset_capacity() const { return config.segment_index_bytes / offsets.entry_bytes(); }
  int64_t time_capacity() const { return config.segment_index_bytes / time_index::kEntrySize; }

  Status add(Position at, const BatchFacts& f) {
    const int64_t relative = f.last_offset - base;
    if (relative < 0 || relative > INT32_MAX)
      return Status::fail(Errc::refused, at,
                          fmt::format("batch last offset {} is not representable relative to base offset {} "
                                      "(LogSegmentOffsetOverflowException: Kafka splits or fails the segment)",
                                      f.last_offset, base));
    if (f.max_timestamp_ms > max_ts) {
      max_ts = f.max_timestamp_ms;
      max_ts_offset = f.last_offset;
    }
    if ((at - last_indexed).bytes > config.index_interval_bytes) {
      if (offsets.entries() >= offset_capacity() || times.entries() >= time_capacity() - 1)
        return Status::fail(Errc::refused, at,
                            fmt::format("index full at segment.index.bytes={}: Kafka fails loading this segment",
                                        config.segment_index_bytes));
      // The writers' positions are in the index files; the batch's is the one to name.
      if (Status st = offsets.append(f.last_offset, at.value); !st.ok())
        return Status::fail(st.error().code, at, st.error().message);
      if (auto t = times.maybe_append(max_ts, max_ts_offset); !t.ok())
        return Status::fail(t.error().code, at, t.error().message);
      last_indexed = at;
    }
    return {};
  }

  // A batch recovery keeps: indexed, and counted into `out`.
  Status take(Position at, const BatchFacts& f, SegmentRecovery& out) {
    KSEG_RETURN_IF_ERROR(add(at, f));
    if (!out.first_offset) out.first_offset = f.base_offset;
    out.last_offset = f.last_offset;
    out.valid_batches++;
    return {};
  }

  // After the last batch: the final time entry (roll/close/recover, appended
  // iff the max increased), then the index images into `out`.
  Status finish(SegmentRecovery& out) {
    KSEG_RETURN_IF_ERROR(times.maybe_append(max_ts, max_ts_offset).status());
    out.offset_index = offsets.bytes();
    out.offset_index_entry_bytes = offsets.entry_bytes();
    out.time_index = times.bytes();
    out.max_timestamp_ms = max_ts;
    return {};
  }
};

}  // namespace

Result<EntryVerdict> judge_entry(const EntryRef& e, const Config& config) { return judge_entry(e, check_entry(e), config); }

Result<EntryVerdict> judge_entry(const EntryRef& e, const EntryCheck& c, const Config& config) {
  EntryVerdict v;
  auto facts = validate(e, c, v.stop, v.detail);
  if (!facts) return v;
  v.base_offset = facts->base_offset;
  v.last_offset = facts->last_offset;
  v.max_timestamp_ms = facts->max_timestamp_ms;
  v.valid = true;
  if (facts->needs_marker_check) {
    Status m = check_control_marker(e, c.header, config.max_decompressed_bytes);
    if (!m.ok() && m.error().code == Errc::refused) return m.error();
    if (!m.ok()) {
      v.stop = SegmentEnd::bad_control;
      v.detail = "control record is not a valid end-transaction marker: " + m.error().message;
      v.ends_scan = true;
    }
  }
  return v;
}

Result<SegmentRecovery> recover_segment(Bytes log, Offset base_offset, const Config& config,
                                        const std::function<void(Position)>& scanned) {
  return recover_layout(log, {{Position{0}, Position{static_cast<int64_t>(log.size())}}}, base_offset, config, scanned);
}

namespace {
struct Judged {
  EntryVerdict verdict;
  Status failed;
};
}  // namespace

Result<SegmentRecovery> recover_layout(Bytes log, const std::vector<Piece>& pieces, Offset base_offset,
                                       const Config& config, const std::function<void(Position)>& scanned) {
  SegmentRecovery out;
  Rebuilder rb{base_offset, config};
  Position at{0};  // where the current piece starts in the laid-out file
  for (const auto& piece : pieces) out.file_size = out.file_size + (piece.end - piece.begin);
  for (const auto& piece : pieces) {
    const Length size = piece.end - piece.begin;
    EntryScanner scanner(log.subspan(static_cast<size_t>(piece.begin.value), static_cast<size_t>(size.bytes)), at);
    // Judged on any thread, then taken in file order: the first invalid
    // entry (or error) ends the scan, and what was judged after it is unused.
    Status failed;
    const WalkEnd w = walk_entries<Judged>(
        scanner, config.threads,
        [&](const WalkEntry& e, unsigned) {
          auto r = judge_entry(e.ref(), e.check(), config);
          return r.ok() ? Judged{std::move(*r), {}} : Judged{{}, r.status()};
        },
        [&](const EntryRef& e, Judged& j) {
          if (!j.failed.ok()) {
            failed = j.failed;
            return Step::stop;
          }
          const EntryVerdict& v = j.verdict;
          if (!v.valid) {
            out.stop = v.stop;
            out.stop_detail = v.detail;
            return Step::stop;
          }
          if (Status st = rb.take(e.position, {v.base_offset, v.last_offset, v.max_timestamp_ms, false}, out);
              !st.ok()) {
            failed = st;
            return Step::stop;
          }
          // Kafka counts the batch into validBytes and indexes it before producer
          // state parses the marker, so a bad marker keeps its batch and ends the scan.
          if (v.ends_scan) {
            out.stop = v.stop;
            out.stop_detail = v.detail;
            return Step::stop_after;
          }
          return Step::accept;
        },
        [&](Position end) {
          if (scanned) scanned(piece.begin + (end - at));
        });
    if (!failed.ok()) return failed.error();
    out.valid_end = w.valid_end;
    if (w.stopped) break;
    out.stop = w.end;
    out.stop_detail = segment_end_detail(scanner);
    if (w.end != SegmentEnd::clean) break;
    at = at + size;
  }
  KSEG_RETURN_IF_ERROR(rb.finish(out));
  return out;
}

struct CleanRecovery::State {
  Rebuilder rb;
  SegmentRecovery out;
  bool gave_up = false;
};

CleanRecovery::CleanRecovery(Offset base_offset, const Config& config)
    : config_(config), st_(std::make_unique<State>(State{Rebuilder{base_offset, config}, {}})) {}
CleanRecovery::~CleanRecovery() = default;

std::optional<size_t> CleanRecovery::judge(Bytes window, Position at, std::vector<Judged>& out,
                                           Position stop) const {
  out.clear();
  EntryScanner scanner(window, at);
  Position reached = at;
  bool gave_up = false;
  walk_entries(scanner, [&](const WalkEntry& w) {
    if (reached >= stop) return Step::stop;
    auto v = judge_entry(w.ref(), w.check(), config_);
    if (!v.ok() || !v->valid || v->ends_scan) {
      gave_up = true;
      return Step::stop;
    }
    out.push_back({w.ref().position, v->base_offset, v->last_offset, v->max_timestamp_ms});
    reached = w.ref().position + w.ref().total();
    return Step::accept;
  });
  if (gave_up) return std::nullopt;
  // A fed window may end mid-entry (where its block did); a bad size field
  // (or zero tail) is judged against the whole rest of the file, which only
  // recover_segment sees.
  if (scanner.end() == SegmentEnd::bad_size || scanner.end() == SegmentEnd::zero_tail) return std::nullopt;
  return static_cast<size_t>((reached - at).bytes);
}

bool CleanRecovery::take(const std::vector<Judged>& entries) {
  if (st_->gave_up) return false;
  for (const auto& j : entries) {
    if (!st_->rb.take(j.position, {j.base_offset, j.last_offset, j.max_timestamp_ms, false}, st_->out).ok()) {
      st_->gave_up = true;
      return false;
    }
  }
  return true;
}

std::optional<size_t> CleanRecovery::feed(Bytes window, Position at) {
  if (st_->gave_up) return std::nullopt;
  std::vector<Judged> judged;
  auto used = judge(window, at, judged);
  if (!used || !take(judged)) {
    st_->gave_up = true;
    return std::nullopt;
  }
  return used;
}

std::optional<SegmentRecovery> CleanRecovery::finish(Length file_size) {
  if (st_->gave_up) return std::nullopt;
  SegmentRecovery& out = st_->out;
  if (!st_->rb.finish(out).ok()) return std::nullopt;
  out.file_size = file_size;
  out.valid_end = Position{file_size.bytes};
  out.stop = SegmentEnd::clean;
  return std::move(out);
}

namespace {

// An offset a segment with base offset `base` can hold (any when unknown).
bool plausible(Offset o, Offset base) {
  return base.value == INT64_MIN ||
         (o >= base && static_cast<uint64_t>(o.value) - static_cast<uint64_t>(base.value) <= INT32_MAX);
}

// A position where a whole entry with a valid checksum starts (used to read
// past a region the scanner cannot cross, e.g. a corrupt size field).
bool valid_entry_at(Bytes log, size_t pos, Offset min_offset) {
  if (log.size() - pos <= static_cast<size_t>(kHeaderSizeUpToMagic)) return false;
  const uint8_t* p = log.data() + pos;
  const int64_t size = static_cast<int32_t>(load_be32(p + kOffsetFieldBytes));
  const int8_t magic = static_cast<int8_t>(p[kMagicOffset]);
  if (magic < 0 || magic > 2 || size < kMinRecordOverhead) return false;
  if (static_cast<uint64_t>(kLogOverhead + size) > log.size() - pos) return false;
  if (magic == 2 && size + kLogOverhead < v2::kRecordBatchOverhead) return false;
  // Offsets of a segment's entries lie in [base, base + INT32_MAX] (relative
  // offsets are 32-bit).
  if (!plausible(Offset{static_cast<int64_t>(load_be64(p))}, min_offset)) return false;
  const Bytes entry = log.subspan(pos, static_cast<size_t>(kLogOverhead + size));
  if (magic == 2) return load_be32(p + v2::kCrcOffset) == v2::compute_crc(entry);
  return load_be32(p + legacy::kCrcOffset) == legacy::compute_crc(entry);
}

void note(RemovedRange& r, Offset first, Offset last, Offset base) {
  if (!plausible(first, base) || !plausible(last, base)) return;  // garbage read as an entry
  if (!r.first_offset || first < *r.first_offset) r.first_offset = first;
  if (!r.last_offset || last > *r.last_offset) r.last_offset = last;
  r.entries++;
}

}  // namespace

RemovedRange describe_removed(Bytes log, Position valid_end, Offset base_offset) {
  RemovedRange r;
  size_t pos = static_cast<size_t>(valid_end.value);
  while (pos < log.size()) {
    EntryScanner scanner(log.subspan(pos), Position{static_cast<int64_t>(pos)});
    // The offsets the entries declare: no checksum is checked here.
    walk_entries(scanner, [&](const WalkEntry& w) {
      const EntryRef& e = w.ref();
      Offset last{e.offset};
      if (e.magic >= 2 && e.total().bytes >= v2::kRecordBatchOverhead) {
        auto h = v2::decode_header(e);
        if (h.ok()) last = Offset{h->last_offset()};
      }
      note(r, Offset{e.offset}, last, base_offset);
      return Step::accept;
    });
    if (scanner.end() == SegmentEnd::clean || scanner.end() == SegmentEnd::zero_tail) break;
    // A torn or impossible entry still names its base offset; then look for
    // the next entry with a valid checksum after it.
    if (scanner.end() == SegmentEnd::partial_tail || scanner.end() == SegmentEnd::bad_size)
      note(r, Offset{scanner.stop_offset()}, Offset{scanner.stop_offset()}, base_offset);
    pos = next_valid_entry(log, static_cast<size_t>(scanner.valid_end().value) + 1, base_offset).value_or(log.size());
  }
  return r;
}

std::optional<size_t> next_valid_entry(Bytes log, size_t from, Offset min_offset) {
  for (size_t pos = from; pos < log.size(); pos++)
    if (valid_entry_at(log, pos, min_offset)) return pos;
  return std::nullopt;
}

}  // namespace kseg::recover
