// fsync_together: the new files of a plan made durable at once.
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "tools/ops/write/io_error.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::safe {

namespace {

// fsync_together's threads, started as needed and kept for the run: each
// partition of a log dir fsyncs a few files together, and a thread started
// per file (12,304 for a 2,050-partition log dir) was a fifth of
// kseg-reindex's time there (new stacks faulted in, TLB shootdowns as they
// ended). Files are claimed under the lock, so a batch is out of the queue
// once all its files are claimed and nobody touches it after its last fsync;
// the caller fsyncs files of its own batch too, so a busy pool delays it but
// cannot stall it. Not for a forked child of a process whose pool has
// started (no tool forks; the tests' children fsync one file at a time).
class FsyncPool {
 public:
  // Never destroyed: its idle threads wait until the process ends.
  static FsyncPool& instance() {
    static FsyncPool* pool = new FsyncPool();
    return *pool;
  }

  std::vector<Status> run(const std::vector<int>& fds, const std::vector<std::string>& paths) {
    Batch b{&fds, &paths, std::vector<Status>(fds.size()), 0, fds.size(), false};
    std::unique_lock<std::mutex> lock(mu_);
    // Threads for the files not yet claimed, less the idle threads and this
    // caller; where none can be started, this caller fsyncs them in turn.
    while (threads_ < kMaxThreads && idle_ + 1 < queued_ + fds.size()) {
      try {
        std::thread([this] { serve(); }).detach();
      } catch (...) {
        break;
      }
      ++threads_;
      ++idle_;
    }
    queue_.push_back(&b);  // after anything here that throws: a queued batch must be waited for
    queued_ += fds.size();
    more_.notify_all();
    while (b.next < fds.size()) sync_next(b, lock);
    done_.wait(lock, [&] { return b.left == 0; });
    if (b.threw) b.results.front() = Status::fail(Errc::io, std::nullopt, "cannot fsync: out of memory");
    return std::move(b.results);
  }

 private:
  static constexpr size_t kMaxThreads = 16;
  struct Batch {
    const std::vector<int>* fds;
    const std::vector<std::string>* paths;
    std::vector<Status> results;
    size_t next, left;  // the next file to claim; files not yet fsynced
    bool threw;         // a result could not be made (no memory for its message)
  };

  // Claims b's next file (lock held), fsyncs it (lock released), records it.
  // Nothing thrown from here: the batch may be another thread's.
  void sync_next(Batch& b, std::unique_lock<std::mutex>& lock) noexcept {
    const size_t i = b.next++;
    --queued_;
    if (b.next == b.fds->size()) queue_.erase(std::find(queue_.begin(), queue_.end(), &b));
    lock.unlock();
    Status st;
    bool threw = false;
    try {
      if (::fsync((*b.fds)[i]) != 0) st = io_error("cannot fsync", (*b.paths)[i], errno);
    } catch (...) {
      threw = true;
    }
    lock.lock();
    b.results[i] = std::move(st);
    b.threw = b.threw || threw;
    if (--b.left == 0) done_.notify_all();
  }

  void serve() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      more_.wait(lock, [&] { return !queue_.empty(); });
      --idle_;
      sync_next(*queue_.front(), lock);
      ++idle_;
    }
  }

  std::mutex mu_;
  std::condition_variable more_, done_;
  std::deque<Batch*> queue_;
  size_t threads_ = 0, idle_ = 0;
  size_t queued_ = 0;  // files in the queue not yet claimed
};

}  // namespace

Status fsync_together(const std::vector<int>& fds, const std::vector<std::string>& paths) {
  if (fds.size() == 1 && ::fsync(fds.front()) != 0) return io_error("cannot fsync", paths.front(), errno);
  if (fds.size() <= 1) return {};
  for (auto& r : FsyncPool::instance().run(fds, paths)) KSEG_RETURN_IF_ERROR(r);
  return {};
}

}  // namespace kseg::safe
