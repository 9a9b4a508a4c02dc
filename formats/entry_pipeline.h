// Entries of a .log examined on several threads, consumed in file order.
//
// EntryScanner is serial, and over a memory-mapped file it is where the page
// faults are taken (its header reads are the first touch of each page). So
// the calling thread scans the next chunk while the other threads examine
// this one, then helps them finish; `consume` sees each chunk's results in
// file order on the calling thread. An entry that `consume` never reaches
// (it stopped) may still have been examined, so whatever examining does
// must be reachable from its result (kseg-verify's per-thread findings are
// ranges named in it) for the caller to keep or ignore.
#pragma once

#include <atomic>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "formats/log_entry.h"

namespace kseg {

template <class R>
struct Examined {
  EntryRef entry;
  R result{};
};

// `examine(const EntryRef&, unsigned thread) -> R` runs on any thread
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
                     Consumed&& consumed) {
  // Chunks bound memory and keep a thread's share large against the cost of
  // starting it. Three are mapped at once: the one examined, the one scanned
  // ahead, and the one consumed last until `consumed` releases it.
  constexpr size_t kChunkEntries = 4096;
  constexpr int64_t kChunkBytes = 8 << 20;
  auto fill = [&](std::vector<Examined<R>>& chunk) {
    chunk.clear();
    int64_t bytes = 0;
    while (chunk.size() < kChunkEntries && bytes < kChunkBytes) {
      auto e = scanner.next();
      if (!e) break;
      bytes += e->total().bytes;
      chunk.push_back({*e});
    }
  };
  std::vector<Examined<R>> chunk, ahead;
  std::optional<Position> done;  // the end of the chunk consumed last
  for (fill(chunk); !chunk.empty(); std::swap(chunk, ahead)) {
    std::atomic<size_t> next{0};
    auto work = [&](unsigned t) {
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < chunk.size();)
        chunk[i].result = examine(chunk[i].entry, t);
    };
    {
      std::vector<std::jthread> pool;
      if (chunk.size() > 1)
        for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
      fill(ahead);
      if (done) consumed(*std::exchange(done, std::nullopt));
      work(0);
    }
    if (!consume(std::span<Examined<R>>(chunk))) return;
    done = chunk.back().entry.position + chunk.back().entry.total();
  }
  if (done) consumed(*done);
}

}  // namespace kseg
