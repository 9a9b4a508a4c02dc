// SPDX-License-Identifier: Apache-2.0
// The one walk over a segment's entries that every reader makes: dump (text
// and JSON), verify, recovery and salvage. EntryScanner finds the entries
// (log_entry.h); each is handed to the reader (in the parallel form, to its
// examine step, while consume gets the EntryRef and the result) as a
// WalkEntry, whose checks (batch_check.h) are made once, on first use; the
// reader answers with a Step: accept it, skip it, stop before it, or take it
// and stop after it.
// The walk says where it ended and why in one vocabulary (SegmentEnd).
//
// walk_entries(scanner, consume) walks on the calling thread. The parallel
// form (examine_entries, below) examines entries on several threads and
// consumes them in file order, one chunk at a time, on whichever thread is
// free (lib/ordered_pool.h). An entry that `consume` never reaches (it
// stopped) may still have been examined, so whatever examining does must be
// reachable from its result for the caller to keep or ignore, and must not
// be shared with `consume`.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "formats/batch_check.h"
#include "formats/log_entry.h"
#include "lib/block_walk.h"

namespace kseg {

// What a reader does with one entry.
enum class Step {
  accept,      // take it and go on
  skip,        // pass over it and go on (a fault the reader reports and reads past)
  stop,        // end the walk before it: the walk's data ends where it starts
  stop_after,  // take it, and end the walk after it
};

// One entry as the walk hands it over. check() decodes and checks it on
// first use, so a reader that decides on the offset and size fields alone
// pays for no checksum.
class WalkEntry {
 public:
  explicit WalkEntry(const EntryRef& e) : ref_(e) {}
  const EntryRef& ref() const { return ref_; }
  const EntryCheck& check() const {
    // Built where it is kept (GCC elides the move from the conversion; the
    // standard does not promise it): a moved-in copy of its 200 bytes showed
    // in profiles of small batches.
    struct Made {
      const EntryRef& e;
      operator EntryCheck() const { return check_entry(e); }
    };
    if (!check_) check_.emplace(Made{ref_});
    return *check_;
  }

 private:
  EntryRef ref_;
  mutable std::optional<EntryCheck> check_;
};

// Where a walk ended. Unless the reader stopped, `end` is the scanner's
// (clean, a torn or zero tail, a bad size: EntryScanner's end()); when it
// stopped, the reader knows why and `end` is none.
struct WalkEnd {
  SegmentEnd end = SegmentEnd::none;
  bool stopped = false;
  Position valid_end;  // past the last entry taken or skipped
  int64_t accepted = 0;
  int64_t skipped = 0;
};

namespace detail {
// Applies one step to `w`; false when the walk ends here.
inline bool take_step(Step s, const EntryRef& e, WalkEnd& w) {
  switch (s) {
    case Step::accept: ++w.accepted; break;
    case Step::skip: ++w.skipped; break;
    case Step::stop: w.stopped = true; return false;
    case Step::stop_after: ++w.accepted; w.stopped = true; w.valid_end = e.position + e.total(); return false;
  }
  w.valid_end = e.position + e.total();
  return true;
}
}  // namespace detail

// The serial walk: `consume(const WalkEntry&) -> Step` for each entry, from
// where `scanner` is (a walk may resume a scanner another walk stopped).
template <class Consume>
WalkEnd walk_entries(EntryScanner& scanner, Consume&& consume) {
  WalkEnd w;
  w.valid_end = scanner.valid_end();
  while (auto e = scanner.next()) {
    const WalkEntry entry(*e);
    if (!detail::take_step(consume(entry), *e, w)) return w;
  }
  w.end = scanner.end();
  return w;
}

// An entry and what examine() made of it. Its check is not kept: consume()
// has no use for it, and items of a few hundred bytes per small entry made
// the walk's stores miss the cache (a fifth of kseg-verify --deep on small
// batches).
template <class R>
struct Examined {
  EntryRef entry;
  R result{};
};

namespace detail {

// Entries and their results, overwritten walk after walk: with small
// batches, building and destroying a result per entry (hundreds of bytes
// each) cost as much as the scan.
template <class R>
struct Examining {
  std::vector<Examined<R>> items;
  size_t n = 0;
  std::span<Examined<R>> used() { return {items.data(), n}; }
  void add(const EntryRef& e) {
    if (n < items.size()) items[n].entry = e;
    else items.push_back({e});
    ++n;
  }
};

template <class R>
struct Block : BlockSpan, Examining<R> {};

constexpr int64_t kBlockBytes = 1 << 20;

// The first position in [from, to) where an entry starts whose checksum
// holds and that is followed by the end of `data` or by a plausible entry;
// -1 if there is none, or none among the first few candidates.
inline int64_t guess_start(Bytes data, Position base, size_t from, size_t to, int64_t min_offset, int64_t block) {
  constexpr int kMaxGuesses = 8;  // checksums per block, each of at most two blocks
  int tries = 0;
  for (size_t p = from; p < to; ++p) {
    if (!plausible_entry(data, p, min_offset, 2 * block)) continue;
    const size_t next = p + kLogOverhead + load_be32(data.data() + p + kOffsetFieldBytes);
    if (next != data.size() && !plausible_entry(data, next, static_cast<int64_t>(load_be64(data.data() + p)), INT32_MAX))
      continue;
    if (++tries > kMaxGuesses) return -1;
    EntryScanner one(data.subspan(p), base + Length{static_cast<int64_t>(p)});
    const auto e = one.next();
    if (!e) continue;
    const EntryCheck c = check_entry(*e);
    if ((!c.v2() || c.decoded) && c.crc_ok()) return static_cast<int64_t>(p);
  }
  return -1;
}

// The entries that start in [start, to) of `data`, each examined on thread
// `t` while its bytes are in cache.
template <class R, class Examine>
void fill_block(Block<R>& b, Bytes data, Position base, int64_t start, int64_t to, Examine& examine, unsigned t) {
  b.n = 0;
  EntryScanner sc(data.subspan(static_cast<size_t>(start)), base + Length{start});
  const Position stop = base + Length{to};
  while (sc.valid_end() < stop) {
    auto e = sc.next();
    if (!e) break;
    b.add(*e);
    b.items[b.n - 1].result = examine(WalkEntry(*e), t);
  }
  b.end = (sc.valid_end() - base).bytes;
  b.ended = sc.end() != SegmentEnd::none;
}

inline int64_t block_bytes(int64_t chunk_bytes) { return std::min(chunk_bytes, kBlockBytes); }

// Whether examine_entries walks in blocks: several threads, several blocks
// to walk, and small entries from where `scanner` is (it is not moved). On
// entries of 2 KiB and more the serial scan keeps up, and a guess would
// read further into a block.
inline bool uses_blocks(const EntryScanner& scanner, unsigned threads, int64_t chunk_bytes) {
  if (threads < 2 || static_cast<int64_t>(scanner.remaining().size()) < 4 * block_bytes(chunk_bytes)) return false;
  EntryScanner peek = scanner;
  int64_t n = 0, bytes = 0;
  while (n < 64) {
    auto e = peek.next();
    if (!e) break;
    ++n;
    bytes += e->total().bytes;
  }
  return n == 64 && bytes / n < 2048;
}

// The entries walked in blocks (lib/block_walk.h), each examined where it is
// scanned, while its bytes are in cache.
template <class R, class Examine, class Consume, class Consumed>
void examine_blocks(EntryScanner& scanner, unsigned threads, Examine& examine, Consume& consume, Consumed& consumed,
                    int64_t block) {
  const Bytes data = scanner.remaining();
  const Position base = scanner.valid_end();
  // Offsets rise through a segment: a guess below the first is not an entry.
  EntryScanner peek = scanner;
  const auto first = peek.next();
  const int64_t min_offset = first ? first->offset : 0;
  std::optional<EntryRef> last;  // the last entry consumed
  const BlockWalkEnd w = walk_blocks<Block<R>>(
      BlockWalkShape{static_cast<int64_t>(data.size()), block, threads, 2 * size_t{threads} + 2},
      [&](int64_t from, int64_t to) {
        return guess_start(data, base, static_cast<size_t>(from), static_cast<size_t>(to), min_offset, block);
      },
      [&](Block<R>& b, int64_t, int64_t start, int64_t to, unsigned t, bool) {
        fill_block(b, data, base, start, to, examine, t);
      },
      [&](Block<R>& b, int64_t, unsigned) {
        if (b.n > 0) last = b.items[b.n - 1].entry;
        if (!consume(b.used())) return false;
        consumed(base + Length{b.end});
        return true;
      });
  if (w.stopped) return scanner.resume_at(base + Length{w.end});
  // Hand the scanner back where the entries end, for its end() and the rest.
  if (last) scanner.resume_after(*last);
  else scanner.resume_at(base + Length{w.end});
  [[maybe_unused]] const auto none = scanner.next();
}

}  // namespace detail

// `examine(const WalkEntry&, unsigned thread) -> R` runs on any thread
// (thread < threads, so per-thread scratch can be indexed by it);
// `consume(std::span<Examined<R>>) -> bool` runs in file order, one call at
// a time, and returns false to stop. `consumed(Position end)` is told that
// the entries before `end` are consumed, while other threads go on, so that
// releasing their pages of a mapping, which costs as much as a fifth of a
// scan, runs beside them rather than alone. Small entries are walked in
// blocks (above); others are scanned in order, a chunk at a time, by
// whichever thread is free (over a memory-mapped file the scan takes the
// page faults), while the other threads examine the chunks scanned before.
// The scanner is left where the scan stopped: its end() says why if every
// entry was consumed.
template <class R, class Examine, class Consume, class Consumed>
void examine_entries(EntryScanner& scanner, unsigned threads, Examine&& examine, Consume&& consume,
                     Consumed&& consumed, int64_t chunk_bytes = 8 << 20) {
  if (detail::uses_blocks(scanner, threads, chunk_bytes))
    return detail::examine_blocks<R>(scanner, threads, examine, consume, consumed, detail::block_bytes(chunk_bytes));
  // A chunk for each thread, one being scanned and one being consumed. What
  // is held is about four times `chunk_bytes` (smaller chunks on many
  // threads, down to 1 MiB), never growing with the segment. A reader whose
  // results hold much per entry asks for smaller chunks.
  const size_t window = size_t{std::max(threads, 1u)} + 2;
  const int64_t chunk = std::clamp<int64_t>(4 * chunk_bytes / static_cast<int64_t>(window),
                                            std::min<int64_t>(chunk_bytes, 1 << 20), chunk_bytes);
  constexpr size_t kChunkEntries = 4096;
  OrderedRun<detail::Examining<R>> run(threads, window);
  run.run(
      std::numeric_limits<size_t>::max(),
      [&](size_t, detail::Examining<R>& c) {
        c.n = 0;
        for (int64_t bytes = 0; c.n < kChunkEntries && bytes < chunk;) {
          auto e = scanner.next();
          if (!e) break;
          bytes += e->total().bytes;
          c.add(*e);
        }
        return c.n > 0;
      },
      [&](size_t, unsigned t, detail::Examining<R>& c) {
        for (auto& x : c.used()) x.result = examine(WalkEntry(x.entry), t);
      },
      [&](size_t, unsigned, detail::Examining<R>& c) {
        if (!consume(c.used())) return false;
        const EntryRef& e = c.items[c.n - 1].entry;
        consumed(e.position + e.total());
        return true;
      });
}

// The parallel walk: `examine(const WalkEntry&, unsigned thread) -> R` on
// any thread, then `consume(const EntryRef&, R&) -> Step` in file order, one
// call at a time, on whichever thread is free; `consumed` as for
// examine_entries.
template <class R, class Examine, class Consume, class Consumed>
WalkEnd walk_entries(EntryScanner& scanner, unsigned threads, Examine&& examine, Consume&& consume,
                     Consumed&& consumed, int64_t chunk_bytes = 8 << 20) {
  WalkEnd w;
  w.valid_end = scanner.valid_end();
  examine_entries<R>(
      scanner, threads, examine,
      [&](std::span<Examined<R>> chunk) {
        for (auto& [entry, result] : chunk)
          if (!detail::take_step(consume(entry, result), entry, w)) return false;
        return true;
      },
      consumed, chunk_bytes);
  if (!w.stopped) w.end = scanner.end();
  return w;
}

}  // namespace kseg
