// recover_clean: a clean segment read through its mapping in 2 MiB blocks
// by several threads at once, each judging (CRC) the entries that start in
// the blocks it claims.
//
// Where the first entry of a block starts is known for certain only once
// every entry before it has been walked, a chain through the size fields.
// Rather than wait for it, a thread guesses: the first position in its
// block where a plausible run of entries starts (offsets the segment can
// hold, sizes that fit, a magic Kafka writes) and whose entry passes its
// CRC. Blocks are taken in file order, and a guess that differs from where
// the entries taken before it end (or that met an invalid entry) is judged
// again from there, in order; so a wrong guess costs time, never a
// different result.
//
// Reading through the mapping, not pread into a buffer per block, and not
// waiting on the chain of headers (a dependent read from memory per batch)
// made it faster than the design before it: tests/bench/README.md,
// "Measurements behind the code".
//
// Pages stay mapped until their block is taken; a thread waits rather than
// claim a block more than kMaxLead ahead of the last taken, so that resident
// memory stays flat when another thread stalls.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "lib/mapped_file.h"
#include "tools/ops/reindex/reindex.h"

namespace kseg {

namespace {

constexpr unsigned kMaxThreads = 4;  // only 2 measured for speed
constexpr int64_t kMaxLead = 4;      // blocks claimed beyond the last taken
constexpr int kMaxGuesses = 4;       // candidate starts CRC-checked per block
// Taken blocks are dropped from the mapping in steps this large: each drop
// interrupts the other threads (TLB flush), and dropping each 2 MiB block
// cost 8-10 ms per thread on a 1 GiB segment.
constexpr int64_t kDropStep = int64_t{4} << 20;

using Judged = std::vector<recover::CleanRecovery::Judged>;

// A block's entries as one thread judged them from its guess.
struct Guessed {
  int64_t start = -1;  // -1: no plausible start in the block
  int64_t end = -1;    // where the judged entries end; -1: one was invalid
  Judged judged;
};

class Scan {
 public:
  Scan(MappedFile& log, int64_t block, Offset base, const recover::Config& config)
      : log_(log), data_(log.bytes().data()), size_(log.size()), block_(block),
        blocks_((size_ + block - 1) / block), base_(base), rec_(base, config) {}

  int64_t blocks() const { return blocks_; }

  void run() {
    try {
      for (int64_t k = next_.fetch_add(1); k < blocks_; k = next_.fetch_add(1)) {
        int64_t known = -1;  // where block k's first entry starts, when the blocks before are taken
        {
          std::unique_lock lk(mu_);
          cv_.wait(lk, [&] { return k < taken_ + kMaxLead || failed_; });
          if (failed_) return;
          if (taken_ == k) known = end_;
        }
        if (!take(k, judge_block(k, known))) return fail();
      }
    } catch (...) {  // e.g. bad_alloc: the mapped path says what it can
      fail();
    }
  }

  void fail() {
    {
      std::lock_guard lk(mu_);
      failed_ = true;
    }
    cv_.notify_all();
  }

  std::optional<recover::SegmentRecovery> finish() {
    if (failed_ || taken_ != blocks_ || end_ != size_) return std::nullopt;
    return rec_.finish(Length{size_});
  }

 private:
  int64_t block_end(int64_t k) const { return std::min((k + 1) * block_, size_); }

  Guessed judge_block(int64_t k, int64_t known) const {
    Guessed g;
    const int64_t to = block_end(k);
    g.start = k == 0 ? 0 : known;
    if (g.start < 0) {
      for (int64_t from = k * block_, tries = 0;; from = g.start + 1) {
        // Each try may CRC up to two blocks: a file made to fool plausible()
        // at every byte would otherwise cost that per byte. Given up, the
        // block is judged in order from where the entries before it end.
        if (++tries > kMaxGuesses) return Guessed{};
        g.start = guess(from, to);
        if (g.start < 0) return g;
        // The guessed entry is judged first, CRC and all: a wrong guess
        // passes the cheap checks of plausible() now and then, the CRC
        // too where a record's value holds a whole batch (take() finds it).
        if (judge_from(g.start, g.start + 1, g.judged)) break;
      }
    }
    Judged rest;
    const int64_t rest_start = g.judged.empty() ? g.start : g.start + entry_size(g.start);
    auto used = judge_from(rest_start, to, rest);
    if (!used) return g;
    g.end = rest_start + static_cast<int64_t>(*used);
    if (g.judged.empty()) g.judged = std::move(rest);
    else g.judged.insert(g.judged.end(), rest.begin(), rest.end());
    return g;
  }

  int64_t entry_size(int64_t p) const {
    return kLogOverhead + static_cast<int32_t>(load_be32(data_ + p + kOffsetFieldBytes));
  }

  std::optional<size_t> judge_from(int64_t start, int64_t stop, Judged& out) const {
    return rec_.judge(Bytes(data_ + start, static_cast<size_t>(size_ - start)), Position{start}, out, Position{stop});
  }

  // The first position in [from, to) where a plausible run of entries starts, or -1.
  int64_t guess(int64_t from, int64_t to) const {
    for (int64_t p = from; p < to; p++)
      if (plausible(p, to)) return p;
    return -1;
  }

  // An entry at `p` whose fields Kafka could have written, no larger than
  // two blocks, followed by another such or the end of the file. The next
  // entry is not read when it starts past `to` + block: that would map a
  // page no thread is about to judge.
  bool plausible(int64_t p, int64_t to) const {
    for (int i = 0; i < 2; i++) {
      if (p == size_ && i > 0) return true;
      if (!plausible_entry(Bytes(data_, static_cast<size_t>(size_)), static_cast<size_t>(p), base_.value, 2 * block_))
        return false;
      p += kLogOverhead + static_cast<int32_t>(load_be32(data_ + p + kOffsetFieldBytes));
      if (p > to + block_) return true;
    }
    return true;
  }

  // Takes block k's entries, and those of the blocks after it that wait,
  // judging again from where the entries before end where a guess missed.
  bool take(int64_t k, Guessed g) {
    int64_t drop_from = 0, drop_to = 0;
    {
      std::lock_guard lk(mu_);
      if (failed_) return true;
      guessed_[k] = std::move(g);
      for (auto it = guessed_.begin(); it != guessed_.end() && it->first == taken_; it = guessed_.erase(it)) {
        Guessed& b = it->second;
        if (b.start != end_ || b.end < 0) {
          b.start = end_;
          b.end = end_;
          b.judged.clear();
          if (end_ < block_end(taken_)) {  // else an entry of an earlier block covers this one
            auto used = judge_from(end_, block_end(taken_), b.judged);
            if (!used) return false;
            b.end = end_ + static_cast<int64_t>(*used);
          }
        }
        if (!rec_.take(b.judged)) return false;
        end_ = b.end;
        taken_++;
      }
      const int64_t done = std::min(taken_ * block_, size_);
      if (done - dropped_ >= kDropStep || done == size_) {
        drop_from = dropped_;
        drop_to = dropped_ = done;
      }
    }
    cv_.notify_all();
    if (drop_to > drop_from) log_.release_range(Position{drop_from}, Position{drop_to});
    return true;
  }

  MappedFile& log_;
  const uint8_t* data_;
  int64_t size_;
  int64_t block_;
  int64_t blocks_;
  Offset base_;
  recover::CleanRecovery rec_;
  std::atomic<int64_t> next_{0};  // the next block to claim

  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> failed_{false};
  std::map<int64_t, Guessed> guessed_;  // judged, not yet taken
  int64_t taken_ = 0;                   // blocks taken
  int64_t end_ = 0;                     // where the entries taken end
  int64_t dropped_ = 0;                 // mapping released before here
};

}  // namespace

std::optional<recover::SegmentRecovery> recover_clean(MappedFile& log, Offset base, const recover::Config& config,
                                                      size_t block) {
  Scan s(log, static_cast<int64_t>(std::max<size_t>(block, 1)), base, config);
  const auto threads =
      static_cast<unsigned>(std::clamp<int64_t>(std::min<int64_t>(config.threads, s.blocks()), 1, kMaxThreads));
  {
    std::vector<std::jthread> helpers;  // joined on leaving the scope
    for (unsigned i = 1; i < threads; i++) {
      try {
        helpers.emplace_back([&] { s.run(); });
      } catch (const std::system_error&) {
        break;  // the threads started claim every block
      }
    }
    s.run();
  }
  return s.finish();
}

}  // namespace kseg
