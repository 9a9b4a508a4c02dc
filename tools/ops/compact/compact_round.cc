// SPDX-License-Identifier: Apache-2.0
// One round of Kafka 4.4.0's Cleaner.doClean, offline. The steps and every
// rule are in formats/log-cleaning.md ("One round" steps 1-6 and the parts
// named below).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "formats/batch_check.h"
#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/offset_map.h"
#include "lib/cpus.h"
#include "lib/mapped_file.h"
#include "lib/work_pool.h"
#include "tools/ops/compact/compact_dest.h"
#include "tools/ops/compact/compact_filter.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/compact/compact_spill.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/partition/log_dir.h"

namespace kseg::compact {

namespace {

// The parallel walks' chunks: an examined entry holds its records (about as
// many bytes again as the batch): 2 MiB chunks keep that, and the mapped
// pages of three chunks, to a few MiB beside the offset map.
constexpr int64_t kChunkBytes = 2 << 20;

Error fail(Errc c, std::string m) { return Error{c, std::nullopt, std::move(m)}; }

Error at(const std::string& file, Position pos, const std::string& what) {
  return refusal(Code::refuse_cleaner_stops, pos,
                 fmt::format("{}: position {}: {}; Kafka's cleaner stops here too. Nothing was changed by this round "
                           "from here on; `kseg reindex --salvage` removes the damaged batch",
                             file, pos.value, what));
}

// LocalLog.collectAbortedTransactions(logStartOffset, base, upper): from
// the segment holding `base`, every entry with lastOffset >= the log start
// and firstOffset < upper, up to the first segment holding an entry whose
// last stable offset is >= upper.
std::vector<txn_index::AbortedTxn> collect_aborted(const Input& p, int64_t base, int64_t upper) {
  std::vector<txn_index::AbortedTxn> out;
  size_t i = 0;
  while (i + 1 < p.segments.size() && p.segments[i + 1].base <= base) ++i;
  for (; i < p.segments.size(); ++i) {
    bool complete = false;
    for (const auto& t : p.aborted[i]) {
      if (t.last_offset >= p.log_start() && t.first_offset < upper) out.push_back(t);
      if (t.last_stable_offset >= upper) {
        complete = true;
        break;
      }
    }
    if (complete) break;
  }
  return out;
}

struct LastRecord {
  std::optional<int64_t> last_data_offset;
  int16_t epoch = 0;
};

// `found`: the map's offset for its key (-1: none); `latest_offset`: the map's latest.
Verdict verdict(const Batch& b, const Rec& r, int64_t found, bool retain_legacy_deletes, int64_t latest_offset,
                int64_t now_ms);

class Round {
 public:
  Round(const Input& p, const Settings& s, const RoundOptions& o) : p_(p), s_(s), o_(o), map_(s.offset_map_bytes) {}
  Result<RoundStats> run();

 private:
  // Steps 1-2: the round's bounds into st_; the first uncleanable segment's base.
  int64_t bounds();
  // Step 5: groups of the segments below st_.end_offset.
  std::vector<std::vector<size_t>> groups(int64_t first_uncleanable) const;
  Status validate(size_t seg);
  Status build_map(int64_t start, int64_t end);
  // Where the map pass starts reading segment `seg` (`f`) for a section
  // from `start`: the offset index's entry for it in the segment holding it.
  Result<int64_t> map_from(size_t seg, int64_t start, const MappedFile& f) const;
  // The map pass's walk of a segment (`f`, named `file`) from `scanner`:
  // each entry decoded and the keys of the records `wanted` selects hashed
  // on the helper threads, then `use(entry, examined, failed)` in file
  // order; an entry that does not decode stops it. What stopped it, if
  // anything did.
  template <class Wanted, class Use>
  Status walk_keys(EntryScanner& scanner, MappedFile& f, const std::string& file, Wanted&& wanted, Use&& use) {
    Status failed;
    walk_entries<Examined>(
        scanner, threads_,
        [&](const WalkEntry& w, unsigned) {
          Examined x;
          examine(w.ref(), x, wanted, Pass::map, nullptr);
          return x;
        },
        [&](const EntryRef& e, Examined& x) {
          if (!x.status.ok()) {
            failed = at(file, e.position, x.status.error().message);
            return Step::stop;
          }
          const Step step = use(e, x, failed);
          x = Examined{};
          return step;
        },
        [&](Position consumed) { f.release_before(consumed); }, kChunkBytes);
    return failed;
  }
  Status spill_all(int64_t start, int64_t end);
  Status clean_group(const std::vector<size_t>& group, Tracker& tracker);
  Status clean_segment(size_t seg, Dest& dest, Tracker& tracker);
  Status emit(const Batch& b, const std::vector<Rec>& kept, std::optional<int64_t> horizon, Dest& dest);
  // The records of `b` in kept_ into dest: its bytes as they are when none
  // went (`original`) and no delete horizon is to be stamped, else rebuilt.
  // `rebuilt`: the batch speculate() rebuilt from the same records, if it did.
  // `records`: how many it keeps, where kept_ does not hold them (-1: kept_'s).
  Status write_kept(const EntryRef& e, const Batch& b, bool original, bool stamp, Dest& dest,
                    const Examined* rebuilt = nullptr, int64_t records = -1);
  Status swap_in(const std::vector<size_t>& group, Dest& dest);
  Result<MappedFile> open_log(size_t seg) const {
    auto f = MappedFile::open(p_.path(p_.segments[seg].base, ".log"));
    if (!f.ok()) return fail(Errc::io, fmt::format("{}: {}", p_.path(p_.segments[seg].base, ".log"), f.error().message));
    return f;
  }
  // Counts the verdict on a record; whether it is kept.
  bool retain_record(Verdict v);
  // The delete horizon a batch is written with (`stamp`: set one now).
  std::optional<int64_t> horizon_of(const Batch& b, bool stamp) const;
  // On an examining thread: the verdicts on a data batch's records and the
  // batch rebuilt from what they keep, where nothing decided in order can
  // change them (the map's answers; not a control batch, not the spill's).
  // consume() uses them unless the transaction tracker discards the batch.
  void speculate(Examined& x, bool retain_legacy) const;
  void stage(const char* what) const {
    if (o_.number > 0) progress_stage(fmt::format("round {}: {}", o_.number, what));
  }


  const Input& p_;
  const Settings& s_;
  const RoundOptions& o_;
  OffsetMap map_;
  PutOffsets known_;  // the map pass's answers by offset, for the cleaning pass
  // validate()'s: whether the batches of every segment the round reads have increasing offsets (v2 only).
  int64_t validated_last_ = -1;
  bool offsets_increase_ = true;
  std::unique_ptr<Spill> spill_;  // the map's answers when its keys did not fit (one pass)
  RoundStats st_;
  int64_t legacy_horizon_ = 0;
  std::map<int64_t, LastRecord> last_records_;
  std::vector<uint8_t> scratch_, out_;
  std::vector<Rec> kept_;
  int64_t cleaned_ = 0;  // bytes of segments the cleaning pass read
  // Decode, hash, look up, decide and rebuild beside the caller, which
  // tracks transactions and writes: a thread per usable CPU, at most 8.
  unsigned threads_ = std::min(8u, usable_cpus());
};

// Every batch of a segment the round reads must be one Kafka's reader
// accepts: checked before anything is written, so a damaged segment
// changes nothing.
Status Round::validate(size_t seg) {
  auto f = open_log(seg);
  if (!f.ok()) return f.error();
  const std::string file = p_.path(p_.segments[seg].base, ".log");
  EntryScanner scanner(f->bytes(), Position{0});
  while (auto e = scanner.next()) {
    f->release_before(e->position);  // in 2 MiB steps: resident memory stays flat
    const EntryCheck c = check_entry(*e);
    // The cleaning pass's answers by offset (PutOffsets) name one record per
    // offset: only where every batch it reads starts past the last one's end.
    if (!c.v2() || c.base_offset <= validated_last_) offsets_increase_ = false;
    validated_last_ = std::max(validated_last_, c.last_offset);
    if (c.fault() == SegmentEnd::too_small) return at(file, e->position, too_small_text(*e));
    if (c.fault() == SegmentEnd::bad_crc) return at(file, e->position, crc_mismatch_text(c));
    if (!c.decoded) return at(file, e->position, "a message whose key or value runs past its end");
    if (!c.codec_known) return at(file, e->position, unknown_codec_text(c));
    if (needs_marker_check(c))
      if (Status m = check_control_marker(*e, c.header, v2::kDefaultMaxDecompressed); !m.ok())
        return at(file, e->position, m.error().message);
  }
  if (scanner.end() != SegmentEnd::clean) return at(file, scanner.valid_end(), segment_end_detail(scanner));
  return {};
}

Result<int64_t> Round::map_from(size_t seg, int64_t start, const MappedFile& f) const {
  if (p_.segments[seg].base >= start) return int64_t{0};
  const std::string index = p_.path(p_.segments[seg].base, ".index");
  auto idx = MappedFile::open(index);
  if (!idx.ok()) return fail(Errc::io, fmt::format("{}: {}", index, idx.error().message));
  const Offset base{p_.segments[seg].base};
  offset_index::View v(idx->bytes(), base, Position{0}, offset_index_width(idx->bytes(), base, f.bytes()));
  const int64_t from = offset_index::lookup(v, v.slot_count(), Offset{start}).position;
  return from < 0 || from > f.size() ? 0 : from;
}

// Step 4: the map over [start, end), from the offset index's entry for start.
Status Round::build_map(int64_t start, int64_t end) {
  Tracker tracker;
  tracker.add(collect_aborted(p_, start, end));
  const int64_t max_entries = map_.max_entries(s_.load_factor);
  st_.map_capacity = max_entries;
  // Three bits an offset, at most a sixteenth of the map's memory.
  known_.reset(start, end, s_.offset_map_bytes * 8 / 16 / PutOffsets::kBitsPerOffset);
  map_.expect_offsets_below(end);
  size_t i = 0;
  while (i + 1 < p_.segments.size() && p_.segments[i + 1].base <= start) ++i;
  const size_t first = i;
  // --until-clean refuses a map that fills inside the round's first segment
  // (a round would clean less than a segment: the run takes a round per map
  // of keys): the rest of that segment is read to count the keys it lacks.
  int64_t lacking = 0;
  for (; i < p_.segments.size() && p_.segments[i].base < end; ++i) {
    const int64_t next = i + 1 < p_.segments.size() && p_.segments[i + 1].base < end ? p_.segments[i + 1].base : end;
    auto f = open_log(i);
    if (!f.ok()) return f.error();
    auto from = map_from(i, start, *f);
    if (!from.ok()) return from.error();
    EntryScanner scanner(f->bytes().subspan(static_cast<size_t>(*from)), Position{*from});
    bool full = false;
    const std::string file = p_.path(p_.segments[i].base, ".log");
    Status failed = walk_keys(
        scanner, *f, file, [&](const Rec& r) { return r.offset >= start; },
        [&](const EntryRef&, const Examined& x, Status&) {
          const Batch& b = x.b;
          if (!x.offsets_inside) known_.off();  // before any put of it (the map may fill inside it)
          if (b.control) {
            tracker.on_control(b, x.control_type);
          } else if (!tracker.on_batch(b)) {
            // A slot a few keys ahead loads while this one is put: their cache misses overlap.
            for (size_t k = 0; k < std::min(x.keyed.size(), OffsetMap::kPrefetchAhead); ++k) map_.prefetch(x.keyed[k].second);
            size_t t = 0;  // x.tombstones: in the same order
            for (size_t k = 0; k < x.keyed.size(); ++k) {
              if (k + OffsetMap::kPrefetchAhead < x.keyed.size()) map_.prefetch(x.keyed[k + OffsetMap::kPrefetchAhead].second);
              const auto& [offset, digest] = x.keyed[k];
              const bool null_value = t < x.tombstones.size() && x.tombstones[t] == offset;
              t += null_value;
              if (full) {  // counting only
                if (map_.get(digest) < 0) ++lacking;
                continue;
              }
              if (map_.size() >= max_entries) {
                full = true;
                known_.filled_at(offset);
                if (!o_.refuse_small_map || i != first) return Step::stop;
                if (map_.get(digest) < 0) ++lacking;
                continue;
              }
              known_.put(offset, map_.put(digest, offset));
              if (null_value) known_.tombstone(offset);
              ++st_.map_records;
            }
          }
          if (b.last >= start) map_.update_latest_offset(b.last);
          return Step::accept;
        });
    if (!failed.ok()) return failed;
    if (full && o_.refuse_small_map && i == first) {
      // Room for every key the segment adds (an upper bound: keys that did
      // not fit are counted once per record) and one more: the map stops
      // when it is full, before a put that would not grow it.
      const int64_t keys = map_.size() + lacking + 1;
      int64_t slots = static_cast<int64_t>(std::ceil(static_cast<double>(keys) / s_.load_factor));
      while (static_cast<int64_t>(static_cast<double>(slots) * s_.load_factor) < keys) ++slots;
      return fail(Errc::usage,
                  fmt::format("{}: an offset map of {} bytes holds {} keys (load factor {}), and {} has up to {} from "
                              "offset {}: --until-clean would run a round per map of keys, each cleaning less than a "
                              "segment; give --offset-map-bytes {} or more, or a number of --rounds",
                              p_.dir, s_.offset_map_bytes, max_entries, s_.load_factor, file, keys - 1,
                              std::max(start, p_.segments[i].base), slots * OffsetMap::kBytesPerEntry));
    }
    if (full) {
      st_.map_full = true;
      return {};
    }
    map_.update_latest_offset(next - 1);
  }
  return {};
}

// One pass whose keys did not fit the map (compact_spill.h): every record
// the cleaning pass will look up, from the first segment, through the spill;
// the map pass's rules (its tracker, from the index entry of `start`) decide
// which the map would hold. The round then ends where a map of every key
// would end it.
Status Round::spill_all(int64_t start, int64_t end) {
  // A dry run writes nothing beside the partition (it holds no lock: a broker may be running).
  auto made = Spill::create(o_.dry_run ? std::string() : p_.dir, o_.spill_buffer_bytes);
  if (!made.ok()) return made.error();
  spill_ = std::move(*made);
  map_.clear();
  known_.off();
  int64_t work = 0;
  for (size_t i = 0; i < p_.segments.size() && p_.segments[i].base < end; ++i) work += p_.segments[i].size;
  progress_more(work);
  Tracker tracker;
  tracker.add(collect_aborted(p_, start, end));
  size_t first = 0;
  while (first + 1 < p_.segments.size() && p_.segments[first + 1].base <= start) ++first;
  int64_t previous = -1, holds = 0;
  for (size_t i = 0; i < p_.segments.size() && p_.segments[i].base < end; ++i) {
    const ProgressDoneAtEnd told{p_.segments[i].size};
    auto f = open_log(i);
    if (!f.ok()) return f.error();
    const std::string file = p_.path(p_.segments[i].base, ".log");
    // Where the map pass reads from in this segment (none before the dirty one).
    int64_t from = INT64_MAX;
    if (i >= first) {
      auto at = map_from(i, start, *f);
      if (!at.ok()) return at.error();
      from = *at;
    }
    EntryScanner scanner(f->bytes(), Position{0});
    Status failed = walk_keys(
        scanner, *f, file, [](const Rec&) { return true; },
        [&](const EntryRef& e, const Examined& x, Status& stop) {
          const Batch& b = x.b;
          bool held = false;
          if (e.position.value >= from) {
            if (b.control) tracker.on_control(b, x.control_type);
            else held = !tracker.on_batch(b);
          }
          for (const auto& [offset, digest] : x.keyed) {
            if (offset <= previous) {
              // Not damage Kafka's cleaner stops on (it cleans such a log in rounds): a limit of the spill.
              stop = fail(Errc::usage,
                          fmt::format("{}: position {}: offset {} follows offset {}: the dirty section's keys do not "
                                      "fit --memory, and spilling them needs offsets that increase; give "
                                      "--offset-map-bytes to clean in Kafka's rounds, or a larger --memory",
                                      file, e.position.value, offset, previous));
              return Step::stop;
            }
            previous = offset;
            const bool put = held && offset >= start;
            holds += put;
            if (Status s = spill_->add(digest, offset, put); !s.ok()) {
              stop = s;
              return Step::stop;
            }
          }
          return Step::accept;
        });
    if (!failed.ok()) return failed;
  }
  int64_t keys = 0;
  KSEG_RETURN_IF_ERROR(spill_->resolve(map_, map_.max_entries(s_.load_factor), keys));
  map_.update_latest_offset(end - 1);
  st_.map_full = false;
  st_.map_keys = keys;
  st_.map_records = holds;
  st_.spilled = true;
  st_.spill_records = spill_->records();
  st_.spill_bytes = spill_->bytes_written();
  st_.spill_dir = spill_->dir();
  st_.spill_elsewhere = spill_->dir() != p_.dir;
  return {};
}

Verdict verdict(const Batch& b, const Rec& r, int64_t found, bool retain_legacy_deletes, int64_t latest_offset,
                int64_t now_ms) {
  if (r.offset > latest_offset) return Verdict::keep;
  if (r.key.null) return Verdict::unkeyed;
  const bool latest = r.offset >= found;
  const bool retain_deletes = b.magic >= 2 ? (!b.horizon || now_ms < *b.horizon) : retain_legacy_deletes;
  if (latest && (!r.value.null || retain_deletes)) return Verdict::keep;
  return latest ? Verdict::tombstone : Verdict::superseded;
}

bool Round::retain_record(Verdict v) {
  st_.records_unkeyed += v == Verdict::unkeyed;
  st_.records_superseded += v == Verdict::superseded;
  st_.tombstones_removed += v == Verdict::tombstone;
  return v == Verdict::keep;
}

std::optional<int64_t> Round::horizon_of(const Batch& b, bool stamp) const {
  if (!stamp) return b.horizon;
  return o_.now_ms > INT64_MAX - s_.delete_retention_ms ? INT64_MAX : o_.now_ms + s_.delete_retention_ms;
}

void Round::speculate(Examined& x, bool retain_legacy) const {
  const Batch& b = x.b;
  if (spill_ || !x.status.ok() || b.control || x.redecode || x.whole != Whole::none) return;
  x.verdicts.resize(x.recs.size());
  std::vector<Rec> kept;
  bool all = true, tombstones = false;
  for (size_t k = 0; k < x.recs.size(); ++k) {
    const Rec& r = x.recs[k];
    const Verdict v = verdict(b, r, x.found.empty() ? -1 : x.found[k], retain_legacy, map_.latest_offset(), o_.now_ms);
    x.verdicts[k] = v;
    if (v == Verdict::keep) {
      kept.push_back(r);
      tombstones |= r.value.null;
    } else {
      all = false;
    }
  }
  x.speculated = true;
  const bool stamp = tombstones && !b.horizon;
  if (kept.empty() || (b.magic >= 2 && all && !stamp)) return;  // nothing to write, or the original bytes
  auto h = kseg::kept::rebuild_batch(b, kept, horizon_of(b, stamp), x.rebuilt);
  if (!h.ok()) {
    x.speculated = false;  // rebuilt again in order, where its error is reported
    return;
  }
  x.rebuilt_last = h->last_offset();
  x.rebuilt_max_ts = h->max_timestamp;
}

// Writes what survives of one batch (log-cleaning.md, what is written per
// batch): a rebuilt batch (formats/kept_records.h), or (kept empty) a 61-byte
// header.
Status Round::emit(const Batch& b, const std::vector<Rec>& kept, std::optional<int64_t> horizon, Dest& dest) {
  auto h = kseg::kept::rebuild_batch(b, kept, horizon, out_);
  if (!h.ok()) return h.error();
  return dest.append(out_, h->last_offset(), h->max_timestamp);
}

Status Round::write_kept(const EntryRef& e, const Batch& b, bool original, bool stamp, Dest& dest,
                         const Examined* rebuilt, int64_t records) {
  const std::optional<int64_t> horizon = horizon_of(b, stamp);
  if (b.control) ++st_.markers_kept, st_.markers_stamped += stamp;
  for (const Rec& r : kept_)
    if (r.value.null && !b.control) ++st_.tombstones_kept, st_.tombstones_stamped += stamp;
  if (horizon && *horizon > o_.now_ms) st_.next_horizon = std::min(st_.next_horizon.value_or(INT64_MAX), *horizon);
  ++st_.kept.batches;
  st_.kept.records += records >= 0 ? records : static_cast<int64_t>(kept_.size());
  if (original && !stamp) return dest.append(e.bytes, b.last, b.max_ts);
  ++st_.batches_rebuilt;
  if (rebuilt) return dest.append(rebuilt->rebuilt, rebuilt->rebuilt_last, rebuilt->rebuilt_max_ts);
  return emit(b, kept_, horizon, dest);
}

Status Round::clean_segment(size_t seg, Dest& dest, Tracker& tracker) {
  const Segment& s = p_.segments[seg];
  const ProgressDoneAtEnd told{s.size};
  cleaned_ += s.size;
  const std::string file = p_.path(s.base, ".log");
  auto f = open_log(seg);
  if (!f.ok()) return f.error();
  // Kafka bounds the aborted transactions it adds by the next segment of the
  // group, else this segment's next offset; the next segment's base (there
  // is one: the active segment is never cleaned) selects the same entries,
  // as no batch lies between the two.
  const int64_t upper = seg + 1 < p_.segments.size() ? p_.segments[seg + 1].base : INT64_MAX;
  tracker.add(collect_aborted(p_, s.base, upper));
  const bool retain_legacy = s.mtime_ms > legacy_horizon_;
  EntryScanner scanner(f->bytes(), Position{0});
  const int64_t latest = map_.latest_offset();
  Status failed;
  auto consume = [&](const EntryRef* e, Examined& x) -> Status {
    const Batch& b = x.b;
    ++st_.read.batches;
    st_.read.bytes += e->total().bytes;
    if (!x.status.ok()) return at(file, e->position, x.status.error().message);
    const std::optional<int16_t> type = x.control_type;
    const bool can_discard = b.control ? tracker.on_control(b, type) : tracker.on_batch(b);
    const bool discard_records =
        b.control ? can_discard && b.horizon && *b.horizon <= o_.now_ms : can_discard;
    bool last_of_producer = false;
    if (auto it = last_records_.find(b.pid); b.has_pid && it != last_records_.end())
      last_of_producer = it->second.last_data_offset ? b.last == *it->second.last_data_offset
                                                     : b.control && b.epoch == it->second.epoch;
    enum { retain_empty, remove, remove_empty } retention =
        b.has_pid && last_of_producer ? retain_empty
        : b.last + 1 == p_.hw         ? retain_empty  // 4.4.0: the batch ending at the high watermark
        : discard_records             ? remove
                                      : remove_empty;
    const bool marker_for_empty_txn = can_discard && b.control;
    if (retention == remove) {
      // Read as a whole and dropped: its records count as read (and not kept), as the cleaner's stats count them.
      st_.read.records += b.check.v2() ? b.check.header.records_count : 1;
      if (b.control) ++st_.markers_removed;
      else {
        if (b.txn && can_discard) st_.records_aborted += b.check.v2() ? b.check.header.records_count : 1;
      }
      return {};
    }
    // A batch Kafka keeps as an empty header (retain_empty) when nothing of it is kept.
    auto keep_empty = [&]() -> Status {
      if (retention != retain_empty) return {};
      if (b.magic < 2)
        return refusal(Code::refuse_cleaner_stops, e->position,
                       fmt::format("{}: position {}: the last batch below the high watermark is a v{} message the "
                                   "round empties; Kafka's cleaner throws here (\"Empty batches are only supported "
                                   "for magic v2\") and stops cleaning the partition",
                                   file, e->position.value, b.magic));
      if (b.control) ++st_.markers_kept;
      ++st_.batches_emptied;
      ++st_.kept.batches;
      return emit(b, {}, std::nullopt, dest);
    };
    kept_.clear();
    if (x.whole != Whole::none) {  // every record kept, or every one superseded: told by the map pass, not decoded
      const int64_t n = b.check.header.records_count;
      st_.read.records += n;
      if (discard_records) st_.records_aborted += n;
      else if (x.whole == Whole::superseded) st_.records_superseded += n;
      else return write_kept(*e, b, true, false, dest, nullptr, n);
      return keep_empty();
    }
    if (b.control || x.redecode) {  // read for the marker type only, or too large to hold
      x.recs.clear();
      if (Status r = records_of(b, x.buf, x.recs); !r.ok()) return at(file, e->position, r.error().message);
    }
    const std::vector<Rec>& recs = x.recs;
    if (spill_ && !b.control && !discard_records) {  // the map's answers, in log order
      x.found.assign(recs.size(), -1);
      for (size_t k = 0; k < recs.size(); ++k) {
        if (recs[k].key.null || recs[k].offset > latest) continue;
        const KeyDigest d = k < x.hashed.size() && x.hashed[k] ? x.digests[k] : key_digest(recs[k].key.bytes);
        auto later = spill_->superseded(d, recs[k].offset);
        if (!later.ok()) return later.error();
        if (*later) x.found[k] = INT64_MAX;
      }
    }
    st_.read.records += static_cast<int64_t>(recs.size());
    bool original = b.magic >= 2, tombstones = false;
    for (size_t k = 0; k < recs.size(); ++k) {
      const Rec& r = recs[k];
      const bool keep = discard_records ? false
                        : b.control     ? true
                                        : retain_record(x.speculated ? x.verdicts[k]
                                                                     : verdict(b, r, x.found.empty() ? -1 : x.found[k],
                                                                               retain_legacy, latest, o_.now_ms));
      if (keep) {
        kept_.push_back(r);
        if (r.value.null && !b.control) tombstones = true;
      } else {
        original = false;
        if (discard_records && !b.control) ++st_.records_aborted;
      }
    }
    if (!kept_.empty()) {
      KSEG_RETURN_IF_ERROR(write_kept(*e, b, original, (tombstones || marker_for_empty_txn) && !b.horizon, dest,
                                      x.speculated && !discard_records ? &x : nullptr));
    } else {
      KSEG_RETURN_IF_ERROR(keep_empty());
    }
    return {};
  };
  walk_entries<Examined>(
      scanner, threads_,
      [&](const WalkEntry& w, unsigned) {
        Examined x;
        examine(w.ref(), x, [&](const Rec& r) { return r.offset <= latest; }, Pass::clean, spill_ ? nullptr : &map_,
                &known_);
        speculate(x, retain_legacy);
        return x;
      },
      [&](const EntryRef& e, Examined& x) {
        failed = consume(&e, x);
        x = Examined{};  // freed as consumed, not when the chunk goes
        return failed.ok() ? Step::accept : Step::stop;
      },
      [&](Position consumed) { f->release_before(consumed); }, kChunkBytes);
  return failed;
}

Status Round::clean_group(const std::vector<size_t>& group, Tracker& tracker) {
  Group g;
  Dest dest(p_, p_.segments[group.front()].base, s_, !o_.dry_run);
  KSEG_RETURN_IF_ERROR(dest.open());
  tracker.cleaned_index = &dest.txns;
  // Without a backup the swap unlinks the originals, and the kernel frees
  // their cached pages then, on the calling thread (a quarter of a second a
  // GiB: a fifth of a 1 GiB run's time). Read once, each segment's are
  // dropped beside the cleaning of the next, or beside the group's fsync.
  const bool drop = !o_.dry_run && !o_.backup;
  // `step`, and beside it the dropping of segment `read`'s pages (-1: none).
  auto beside = [&](int64_t read, const std::function<Status()>& step) {
    Status st;
    WorkPool::shared().run(drop && read >= 0 ? 2 : 1, [&](size_t job) {
      if (job == 0) st = step();
      else drop_page_cache(p_.path(p_.segments[static_cast<size_t>(read)].base, ".log"));
    });
    return st;
  };
  for (size_t k = 0; k < group.size(); ++k) {
    g.bases.push_back(p_.segments[group[k]].base);
    g.bytes_in += p_.segments[group[k]].size;
    const int64_t read = k == 0 ? -1 : static_cast<int64_t>(group[k - 1]);
    KSEG_RETURN_IF_ERROR(beside(read, [&] { return clean_segment(group[k], dest, tracker); }));
  }
  tracker.cleaned_index = nullptr;
  KSEG_RETURN_IF_ERROR(beside(static_cast<int64_t>(group.back()),
                              [&] { return dest.finish(p_.segments[group.back()].mtime_ms); }));
  g.bytes_out = dest.size();
  st_.kept.bytes += dest.size();
  st_.groups.push_back(g);
  if (o_.dry_run) return {};
  return swap_in(group, dest);
}

// Files in flight (log-cleaning.md): .cleaned -> .swap (the commit point:
// from here LogLoader finishes the replacement), the old segments into the
// backup, .swap stripped.
Status Round::swap_in(const std::vector<size_t>& group, Dest& dest) {
  const int64_t base = p_.segments[group.front()].base;
  std::vector<const char*> kinds = {".log", ".index", ".timeindex"};
  if (!dest.txns.empty()) kinds.push_back(".txnindex");
  safe::crash_point("cleaned-written");
  dest.committed = true;
  auto dir = safe::Dir::open(p_.dir);
  if (!dir.ok()) return dir.error();
  auto rename = [&](const std::string& from, const std::string& to) -> Status {
    if (::renameat(dir->fd(), from.c_str(), dir->fd(), to.c_str()) == 0) return {};
    return fail(Errc::io, fmt::format("cannot rename {} to {}: {}", dir->path(from), to, std::strerror(errno)));
  };
  const std::string stem = fmt::format("{:020d}", base);
  for (const char* k : kinds) {
    KSEG_RETURN_IF_ERROR(rename(stem + k + ".cleaned", stem + k + ".swap"));
    safe::crash_point("swap-partial");
    struct stat sb {};
    if (o_.space && ::fstatat(dir->fd(), (stem + k + ".swap").c_str(), &sb, AT_SYMLINK_NOFOLLOW) == 0)
      o_.space->new_bytes += sb.st_size;
  }
  KSEG_RETURN_IF_ERROR(dir->fsync());
  safe::crash_point("swapped");
  safe::Plan old{p_.dir, {}};
  for (size_t seg : group) {
    const int64_t b = p_.segments[seg].base;
    for (const char* k : {".log", ".index", ".timeindex", ".txnindex"}) {
      struct stat sb {};
      if (::stat(p_.path(b, k).c_str(), &sb) == 0)
        old.actions.push_back(safe::Action::remove(fmt::format("{:020d}{}", b, k), fmt::format("cleaned into {:020d}.log", base)));
    }
    if (b != base)
      for (const auto& [offset, name] : p_.snapshots)
        if (offset == b) old.actions.push_back(safe::Action::remove(name, "its segment was cleaned into another"));
  }
  safe::ApplyOptions ao;
  ao.backup = o_.backup;
  ao.backup_dir = o_.backup_dir;
  if (o_.backup_into) ao.backup_into = *o_.backup_into;
  ao.space = o_.space;
  auto used = safe::apply(old, ao, *o_.held);
  if (!used.ok()) return used.error();
  if (o_.backup_into && !used->empty()) *o_.backup_into = *used;
  for (const char* k : kinds) KSEG_RETURN_IF_ERROR(rename(stem + k + ".swap", stem + k));
  KSEG_RETURN_IF_ERROR(dir->fsync());
  safe::crash_point("group-done");
  return {};
}

int64_t Round::bounds() {
  const auto& segs = p_.segments;
  const int64_t active = segs.back().base;
  st_.active_base = active;
  // Step 1: the first dirty offset.
  int64_t first_dirty = p_.cleaner_line.value_or(p_.log_start());
  if (first_dirty < p_.log_start() || first_dirty > p_.log_end) {
    st_.reset_checkpoint = p_.cleaner_line.has_value();
    first_dirty = p_.log_start();
  }
  st_.first_dirty = first_dirty;
  // The last stable offset: the high watermark, or the first offset of an
  // open transaction below it.
  int64_t lso = p_.hw;
  for (const auto& [pid, e] : p_.producers)
    if (e.has_open_txn() && e.current_txn_first_offset < lso) lso = e.current_txn_first_offset;
  for (const auto& [pid, e] : p_.producers)
    if (e.has_open_txn() && e.current_txn_first_offset < p_.hw)
      st_.open_txns.push_back(fmt::format("producer {} (epoch {}) from offset {}", pid, e.producer_epoch,
                                          e.current_txn_first_offset));
  st_.lso = lso;
  int64_t bound = std::min(lso, active);
  st_.stopped_by = lso < active ? (lso < p_.hw ? "the last stable offset (an open transaction)" : "the high watermark")
                                : "the active segment";
  if (s_.min_compaction_lag_ms > 0) {
    size_t i = 0;
    while (i + 1 < segs.size() && segs[i + 1].base <= first_dirty) ++i;
    for (; i + 1 < segs.size(); ++i)
      if (p_.largest_timestamps[i] > (o_.now_ms < INT64_MIN + s_.min_compaction_lag_ms ? INT64_MIN : o_.now_ms - s_.min_compaction_lag_ms)) {
        if (segs[i].base < bound) {
          bound = segs[i].base;
          st_.stopped_by = fmt::format("min.compaction.lag.ms: segment {} has a record newer than now - {} ms", segs[i].base,
                                       s_.min_compaction_lag_ms);
        }
        break;
      }
  }
  const int64_t uncleanable = std::max(first_dirty, bound);
  st_.uncleanable = uncleanable;
  // The segment holding it: cleaning stops at a segment boundary.
  int64_t first_uncleanable = active;
  if (uncleanable < active) {
    first_uncleanable = segs.front().base;
    for (const auto& s : segs)
      if (s.base <= uncleanable) first_uncleanable = s.base;
  }
  st_.first_uncleanable = first_uncleanable;
  int64_t dirty_seg = segs.front().base;
  for (const auto& s : segs)
    if (s.base <= first_dirty) dirty_seg = s.base;
  for (const auto& s : segs) {
    if (s.base < dirty_seg) st_.clean_bytes += s.size;
    else if (s.base < first_uncleanable) st_.cleanable_bytes += s.size;
  }
  return first_uncleanable;
}

std::vector<std::vector<size_t>> Round::groups(int64_t first_uncleanable) const {
  const auto& segs = p_.segments;
  std::vector<size_t> below;
  for (size_t i = 0; i < segs.size() && segs[i].base < st_.end_offset; ++i) below.push_back(i);
  std::vector<std::vector<size_t>> out;
  for (size_t k = 0; k < below.size();) {
    std::vector<size_t> g{below[k]};
    int64_t log = segs[below[k]].size, idx = segs[below[k]].index_bytes, tix = segs[below[k]].timeindex_bytes;
    ++k;
    while (k < below.size()) {
      const Segment& c = segs[below[k]];
      const int64_t estimate = (k + 1 < below.size() ? segs[below[k + 1]].base : first_uncleanable) - 1;
      if (log + c.size > s_.segment_bytes || idx + c.index_bytes > s_.segment_index_bytes ||
          tix + c.timeindex_bytes > s_.segment_index_bytes ||
          (c.size != 0 && estimate - segs[g.front()].base > INT32_MAX))
        break;
      log += c.size;
      idx += c.index_bytes;
      tix += c.timeindex_bytes;
      g.push_back(below[k]);
      ++k;
    }
    out.push_back(std::move(g));
  }
  return out;
}

Result<RoundStats> Round::run() {
  const auto& segs = p_.segments;
  const int64_t first_uncleanable = bounds();
  const int64_t first_dirty = st_.first_dirty;
  st_.end_offset = first_dirty;
  if (first_dirty >= first_uncleanable || o_.bounds_only) return st_;
  // The progress line's work: the validating pass (the map is built
  // beside it) and the cleaning pass, each over the cleanable segments; what
  // a full map leaves uncleaned is told done at the end.
  int64_t work = 0;
  for (size_t i = 0; i < segs.size() && segs[i].base < first_uncleanable; ++i) work += segs[i].size;
  progress_more(2 * work);
  stage("checking, mapping keys");
  // Nothing is written before every batch the round reads is known good:
  // checked beside the building of the offset map (both only read), and
  // both are done before the first write.
  Status valid, built;
  WorkPool::shared().run(2, [&](size_t job) {
    if (job == 0) {
      for (size_t i = 0; i < segs.size() && segs[i].base < first_uncleanable && valid.ok(); ++i) {
        const ProgressDoneAtEnd told{segs[i].size};
        valid = validate(i);
      }
      return;
    }
    // The legacy (v0/v1) tombstone horizon (log-cleaning.md: per batch).
    for (const auto& s : segs)
      if (s.base < first_dirty) legacy_horizon_ = s.mtime_ms - s_.delete_retention_ms;
    built = build_map(first_dirty, first_uncleanable);
  });
  KSEG_RETURN_IF_ERROR(valid);  // a damaged batch is named before whatever the map met
  KSEG_RETURN_IF_ERROR(built);
  if (!offsets_increase_) known_.off();
  st_.map_keys = map_.size();
  if (st_.map_full && o_.one_pass) {
    stage("spilling keys beyond --memory");
    KSEG_RETURN_IF_ERROR(spill_all(first_dirty, first_uncleanable));
  }
  stage("cleaning");
  // The map's latest offset + 1; a batch reaching past its segment (offsets
  // overlapping the next one) must not carry the round into the segments it
  // may not touch.
  st_.end_offset = std::min(map_.latest_offset() + 1, first_uncleanable);
  for (const auto& [pid, e] : p_.producers)
    last_records_[pid] = {e.has_batch_metadata() ? std::optional<int64_t>(e.last_offset) : std::nullopt, e.producer_epoch};
  Tracker tracker;  // one for the whole round, across groups
  for (const auto& g : groups(first_uncleanable)) KSEG_RETURN_IF_ERROR(clean_group(g, tracker));
  progress_done(std::max<int64_t>(0, work - cleaned_));
  return st_;
}

}  // namespace

Result<RoundStats> clean_round(const Input& p, const Settings& s, const RoundOptions& o) {
  Round r(p, s, o);
  return r.run();
}

}  // namespace kseg::compact
