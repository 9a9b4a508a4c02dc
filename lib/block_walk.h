// SPDX-License-Identifier: Apache-2.0
// The block walk: a byte range of entries chained by their size fields,
// read by several threads at once in blocks, for the readers of segments of
// small entries (verify's and dump's examine step, dump's printing, reindex's
// clean recovery). With entries of a few hundred bytes one thread walking
// the chain is the bottleneck: each header is a dependent first touch of
// memory (tests/bench/README.md, "Measurements behind the code").
//
// Where a block's first entry starts is known for certain only once every
// entry before it is walked. A thread that claims a block before that
// guesses: the reader's guess() names the first position where a plausible
// entry starts. Blocks are taken in order, and one whose start is not where
// the entries taken before it end (or that the reader could not finish out
// of order) is filled again from there, on the taking thread: a wrong guess
// costs time, never a different walk. After a run of missed guesses (bytes
// no entry starts in) the walk stops guessing and fills each block only
// once its start is known.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "lib/ordered_pool.h"

namespace kseg {

// What filling a block found; a reader's block type derives from it.
struct BlockSpan {
  int64_t start = -1;  // where its first entry starts; -1: none found
  int64_t end = -1;    // past the last entry filled
  bool ended = false;  // the entries end in this block: the walk ends after it
  bool again = false;  // not finished out of order: fill it in order
};

struct BlockWalkShape {
  int64_t size = 0;    // of the range
  int64_t block = 0;   // bytes a block
  unsigned threads = 1;
  size_t lead = 4;     // blocks claimed ahead of the first not taken: bounds
                       // the blocks held and the pages mapped when a thread stalls
};

struct BlockWalkEnd {
  int64_t end = 0;       // where the entries taken end
  bool stopped = false;  // take() stopped the walk
  bool ended = false;    // a block's entries ended
};

// Positions are relative to the range's first byte; block k covers
// [k * block, (k + 1) * block).
//   guess(from, to) -> int64_t      a plausible first entry in [from, to), or -1
//   fill(B&, k, start, to, t, in_order)   the entries that start in
//       [start, to) (start < to), setting the span's end and ended (and
//       again, when it cannot finish out of order); on thread t. in_order:
//       `start` is where the entries taken end, and no block after is
//       taken before this one is filled, so it may write where take() does.
//   take(B&, k, t) -> bool          in order, the block's entries starting
//       where the ones before end (again may be set only by an in-order
//       fill: the reader's own failure); false stops the walk.
// Blocks that an entry of an earlier block covers are not taken.
template <class B, class Guess, class Fill, class Take>
BlockWalkEnd walk_blocks(const BlockWalkShape& s, Guess&& guess, Fill&& fill, Take&& take) {
  constexpr int kMaxMisses = 8;
  const int64_t blocks = (s.size + s.block - 1) / s.block;
  auto block_end = [&](int64_t k) { return std::min(s.size, (k + 1) * s.block); };
  OrderedRun<B> run(static_cast<size_t>(std::min<int64_t>(s.threads, blocks)), s.lead);
  std::atomic<int64_t> chain{0};  // w.end, for make(); published by run.consumed()
  std::atomic<bool> guessing{true};
  int misses = 0;
  BlockWalkEnd w;
  run.run(
      static_cast<size_t>(blocks), ClaimAny{},
      [&](size_t i, unsigned t, B& b) {
        const auto k = static_cast<int64_t>(i);
        const int64_t to = block_end(k);
        // Known only while the walk goes on: a block claimed just before
        // take() stopped it must not be filled as if in order (dump would
        // write past where the file ends for Kafka).
        const bool known = k == 0 || (run.consumed() == i && run.wait_turn(i));
        b.start = k == 0                                      ? 0
                  : known                                     ? chain.load(std::memory_order_relaxed)
                  : guessing.load(std::memory_order_relaxed) ? guess(k * s.block, to)
                                                              : -1;
        b.end = -1;
        b.ended = b.again = false;
        if (b.start >= 0 && b.start < to) fill(b, k, b.start, to, t, known);
      },
      [&](size_t i, unsigned t, B& b) {
        const auto k = static_cast<int64_t>(i);
        const int64_t to = block_end(k);
        if (w.end >= to) return true;  // an entry of an earlier block covers this one
        const bool missed = b.start != w.end;
        misses = missed ? misses + 1 : 0;
        if (misses >= kMaxMisses) guessing.store(false, std::memory_order_relaxed);
        if (missed || b.again) {
          b.start = w.end;
          b.end = -1;
          b.ended = b.again = false;
          fill(b, k, b.start, to, t, true);
        }
        const bool go_on = take(b, k, t);
        w.end = b.end;
        chain.store(w.end, std::memory_order_relaxed);
        if (!go_on) w.stopped = true;
        else if (b.ended) w.ended = true;
        return go_on && !b.ended;
      });
  return w;
}

}  // namespace kseg
