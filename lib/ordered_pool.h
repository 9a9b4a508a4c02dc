// SPDX-License-Identifier: Apache-2.0
// The ordered pool: items made on several threads and consumed one at a
// time in their order, within a bounded window, for every reader whose
// output must not depend on the thread count: verify's and reindex's
// partitions, the parallel walks over a segment's entries (formats/
// batch_walk.h, lib/block_walk.h), dump's printed runs. Its threads are the
// WorkPool's.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "lib/work_pool.h"

namespace kseg {

// Items i = 0, 1, ... each in a slot of the window, which it reuses: what a
// slot's last item left there is still there (vectors keep their capacity).
// For each item, in three stages:
//   claim(i, slot) -> bool   in index order, one at a time (a serial stage:
//                            cutting the next run off a scan); false: there
//                            is no item i, and the run ends after i - 1
//   make(i, t, slot)         on any thread; t < threads, for per-thread
//                            scratch
//   consume(i, t, slot) -> bool   in index order, one at a time, outside the
//                            pool's lock; false stops the run
// No item is claimed `window` or more ahead of the first not yet consumed,
// so what is held does not grow with the number of items. The first
// exception of any stage stops new items and is rethrown once every thread
// is done.
template <class T>
class OrderedRun {
 public:
  OrderedRun(size_t threads, size_t window)
      : threads_(std::max<size_t>(threads, 1)), window_(std::max<size_t>(window, 1)), slots_(window_),
        ready_(window_, 0) {}

  template <class Claim, class Make, class Consume>
  void run(size_t n, Claim&& claim, Make&& make, Consume&& consume) {
    n_ = n;
    WorkPool::shared().run(threads_, [&](size_t t) { work(static_cast<unsigned>(t), claim, make, consume); });
    if (failure_) std::rethrow_exception(failure_);
  }

  // Items consumed so far. Read from make(i): when it is i, every item
  // before i is consumed, and what consume() stored before returning is
  // seen.
  size_t consumed() const { return consumed_.load(std::memory_order_acquire); }

  // From make(i): waits until every item before i is consumed, so that
  // item i may write where consume() writes (nothing else does until it is
  // made); false if the run stopped meanwhile.
  bool wait_turn(size_t i) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stop_ || (consumed_.load(std::memory_order_relaxed) == i && !consuming_); });
    return !stop_;
  }

 private:
  template <class Claim, class Make, class Consume>
  void work(unsigned t, Claim& claim, Make& make, Consume& consume) {
    bool mine = false;  // this thread is the consuming one
    try {
      for (;;) {
        size_t i;
        {
          // The claim stage runs under claim_mu_, so items are claimed in
          // order; waiting for room under it holds back only other claims.
          std::unique_lock claiming(claim_mu_);
          {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return stop_ || next_ >= n_ || next_ < consumed_.load(std::memory_order_relaxed) + window_; });
            if (stop_ || next_ >= n_) return;
            i = next_;
          }
          const bool more = claim(i, slots_[i % window_]);
          std::lock_guard lock(mu_);
          if (!more) {
            n_ = i;
            cv_.notify_all();
            return;
          }
          next_ = i + 1;
        }
        make(i, t, slots_[i % window_]);
        std::unique_lock lock(mu_);
        ready_[i % window_] = 1;
        if (consuming_) continue;  // the consuming thread takes it in turn
        consuming_ = mine = true;
        size_t at = consumed_.load(std::memory_order_relaxed);
        while (!stop_ && at < n_ && ready_[at % window_]) {
          ready_[at % window_] = 0;
          lock.unlock();
          const bool go_on = consume(at, t, slots_[at % window_]);
          lock.lock();
          consumed_.store(++at, std::memory_order_release);
          if (!go_on) stop_ = true;
          cv_.notify_all();
        }
        consuming_ = mine = false;
        cv_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!failure_) failure_ = std::current_exception();
      stop_ = true;
      if (mine) consuming_ = false;
      cv_.notify_all();
    }
  }

  const size_t threads_, window_;
  std::vector<T> slots_;
  std::vector<char> ready_;  // slot i % window holds item i, made
  std::mutex claim_mu_, mu_;
  std::condition_variable cv_;
  size_t n_ = 0;              // items; lowered when claim() finds no more
  size_t next_ = 0;           // the next item to claim
  std::atomic<size_t> consumed_{0};
  bool consuming_ = false;
  bool stop_ = false;
  std::exception_ptr failure_;
};

// Every claim succeeds: for runs whose items are known by their index.
struct ClaimAny {
  template <class T>
  bool operator()(size_t, T&) const { return true; }
};

// n items, each made as its own object by make(i) -> std::unique_ptr<T> and
// handed to consume(i, T&) in order, then freed.
template <class T, class Make, class Consume>
void run_ordered(size_t n, size_t threads, size_t window, Make&& make, Consume&& consume) {
  OrderedRun<std::unique_ptr<T>> run(std::min(threads, std::max<size_t>(n, 1)), window);
  run.run(
      n, ClaimAny{}, [&](size_t i, unsigned, std::unique_ptr<T>& slot) { slot = make(i); },
      [&](size_t i, unsigned, std::unique_ptr<T>& slot) {
        consume(i, *slot);
        slot.reset();
        return true;
      });
}

}  // namespace kseg
