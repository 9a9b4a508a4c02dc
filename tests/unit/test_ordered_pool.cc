// SPDX-License-Identifier: Apache-2.0
// lib/ordered_pool.h, lib/work_pool.h, lib/block_walk.h: results consumed
// in order, one at a time, within the window, whatever order the threads
// finish in; a failure stops the run; the block walk equals the serial one.
#include <atomic>
#include <chrono>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "lib/block_walk.h"
#include "lib/ordered_pool.h"
#include "lib/work_pool.h"

using namespace kseg;

TEST_CASE("run_ordered consumes in order within the window", "[ordered_pool]") {
  for (size_t threads : {1, 2, 5}) {
    constexpr size_t kN = 300, kWindow = 4;
    std::atomic<size_t> started{0}, consumed{0}, max_ahead{0};
    std::atomic<int> inside{0};
    std::vector<size_t> order;
    run_ordered<size_t>(
        kN, threads, kWindow,
        [&](size_t i) {
          const size_t ahead = i - consumed.load();
          size_t m = max_ahead.load();
          while (ahead > m && !max_ahead.compare_exchange_weak(m, ahead)) {
          }
          ++started;
          // Early items finish last, so later ones wait in the window.
          if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
          return std::make_unique<size_t>(i * 3);
        },
        [&](size_t i, size_t& v) {
          CHECK(++inside == 1);  // one consumer at a time
          CHECK(v == i * 3);
          order.push_back(i);
          ++consumed;
          --inside;
        });
    REQUIRE(order.size() == kN);
    for (size_t i = 0; i < kN; ++i) CHECK(order[i] == i);
    CHECK(started == kN);
    CHECK(max_ahead.load() < kWindow);
  }
}

TEST_CASE("run_ordered rethrows the first failure and starts nothing more", "[ordered_pool]") {
  std::atomic<size_t> started{0};
  CHECK_THROWS_AS(run_ordered<int>(
                      1000, 3, 8,
                      [&](size_t i) {
                        ++started;
                        if (i == 5) throw std::runtime_error("item 5");
                        return std::make_unique<int>(0);
                      },
                      [](size_t, int&) {}),
                  std::runtime_error);
  CHECK(started < 1000);
}

TEST_CASE("OrderedRun claims in order, stops where consume says, and reuses its slots", "[ordered_pool]") {
  for (size_t threads : {1, 2, 4}) {
    std::vector<size_t> claimed, consumed;
    std::atomic<size_t> made{0}, bad{0};  // Catch2 asserts on one thread at a time only
    OrderedRun<std::vector<size_t>> run(threads, 3);
    run.run(
        std::numeric_limits<size_t>::max(),
        [&](size_t i, std::vector<size_t>& slot) {
          claimed.push_back(i);  // one claim at a time: no lock needed
          slot.push_back(i);     // what the slot's earlier items left is still there
          return i < 100;
        },
        [&](size_t i, unsigned t, std::vector<size_t>& slot) {
          if (t >= threads || slot.back() != i) ++bad;
          ++made;
        },
        [&](size_t i, unsigned, std::vector<size_t>& slot) {
          CHECK(slot.size() == i / 3 + 1);  // slot i % 3 held items i % 3, i % 3 + 3, ...
          consumed.push_back(i);
          return i != 60;
        });
    REQUIRE(consumed.size() == 61);
    for (size_t i = 0; i < consumed.size(); ++i) CHECK(consumed[i] == i);
    for (size_t i = 0; i < claimed.size(); ++i) CHECK(claimed[i] == i);
    CHECK(claimed.size() < 61 + 3);  // the window bounds what was claimed past the stop
    CHECK(made.load() >= 61);
    CHECK(bad.load() == 0);
  }
}

TEST_CASE("OrderedRun::wait_turn lets an item write where consume writes, in order", "[ordered_pool]") {
  for (size_t threads : {1, 2, 5}) {
    std::string out;  // written by consume, and by items in their turn
    std::atomic<int> refused{0};
    OrderedRun<std::string> run(threads, 4);
    run.run(
        200, ClaimAny{},
        [&](size_t i, unsigned, std::string& slot) {
          slot = std::to_string(i);
          slot += ',';
          if (i % 5 == 0) {  // a large item writes its first part out itself
            if (i % 2 == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
            if (run.wait_turn(i)) out.append("<").append(std::to_string(i)).append(">");
            else ++refused;
          }
        },
        [&](size_t, unsigned, std::string& slot) {
          out += slot;
          return true;
        });
    std::string want;
    for (size_t i = 0; i < 200; ++i) {
      if (i % 5 == 0) want.append("<").append(std::to_string(i)).append(">");
      want.append(std::to_string(i)).append(",");
    }
    CHECK(out == want);
    CHECK(refused.load() == 0);
  }
}

TEST_CASE("WorkPool runs every item once, nested batches too, and rethrows a failure", "[ordered_pool]") {
  std::vector<std::atomic<int>> runs(64);
  WorkPool::shared().run(8, [&](size_t i) {
    WorkPool::shared().run(8, [&](size_t j) { ++runs[i * 8 + j]; });
  });
  for (auto& r : runs) CHECK(r.load() == 1);
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(WorkPool::shared().run(16,
                                         [&](size_t i) {
                                           ++ran;
                                           if (i == 3) throw std::runtime_error("item 3");
                                         }),
                  std::runtime_error);
  CHECK(ran.load() == 16);  // the others still run: the batch is drained before it returns
}

// A chain of records (a length byte, then that many bytes less one) walked
// in blocks with guesses that are often wrong: the records taken are the
// serial walk's, whatever the threads, the block size and the guesses.
TEST_CASE("walk_blocks takes what the serial walk takes, however wrong the guesses", "[ordered_pool]") {
  std::mt19937 rng(46);
  for (int round = 0; round < 40; ++round) {
    std::vector<uint8_t> data(1 + rng() % 5000);
    for (size_t p = 0; p < data.size();) {
      data[p] = static_cast<uint8_t>(1 + rng() % 40);
      for (size_t q = p + 1; q < p + data[p] && q < data.size(); ++q) data[q] = static_cast<uint8_t>(rng());
      p += data[p];
    }
    const auto size = static_cast<int64_t>(data.size());
    std::vector<int64_t> serial;
    for (int64_t p = 0; p < size && p + data[static_cast<size_t>(p)] <= size; p += data[static_cast<size_t>(p)])
      serial.push_back(p);
    struct Found : BlockSpan {
      std::vector<int64_t> starts;
    };
    const unsigned threads = 1 + static_cast<unsigned>(round % 3);
    const int64_t block = 1 + static_cast<int64_t>(rng() % 300);
    std::vector<int64_t> taken;
    std::atomic<int> bad{0};
    const BlockWalkEnd w = walk_blocks<Found>(
        BlockWalkShape{size, block, threads, 3},
        [&](int64_t from, int64_t to) {
          thread_local std::mt19937 g(7);
          const int64_t at = from + static_cast<int64_t>(g() % static_cast<uint64_t>(to - from + 1));
          return at == to ? int64_t{-1} : at;  // -1: no guess
        },
        [&](Found& b, int64_t, int64_t start, int64_t to, unsigned t, bool) {
          if (t >= threads) ++bad;
          b.starts.clear();
          int64_t p = start;
          for (; p < to; p += data[static_cast<size_t>(p)]) {
            // A guess inside a record may read a length of 0: no record
            // starts there (a scanner ends at such a size field too).
            if (data[static_cast<size_t>(p)] == 0 || p + data[static_cast<size_t>(p)] > size) {
              b.ended = true;
              break;
            }
            b.starts.push_back(p);
          }
          b.end = p;
          if (p == size) b.ended = true;
        },
        [&](Found& b, int64_t, unsigned) {
          taken.insert(taken.end(), b.starts.begin(), b.starts.end());
          return true;
        });
    INFO("round " << round << ": " << size << " bytes, blocks of " << block << ", " << threads << " threads");
    CHECK(taken == serial);
    CHECK(bad.load() == 0);
    CHECK(w.ended);
    CHECK_FALSE(w.stopped);
  }
}
