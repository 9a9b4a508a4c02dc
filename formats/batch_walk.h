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
// form examines entries on several threads and consumes them in file order:
// EntryScanner is serial, and over a memory-mapped file it is where the
// page faults are taken (its header reads are the first touch of each
// page), so the calling thread scans the next chunk while the other threads
// examine this one, then helps them finish; `consume` sees each chunk's
// results in file order on the calling thread while the other threads
// already examine the next chunk. An entry that `consume` never reaches (it
// stopped) may still have been examined, so whatever examining does must be
// reachable from its result for the caller to keep or ignore, and must not
// be shared with `consume`.
#pragma once

#include <algorithm>
#include <array>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "formats/batch_check.h"
#include "formats/log_entry.h"

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

// Threads that live for the whole scan and examine one published chunk at a
// time; the calling thread joins in through finish(). Threads started per
// chunk (128 per GiB) sat idle while they started and while the chunk was
// consumed: the pool made kseg-verify --deep a fifth faster on small batches.
template <class R, class Examine>
class ExaminePool {
 public:
  ExaminePool(unsigned threads, Examine& examine) : examine_(examine), parties_(std::max(1u, threads)) {
    for (unsigned t = 1; t < parties_; ++t) {
      try {
        threads_.emplace_back([this, t] { serve(t); });
      } catch (const std::system_error&) {
        break;  // fewer threads: the calling thread examines what they leave
      }
    }
  }
  ExaminePool(const ExaminePool&) = delete;
  ExaminePool& operator=(const ExaminePool&) = delete;
  // Stops the threads after the share each one holds.
  ~ExaminePool() {
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    work_.notify_all();
    threads_.clear();
  }

  // The threads start on `chunk` at once; it must stay put until finish().
  void publish(std::span<Examined<R>> chunk) {
    {
      std::lock_guard lk(m_);
      chunk_ = chunk;
      next_ = 0;
    }
    work_.notify_all();
  }
  // Examines what is left of the published chunk as thread 0, then waits
  // until every entry of it is examined.
  void finish() {
    std::unique_lock lk(m_);
    drain(lk, 0);
    done_.wait(lk, [&] { return busy_ == 0; });
    chunk_ = {};
  }

 private:
  void serve(unsigned t) {
    std::unique_lock lk(m_);
    while (true) {
      work_.wait(lk, [&] { return stop_ || next_ < chunk_.size(); });
      if (stop_) return;
      drain(lk, t);
    }
  }
  void drain(std::unique_lock<std::mutex>& lk, unsigned t) {
    while (!stop_ && next_ < chunk_.size()) {
      const auto c = chunk_;
      // Shares shrink towards the chunk's end so that the threads finish
      // together; several small entries per share keep the lock rare.
      const size_t n = std::clamp<size_t>((c.size() - next_) / (2 * parties_), 1, 64);
      const size_t begin = next_;
      next_ += n;
      ++busy_;
      lk.unlock();
      for (size_t i = begin; i < begin + n; ++i) c[i].result = examine_(WalkEntry(c[i].entry), t);
      lk.lock();
      --busy_;
    }
    if (busy_ == 0) done_.notify_one();
  }

  Examine& examine_;
  const unsigned parties_;
  std::mutex m_;
  std::condition_variable work_, done_;
  std::span<Examined<R>> chunk_;
  size_t next_ = 0;   // the first entry of chunk_ not yet claimed
  unsigned busy_ = 0; // shares claimed and not yet examined
  bool stop_ = false;
  std::vector<std::jthread> threads_;  // last: they use everything above
};

}  // namespace detail

namespace detail {

// The block-parallel walk, for segments of small entries. With entries of a
// few hundred bytes the serial scanner was the bottleneck: each header is a
// first touch of memory, and one thread pulling the whole file through its
// cache while the others examined (kseg-verify --deep on 1 GiB of 1-8
// record batches: a third of all samples in EntryScanner::next, on the
// scanning thread). Here every thread claims the next block of the file,
// guesses where its first entry starts, and scans and examines the entries
// that start in the block, each while its bytes are in cache. The calling
// thread consumes the blocks in order; a block whose guess is not where the
// entries before it end (or that had none) is scanned and examined again
// from there, on the calling thread, so a wrong guess costs time, never a
// different walk.
template <class R>
struct Block {
  std::vector<Examined<R>> items;
  size_t n = 0;
  int64_t start = -1;  // relative to the walk's first byte; -1: no entry guessed
  int64_t end = -1;    // past the last entry taken
  bool ended = false;  // the entries end in this block (the scanner's end() says why)
  bool ready = false;
  std::span<Examined<R>> used() { return {items.data(), n}; }
};

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

// Scans and examines the entries that start in [start, to) on thread `t`.
template <class R, class Examine>
void fill_block(Block<R>& b, Bytes data, Position base, int64_t start, int64_t to, Examine& examine, unsigned t) {
  b.n = 0;
  b.start = start;
  EntryScanner sc(data.subspan(static_cast<size_t>(start)), base + Length{start});
  const Position stop = base + Length{to};
  while (sc.valid_end() < stop) {
    auto e = sc.next();
    if (!e) break;
    // Examined here, while its bytes are in cache.
    R r = examine(WalkEntry(*e), t);
    if (b.n == b.items.size()) {
      b.items.push_back({*e, std::move(r)});
    } else {
      b.items[b.n].entry = *e;
      b.items[b.n].result = std::move(r);
    }
    ++b.n;
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

template <class R, class Examine, class Consume, class Consumed>
void examine_blocks(EntryScanner& scanner, unsigned threads, Examine& examine, Consume& consume, Consumed& consumed,
                    int64_t block) {
  const Bytes data = scanner.remaining();
  const Position base = scanner.valid_end();
  const auto size = static_cast<int64_t>(data.size());
  // Offsets rise through a segment: a guess below the first is not an entry.
  EntryScanner peek = scanner;
  const auto first = peek.next();
  const int64_t min_offset = first ? first->offset : 0;
  const int64_t blocks = (size + block - 1) / block;
  // Blocks claimed ahead of the one consumed: bounds the results held and
  // the pages mapped when a thread stalls.
  const auto lead = static_cast<int64_t>(2 * threads + 2);
  std::vector<Block<R>> slots(static_cast<size_t>(lead));
  std::mutex m;
  std::condition_variable cv;
  int64_t claimed = 0, taken = 0;  // blocks claimed; blocks consumed
  int64_t chain = 0;               // where the entries consumed end
  std::optional<EntryRef> last;    // the last entry consumed
  bool stop = false;
  // Cleared after a run of missed guesses (offsets below the first, bytes
  // no entry starts in): a block is then walked only from where the ones
  // before end, rather than guessed at by every thread for nothing.
  bool guessing = true;
  int misses = 0;
  auto block_end = [&](int64_t k) { return std::min(size, (k + 1) * block); };
  // Claims and examines the next block; false when none is left to claim.
  // Called with `lk` held; returns with it held.
  auto work_one = [&](std::unique_lock<std::mutex>& lk, unsigned t) {
    if (stop || claimed >= blocks || claimed >= taken + lead) return false;
    const int64_t k = claimed++;
    const int64_t known = k == taken ? chain : -1;
    const bool guess = guessing;
    Block<R>& b = slots[static_cast<size_t>(k % lead)];
    lk.unlock();
    const int64_t from = k * block, to = block_end(k);
    const int64_t start = k == 0 ? 0
                          : known >= 0 ? known
                          : guess ? guess_start(data, base, static_cast<size_t>(from), static_cast<size_t>(to), min_offset, block)
                                  : -1;
    if (start < 0 || start >= to) {
      b.n = 0;
      b.start = start;
    } else {
      fill_block(b, data, base, start, to, examine, t);
    }
    lk.lock();
    b.ready = true;
    cv.notify_all();
    return true;
  };
  auto serve = [&](unsigned t) {
    std::unique_lock lk(m);
    while (true) {
      cv.wait(lk, [&] { return stop || claimed >= blocks || claimed < taken + lead; });
      if (!work_one(lk, t)) return;
    }
  };
  bool ended = false;
  {
    std::vector<std::jthread> helpers;
    // Joined before the state above goes, and stopped first if the walk ends early.
    struct Stopper {
      std::mutex& m;
      std::condition_variable& cv;
      bool& stop;
      std::vector<std::jthread>& helpers;
      ~Stopper() {
        {
          std::lock_guard g(m);
          stop = true;
        }
        cv.notify_all();
        helpers.clear();
      }
    } stopper{m, cv, stop, helpers};
    for (unsigned t = 1; t < threads; ++t) {
      try {
        helpers.emplace_back([&serve, t] { serve(t); });
      } catch (const std::system_error&) {
        break;  // fewer threads: the calling thread claims what they leave
      }
    }
    std::unique_lock lk(m);
    while (taken < blocks && !ended) {
      Block<R>& b = slots[static_cast<size_t>(taken % lead)];
      if (!b.ready) {
        if (!work_one(lk, 0)) cv.wait(lk, [&] { return b.ready; });
        continue;
      }
      const int64_t k = taken;
      int64_t end = chain;  // only this thread writes `chain`; the others read it under `m`
      bool missed = false;
      lk.unlock();
      bool go_on = true;
      if (chain < block_end(k)) {  // else an entry of an earlier block covers this one
        if (b.start != chain) {  // the guess missed
          missed = true;
          fill_block(b, data, base, chain, block_end(k), examine, 0);
        }
        if (b.n > 0) last = b.items[b.n - 1].entry;
        go_on = consume(b.used());
        end = b.end;
        ended = b.ended;
        if (go_on) consumed(base + Length{end});
      }
      lk.lock();
      constexpr int kMaxMisses = 8;
      misses = missed ? misses + 1 : 0;
      if (misses >= kMaxMisses) guessing = false;
      chain = end;
      b.ready = false;
      ++taken;
      cv.notify_all();
      if (!go_on) {
        stop = true;
        lk.unlock();
        scanner.resume_at(base + Length{chain});
        return;
      }
    }
  }
  // Hand the scanner back where the entries end, for its end() and the rest.
  if (last) scanner.resume_after(*last);
  else scanner.resume_at(base + Length{chain});
  [[maybe_unused]] const auto none = scanner.next();
}

}  // namespace detail

// `examine(const WalkEntry&, unsigned thread) -> R` runs on any thread
// (thread < threads, so per-thread scratch can be indexed by it);
// `consume(std::span<Examined<R>>) -> bool` runs in order on the calling
// thread and returns false to stop. `consumed(Position end)` is told that
// the entries before `end` are consumed, while the next chunk is examined
// (or after the last), so that releasing their pages of a mapping, which
// costs as much as a fifth of a scan, runs beside the other threads rather
// than alone. The scanner is left where the scan stopped: its end() says
// why if every entry was consumed.
template <class R, class Examine, class Consume, class Consumed>
void examine_entries(EntryScanner& scanner, unsigned threads, Examine&& examine, Consume&& consume,
                     Consumed&& consumed, int64_t chunk_bytes = 8 << 20) {
  // Chunks bound memory. Three are mapped at once: the one examined, the one
  // scanned (or consumed) beside it, and the one consumed last until
  // `consumed` releases it. A reader whose results hold much per entry asks
  // for smaller chunks.
  if (detail::uses_blocks(scanner, threads, chunk_bytes))
    return detail::examine_blocks<R>(scanner, threads, examine, consume, consumed, detail::block_bytes(chunk_bytes));
  constexpr size_t kChunkEntries = 4096;
  const int64_t kChunkBytes = chunk_bytes;
  // A chunk's elements live as long as the walk and are overwritten: with
  // small batches, building and destroying a result per entry on the
  // scanning thread (hundreds of bytes each) cost as much as the scan.
  struct Chunk {
    std::vector<Examined<R>> items;
    size_t n = 0;
    std::span<Examined<R>> used() { return {items.data(), n}; }
  };
  auto fill = [&](Chunk& chunk) {
    chunk.n = 0;
    int64_t bytes = 0;
    while (chunk.n < kChunkEntries && bytes < kChunkBytes) {
      auto e = scanner.next();
      if (!e) break;
      bytes += e->total().bytes;
      if (chunk.n < chunk.items.size())
        chunk.items[chunk.n].entry = *e;
      else
        chunk.items.push_back({*e});
      ++chunk.n;
    }
  };
  // Indexed, not swapped: the pool holds the published chunk's address.
  std::array<Chunk, 2> chunks;
  unsigned cur = 0;
  std::optional<Position> done;  // the end of the chunk consumed last
  detail::ExaminePool<R, std::remove_reference_t<Examine>> pool(threads, examine);
  fill(chunks[cur]);
  if (chunks[cur].n > 0) pool.publish(chunks[cur].used());
  while (chunks[cur].n > 0) {
    auto chunk = chunks[cur].used();
    auto& ahead = chunks[cur ^ 1];
    fill(ahead);
    if (done) consumed(*std::exchange(done, std::nullopt));
    pool.finish();
    if (ahead.n > 0) pool.publish(ahead.used());
    if (!consume(chunk)) return;
    done = chunk.back().entry.position + chunk.back().entry.total();
    cur ^= 1;
  }
  if (done) consumed(*done);
}

// The parallel walk: `examine(const WalkEntry&, unsigned thread) -> R` on
// any thread, then `consume(const EntryRef&, R&) -> Step` in file order on
// the calling thread; `consumed` as for examine_entries.
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
