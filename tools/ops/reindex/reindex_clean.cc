// SPDX-License-Identifier: Apache-2.0
// recover_clean: a clean segment read through its mapping in 2 MiB blocks
// by several threads at once (lib/block_walk.h), each judging (CRC) the
// entries that start in the blocks it claims. A thread's guess at where its
// block's first entry starts is a plausible run of entries (offsets the
// segment can hold, sizes that fit, a magic Kafka writes) whose first entry
// passes its CRC.
//
// Reading through the mapping, not pread into a buffer per block, and not
// waiting on the chain of headers (a dependent read from memory per batch)
// made it faster than the design before it: tests/bench/README.md,
// "Measurements behind the code".
#include <algorithm>
#include <vector>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "lib/block_walk.h"
#include "lib/mapped_file.h"
#include "tools/ops/reindex/reindex.h"

namespace kseg {

namespace {

constexpr unsigned kMaxThreads = 4;  // only 2 measured for speed
constexpr size_t kMaxLead = 4;       // blocks claimed beyond the first not taken
constexpr int kMaxGuesses = 4;       // candidate starts CRC-checked per block
// Taken blocks are dropped from the mapping in steps this large: each drop
// interrupts the other threads (TLB flush), and dropping each 2 MiB block
// cost 8-10 ms per thread on a 1 GiB segment.
constexpr int64_t kDropStep = int64_t{4} << 20;

struct Judged : BlockSpan {
  std::vector<recover::CleanRecovery::Judged> entries;
};

class Scan {
 public:
  Scan(MappedFile& log, int64_t block, Offset base, const recover::Config& config)
      : log_(log), data_(log.bytes().data()), size_(log.size()), block_(block), base_(base), rec_(base, config) {}

  int64_t blocks() const { return (size_ + block_ - 1) / block_; }

  std::optional<recover::SegmentRecovery> run(unsigned threads) {
    const BlockWalkEnd w = walk_blocks<Judged>(
        BlockWalkShape{size_, block_, threads, kMaxLead}, [&](int64_t from, int64_t to) { return guess(from, to); },
        [&](Judged& b, int64_t, int64_t start, int64_t to, unsigned, bool) { fill(b, start, to); },
        [&](Judged& b, int64_t k, unsigned) { return take(b, k); });
    if (w.stopped || w.end != size_) return std::nullopt;
    if (size_ > dropped_) log_.release_range(Position{dropped_}, Position{size_});
    return rec_.finish(Length{size_});
  }

 private:
  void fill(Judged& b, int64_t start, int64_t to) const {
    b.entries.clear();
    const auto used = judge_from(start, to, b.entries);
    if (used) b.end = start + static_cast<int64_t>(*used);
    else b.again = true;  // an invalid entry: judged again in order, where it fails take()
  }

  bool take(const Judged& b, int64_t k) {
    if (b.again || !rec_.take(b.entries)) return false;
    const int64_t done = std::min((k + 1) * block_, size_);
    if (done - dropped_ >= kDropStep || done == size_) {
      log_.release_range(Position{dropped_}, Position{done});
      dropped_ = done;
    }
    return true;
  }

  // Where the first entry of [from, to) starts, guessed: the first position
  // of a plausible run of entries whose entry passes its CRC (a wrong guess
  // passes the cheap checks of plausible() now and then, the CRC too where
  // a record's value holds a whole batch: the walk finds that). Each try
  // may CRC up to two blocks: a file made to fool plausible() at every byte
  // would otherwise cost that per byte; given up, the block waits for the
  // entries before it.
  int64_t guess(int64_t from, int64_t to) const {
    std::vector<recover::CleanRecovery::Judged> first;
    for (int tries = 0; tries < kMaxGuesses; ++tries, ++from) {
      while (from < to && !plausible(from, to)) ++from;
      if (from >= to) return -1;
      first.clear();
      if (judge_from(from, from + 1, first)) return from;
    }
    return -1;
  }

  int64_t entry_size(int64_t p) const {
    return kLogOverhead + static_cast<int32_t>(load_be32(data_ + p + kOffsetFieldBytes));
  }

  std::optional<size_t> judge_from(int64_t start, int64_t stop, std::vector<recover::CleanRecovery::Judged>& out) const {
    return rec_.judge(Bytes(data_ + start, static_cast<size_t>(size_ - start)), Position{start}, out, Position{stop});
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
      p += entry_size(p);
      if (p > to + block_) return true;
    }
    return true;
  }

  MappedFile& log_;
  const uint8_t* data_;
  int64_t size_;
  int64_t block_;
  Offset base_;
  recover::CleanRecovery rec_;
  int64_t dropped_ = 0;  // mapping released before here
};

}  // namespace

std::optional<recover::SegmentRecovery> recover_clean(MappedFile& log, Offset base, const recover::Config& config,
                                                      size_t block) {
  Scan s(log, static_cast<int64_t>(std::max<size_t>(block, 1)), base, config);
  const auto threads =
      static_cast<unsigned>(std::clamp<int64_t>(std::min<int64_t>(config.threads, s.blocks()), 1, kMaxThreads));
  try {
    return s.run(threads);
  } catch (...) {  // e.g. bad_alloc: the mapped path says what it can
    return std::nullopt;
  }
}

}  // namespace kseg
