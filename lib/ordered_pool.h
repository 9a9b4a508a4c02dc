// The ordered pool: items produced on several threads, consumed one at a
// time in their order, with a bounded window, for the tools whose output
// must not depend on the thread count (verify's and reindex's partitions).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kseg {

// Runs produce(i) -> std::unique_ptr<T> for every i in [0, n) on `threads`
// threads (the caller's among them) and hands each result to consume(i, T&)
// in index order, one call at a time and outside the pool's lock (the thread
// that finds the next result ready consumes it, and those after it). No item
// starts more than `window` ahead of the first not yet consumed, so the
// results held do not grow with n. The first exception of either stops new
// items and is rethrown once the threads have joined.
template <class T, class Produce, class Consume>
void run_ordered(size_t n, size_t threads, size_t window, Produce&& produce, Consume&& consume) {
  if (window == 0) window = 1;
  std::vector<std::unique_ptr<T>> slots(window);
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0, consumed = 0;
  bool consuming = false;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (;;) {
        size_t i;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return next >= n || next < consumed + window; });
          if (next >= n) return;
          i = next++;
        }
        std::unique_ptr<T> r = produce(i);
        std::unique_lock<std::mutex> lock(mu);
        slots[i % window] = std::move(r);
        if (consuming) continue;  // the consuming thread takes it in turn
        consuming = true;
        while (consumed < n && slots[consumed % window]) {
          const std::unique_ptr<T> ready = std::move(slots[consumed % window]);
          const size_t at = consumed;
          lock.unlock();
          consume(at, *ready);
          lock.lock();
          ++consumed;
          cv.notify_all();
        }
        consuming = false;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
      next = n;  // no more items start; the others' waits end
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads && t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kseg
