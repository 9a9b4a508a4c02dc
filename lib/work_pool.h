// SPDX-License-Identifier: Apache-2.0
// The claim-and-drain pool: the process's worker threads, for every tool.
// Callers hand in batches of items; the pool's threads and the caller claim
// the items one at a time, and the caller returns once every item of its
// batch has. Threads are started as batches need them (at most kMaxThreads)
// and kept for the process: a thread started per use (per file fsynced, per
// segment walked) cost a fifth of kseg-reindex's time on a log dir of 2,050
// partitions (new stacks faulted in, TLB shootdowns as they ended).
//
// The caller claims items of its own batch too, so a busy pool delays a
// batch but cannot stall it, and batches may nest (an item may run a batch
// of its own). Not for a forked child of a process whose pool has started
// (no tool forks; the tests' children do not use the pool).
#pragma once

#include <cstddef>
#include <functional>

namespace kseg {

class WorkPool {
 public:
  // fsync and the walks wait more on storage than on the CPU: up to this
  // many at once is not too many.
  static constexpr size_t kMaxThreads = 32;

  static WorkPool& shared();

  // Runs item(i) for every i in [0, n), as many at once as there are
  // threads free (the caller's among them), and returns when every one has
  // returned. The first exception an item throws is rethrown then; the
  // others' are dropped.
  void run(size_t n, const std::function<void(size_t)>& item);

 private:
  WorkPool() = default;
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace kseg
