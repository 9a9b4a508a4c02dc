// SPDX-License-Identifier: Apache-2.0
#include "lib/work_pool.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace kseg {

struct WorkPool::Impl {
  struct Batch {
    const std::function<void(size_t)>* item;
    size_t n;
    size_t next = 0;  // the next item to claim
    size_t left;      // items not yet returned
    std::exception_ptr failure;
  };

  // Claims b's next item (lock held), runs it (lock released), records it.
  // Nothing thrown from here: the batch may be another thread's.
  void run_next(Batch& b, std::unique_lock<std::mutex>& lock) noexcept {
    const size_t i = b.next++;
    --queued;
    if (b.next == b.n) queue.erase(std::find(queue.begin(), queue.end(), &b));
    lock.unlock();
    std::exception_ptr failure;
    try {
      (*b.item)(i);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    if (failure && !b.failure) b.failure = failure;
    if (--b.left == 0) done.notify_all();
  }

  void serve() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      more.wait(lock, [&] { return !queue.empty(); });
      --idle;
      run_next(*queue.front(), lock);
      ++idle;
    }
  }

  std::mutex mu;
  std::condition_variable more, done;
  std::deque<Batch*> queue;  // batches with items not yet claimed
  size_t threads = 0, idle = 0;
  size_t queued = 0;  // items in the queue not yet claimed
};

WorkPool& WorkPool::shared() {
  // Never destroyed: its idle threads wait until the process ends.
  static WorkPool* pool = [] {
    auto* p = new WorkPool();
    p->impl_ = new Impl();
    return p;
  }();
  return *pool;
}

void WorkPool::run(size_t n, const std::function<void(size_t)>& item) {
  if (n == 0) return;
  if (n == 1) return item(0);
  Impl& p = *impl_;
  Impl::Batch b{&item, n, 0, n, {}};
  std::unique_lock<std::mutex> lock(p.mu);
  // Threads for the items not yet claimed, less the idle threads and this
  // caller; where none can be started, this caller runs them in turn.
  while (p.threads < kMaxThreads && p.idle + 1 < p.queued + n) {
    try {
      std::thread([&p] { p.serve(); }).detach();
    } catch (...) {
      break;
    }
    ++p.threads;
    ++p.idle;
  }
  p.queue.push_back(&b);  // after anything here that throws: a queued batch must be waited for
  p.queued += n;
  p.more.notify_all();
  while (b.next < n) p.run_next(b, lock);
  p.done.wait(lock, [&] { return b.left == 0; });
  if (b.failure) std::rethrow_exception(b.failure);
}

}  // namespace kseg
