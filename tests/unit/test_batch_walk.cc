// SPDX-License-Identifier: Apache-2.0
// walk_entries: every entry examined once, results consumed in file order
// whatever the thread count; each Step does what it says, serial or
// parallel, and a stop leaves the scan where it stopped.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/unit/support/dirs.h"
#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "tests/unit/corrupt.h"

namespace {

using namespace kseg;

void put_be(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * (bytes - 1 - i)));
}

// Entries of sizes 26..4025 bytes: the scanner only reads the offset, size
// and magic fields, so the rest is filler. 20,000 of them (40 MB) make
// five chunks or more.
std::vector<uint8_t> entries(size_t n) {
  std::vector<uint8_t> out;
  std::mt19937 rng(7);
  for (size_t i = 0; i < n; ++i) {
    const int32_t size = 14 + static_cast<int32_t>(rng() % 4000);
    const size_t at = out.size();
    out.resize(at + 12 + static_cast<size_t>(size), 0xab);
    put_be(&out[at], i, 8);
    put_be(&out[at + 8], static_cast<uint64_t>(size), 4);
    out[at + 16] = 2;
  }
  return out;
}

struct Seen {
  int64_t offset = -1;
  unsigned thread = 0;
};

}  // namespace

TEST_CASE("examine_entries consumes every entry once, in order, on any thread count", "[pipeline]") {
  const auto file = entries(20000);
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    INFO(threads << " threads");
    std::vector<std::atomic<int>> examined(20000);
    EntryScanner sc(Bytes(file), Position{0});
    int64_t next = 0;
    std::vector<int64_t> released;
    size_t chunks = 0;
    examine_entries<Seen>(
        sc, threads,
        [&](const WalkEntry& w, unsigned t) {
          const EntryRef& e = w.ref();
          examined[static_cast<size_t>(e.offset)].fetch_add(1);
          if (e.offset % 97 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // uneven shares
          return Seen{e.offset, t};
        },
        [&](std::span<Examined<Seen>> chunk) {
          ++chunks;
          for (auto& [e, s] : chunk) {
            REQUIRE(e.offset == next);
            REQUIRE(s.offset == e.offset);
            REQUIRE(s.thread < threads);
            ++next;
          }
          return true;
        },
        [&](Position end) { released.push_back(end.value); });
    CHECK(next == 20000);
    CHECK(chunks >= 5);
    CHECK(sc.end() == SegmentEnd::clean);
    for (auto& n : examined) REQUIRE(n.load() == 1);
    REQUIRE(released.size() == chunks);
    CHECK(std::is_sorted(released.begin(), released.end()));
    CHECK(released.back() == static_cast<int64_t>(file.size()));
  }
}

TEST_CASE("examine_entries stops where consume says, never examining twice", "[pipeline]") {
  const auto file = entries(20000);
  for (unsigned threads : {1u, 2u, 4u}) {
    INFO(threads << " threads");
    std::vector<std::atomic<int>> examined(20000);
    EntryScanner sc(Bytes(file), Position{0});
    int64_t consumed_to = 0, released_to = 0;
    size_t chunks = 0;
    examine_entries<int64_t>(
        sc, threads,
        [&](const WalkEntry& w, unsigned) {
          examined[static_cast<size_t>(w.ref().offset)].fetch_add(1);
          return w.ref().offset;
        },
        [&](std::span<Examined<int64_t>> chunk) {
          for (auto& [e, r] : chunk) {
            REQUIRE(r == e.offset);
            consumed_to = e.offset + 1;
          }
          return ++chunks < 2;
        },
        [&](Position end) { released_to = end.value; });
    CHECK(chunks == 2);
    CHECK(sc.end() == SegmentEnd::none);  // the scan did not reach the end
    // Only the chunks consumed and the one examined beside the second are touched.
    size_t touched = 0;
    for (auto& n : examined) {
      REQUIRE(n.load() <= 1);
      touched += static_cast<size_t>(n.load());
    }
    CHECK(touched >= static_cast<size_t>(consumed_to));
    CHECK(touched < 20000);
    CHECK(released_to > 0);
    CHECK(released_to < static_cast<int64_t>(file.size()));
  }
}

// Entries 0..n-1 of entries(); `step(offset)` is what the reader answers.
template <class StepOf>
WalkEnd walk_serial(const std::vector<uint8_t>& file, StepOf step, std::vector<int64_t>& seen) {
  EntryScanner sc(Bytes(file), Position{0});
  return walk_entries(sc, [&](const WalkEntry& w) {
    seen.push_back(w.ref().offset);
    return step(w.ref().offset);
  });
}

template <class StepOf>
WalkEnd walk_parallel(const std::vector<uint8_t>& file, unsigned threads, StepOf step, std::vector<int64_t>& seen) {
  EntryScanner sc(Bytes(file), Position{0});
  return walk_entries<int64_t>(
      sc, threads, [](const WalkEntry& w, unsigned) { return w.ref().offset; },
      [&](const EntryRef& e, int64_t& r) {
        REQUIRE(r == e.offset);
        seen.push_back(r);
        return step(r);
      },
      [](Position) {});
}

// The byte position where entry `i` of `file` starts (entries.size() for the end).
Position start_of(const std::vector<uint8_t>& file, int64_t i) {
  EntryScanner sc(Bytes(file), Position{0});
  for (int64_t k = 0; k < i; ++k) REQUIRE(sc.next());
  return sc.valid_end();
}

TEST_CASE("walk_entries: accept, skip, stop and stop_after, serial and parallel alike", "[walk]") {
  const auto file = entries(9000);
  const Position end{static_cast<int64_t>(file.size())};
  for (unsigned threads : {0u, 1u, 3u}) {  // 0: the serial walk
    INFO((threads == 0 ? "serial" : "parallel") << " " << threads);
    auto walk = [&](auto step, std::vector<int64_t>& seen) {
      return threads == 0 ? walk_serial(file, step, seen) : walk_parallel(file, threads, step, seen);
    };
    {
      std::vector<int64_t> seen;
      const WalkEnd w = walk([](int64_t o) { return o % 3 == 0 ? Step::skip : Step::accept; }, seen);
      CHECK(!w.stopped);
      CHECK(w.end == SegmentEnd::clean);
      CHECK(w.valid_end == end);
      CHECK(w.accepted == 6000);
      CHECK(w.skipped == 3000);
      CHECK(seen.size() == 9000);
    }
    {
      std::vector<int64_t> seen;
      const WalkEnd w = walk([](int64_t o) { return o == 5000 ? Step::stop : Step::accept; }, seen);
      CHECK(w.stopped);
      CHECK(w.end == SegmentEnd::none);
      CHECK(w.accepted == 5000);
      CHECK(w.valid_end == start_of(file, 5000));  // where the stopping entry starts
      CHECK(seen.back() == 5000);
    }
    {
      std::vector<int64_t> seen;
      const WalkEnd w = walk([](int64_t o) { return o == 5000 ? Step::stop_after : Step::accept; }, seen);
      CHECK(w.stopped);
      CHECK(w.accepted == 5001);
      CHECK(w.valid_end == start_of(file, 5001));  // past the entry taken last
    }
  }
}

TEST_CASE("walk_entries ends with the scanner's end, and a walk resumes a stopped scanner", "[walk]") {
  auto file = entries(10);
  const Position whole{static_cast<int64_t>(file.size())};
  file.resize(file.size() + 30, 0);  // a zero tail
  EntryScanner sc(Bytes(file), Position{0});
  const WalkEnd first = walk_entries(sc, [](const WalkEntry& w) { return w.ref().offset == 4 ? Step::stop_after : Step::accept; });
  CHECK(first.accepted == 5);
  const WalkEnd rest = walk_entries(sc, [](const WalkEntry&) { return Step::accept; });
  CHECK(rest.accepted == 5);
  CHECK(!rest.stopped);
  CHECK(rest.end == SegmentEnd::zero_tail);
  CHECK(rest.valid_end == whole);
}

TEST_CASE("WalkEntry checks its entry once, on first use", "[walk]") {
  const auto file = entries(1);
  EntryScanner sc(Bytes(file), Position{0});
  const WalkEntry w(*sc.next());
  const EntryCheck* first = &w.check();
  CHECK(first == &w.check());
  CHECK(w.check().v2());
  CHECK(!w.check().crc_ok());  // filler bytes: the CRC cannot match
}

namespace {

// Kafka-written segments repeated with their offsets moved on each time, to
// at least `min_bytes`: small batches whose CRCs hold, as the block walk
// guesses them.
std::vector<uint8_t> repeated(const std::vector<std::string>& cases, size_t min_bytes) {
  std::vector<std::vector<uint8_t>> logs;
  for (const auto& c : cases) logs.push_back(test::read_bytes(std::filesystem::path(KSEG_SOURCE_DIR) / "testdata/kafka" / c));
  std::vector<uint8_t> out;
  int64_t next = 0;  // the offset the next copy starts at
  while (out.size() < min_bytes) {
    for (const auto& log : logs) {
      EntryScanner sc(Bytes(log), Position{0});
      int64_t first = -1, last = -1;
      while (auto e = sc.next()) {
        if (first < 0) first = e->offset;
        const size_t at = out.size();
        out.insert(out.end(), e->bytes.begin(), e->bytes.end());
        put_be(&out[at], static_cast<uint64_t>(next + (e->offset - first)), 8);
        last = std::max(last, v2::last_offset_of(*e) - first);
      }
      next += last + 1;
    }
  }
  return out;
}

struct Walked {
  std::vector<std::tuple<int64_t, int64_t, bool>> entries;  // position, offset, CRC holds
  SegmentEnd end = SegmentEnd::none;
  int64_t valid_end = 0, trailing = 0, stop_offset = 0;
  int32_t stop_size = 0;
  std::vector<int64_t> released;
  bool operator==(const Walked& o) const {
    // The stop fields too: at a short tail kseg-verify prints the last entry's.
    return entries == o.entries && end == o.end && valid_end == o.valid_end && trailing == o.trailing &&
           stop_offset == o.stop_offset && stop_size == o.stop_size;
  }
};

Walked walk_with(const std::vector<uint8_t>& file, unsigned threads, size_t stop_after) {
  Walked w;
  EntryScanner sc(Bytes(file), Position{0});
  examine_entries<std::tuple<int64_t, int64_t, bool>>(
      sc, threads,
      [&](const WalkEntry& e, unsigned) {
        return std::tuple{e.ref().position.value, e.ref().offset, e.check().crc_ok()};
      },
      [&](std::span<Examined<std::tuple<int64_t, int64_t, bool>>> chunk) {
        for (auto& [e, r] : chunk) {
          REQUIRE(std::get<0>(r) == e.position.value);
          w.entries.push_back(r);
          if (w.entries.size() == stop_after) return false;
        }
        return true;
      },
      [&](Position end) { w.released.push_back(end.value); });
  w.end = sc.end();
  if (w.entries.size() < stop_after) {  // the scanner is only meaningful when the walk was not stopped
    w.valid_end = sc.valid_end().value;
    w.trailing = sc.trailing().bytes;
    w.stop_offset = sc.stop_offset();
    w.stop_size = sc.stop_size();
  }
  return w;
}

}  // namespace

TEST_CASE("examine_entries in blocks walks what the serial scan walks, whatever the bytes", "[pipeline]") {
  // Small v2 batches, batches whose values hold whole batches (guesses land
  // on them), and v0/v1/v2 entries mixed, as Kafka wrote them.
  const auto base = repeated({"v2-none/orders-0/00000000000000000000.log", "nested-batches/nested-0/00000000000000000000.log",
                              "mixed-magic/upgrade-0/00000000000000000000.log"},
                             12u << 20);
  // Entry starts, to damage the file at entries.
  std::vector<size_t> starts;
  {
    EntryScanner sc(Bytes(base), Position{0});
    while (auto e = sc.next()) starts.push_back(static_cast<size_t>(e->position.value));
  }
  auto at = [&](double share) { return starts[static_cast<size_t>(share * static_cast<double>(starts.size()))]; };
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  files.emplace_back("intact", base);
  {
    auto f = base;
    std::fill(f.begin() + static_cast<std::ptrdiff_t>(at(0.6) + 100), f.end(), 0);
    files.emplace_back("zero-filled from within an entry to the end", f);
  }
  {
    auto f = base;
    for (double s : {0.1, 0.33, 0.34, 0.9}) f[at(s) + 70] ^= 0x10;
    files.emplace_back("records flipped (CRC mismatches)", f);
  }
  {
    auto f = base;
    corrupt::set_be32(f, at(0.5) + 8, 0x7ffffff0);
    files.emplace_back("a size field past the end, mid-file", f);
  }
  {
    // A 3 MiB entry of copied batches: blocks it covers, and guesses inside it whose CRCs hold.
    auto f = std::vector<uint8_t>(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(at(0.25)));
    const size_t big = f.size();
    f.resize(big + 12 + 49);
    put_be(&f[big], 1, 8);
    f[big + 16] = 2;
    f.insert(f.end(), base.begin(), base.begin() + (3 << 20));
    put_be(&f[big + 8], f.size() - big - 12, 4);
    f.insert(f.end(), base.begin() + static_cast<std::ptrdiff_t>(at(0.25)), base.end());
    files.emplace_back("a 3 MiB entry holding batches", f);
  }
  {
    auto f = base;
    f.insert(f.end(), {1, 2, 3, 4, 5});
    files.emplace_back("a short tail", f);
  }
  {
    // Every guess is below the first offset: the threads give up guessing.
    auto f = base;
    corrupt::set_be64(f, 0, int64_t{1} << 40);
    files.emplace_back("a first offset above all the others", f);
  }
  for (const auto& [name, f] : files) {
    INFO(name);
    const Walked serial = walk_with(f, 1, SIZE_MAX);
    REQUIRE(serial.entries.size() > 1000);
    for (unsigned threads : {2u, 3u, 4u}) {
      INFO(threads << " threads");
      EntryScanner sc(Bytes(f), Position{0});
      REQUIRE(detail::uses_blocks(sc, threads, 8 << 20));
      const Walked blocks = walk_with(f, threads, SIZE_MAX);
      INFO("entries " << blocks.entries.size() << " vs " << serial.entries.size() << ", end " << int(blocks.end) << " vs "
                      << int(serial.end) << ", valid_end " << blocks.valid_end << " vs " << serial.valid_end << ", trailing "
                      << blocks.trailing << " vs " << serial.trailing);
      CHECK(blocks == serial);
      CHECK(std::is_sorted(blocks.released.begin(), blocks.released.end()));
      CHECK(blocks.released.back() == serial.valid_end);
      // Stopped by consume halfway: the same entries up to there.
      const size_t half = serial.entries.size() / 2;
      const Walked stopped = walk_with(f, threads, half);
      REQUIRE(stopped.entries.size() == half);
      CHECK(std::equal(stopped.entries.begin(), stopped.entries.end(), serial.entries.begin()));
    }
  }
}
