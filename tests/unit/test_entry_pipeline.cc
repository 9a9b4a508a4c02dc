// examine_entries: every entry examined once, results consumed in file order
// whatever the thread count, and a stop leaves the scan where it stopped.
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "formats/entry_pipeline.h"

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
        [&](const EntryRef& e, unsigned t) {
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
        [&](const EntryRef& e, unsigned) {
          examined[static_cast<size_t>(e.offset)].fetch_add(1);
          return e.offset;
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
