// lib/ordered_pool.h: results consumed in order, one at a time, within the
// window, whatever order the threads finish in; a failure stops the run.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "lib/ordered_pool.h"

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
