// A file read front to back in fixed blocks by a helper thread, for one
// pass over a large file without mapping it. Copying from the page cache on
// another core costs less than faulting in and unmapping every page of a
// mapping (tests/bench/README.md, reindex row), and the copy overlaps with
// the caller's work on the previous block.
//
// Each block has `room` writable bytes before its data, so a caller can
// put the unfinished tail of the previous block there and see one
// contiguous window. The caller holds at most two blocks: the one next()
// returned last and the one before it, until release_older(); holding more
// would leave the helper thread no slot to read into, and next() waiting.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/status.h"

namespace kseg {

class BlockReader {
 public:
  struct Block {
    uint8_t* data = nullptr;  // `size` bytes of the file from `at`; `room` bytes before are writable
    size_t size = 0;          // 0: end of file
    int64_t at = 0;
  };

  // Does not own `fd`. Without `helper`, next() reads on the calling thread.
  // Reads at most `limit` bytes (the size a mapping of the file was made at).
  BlockReader(int fd, size_t block_bytes, size_t room, bool helper = true, int64_t limit = INT64_MAX);
  ~BlockReader();
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // The next block in file order (size 0 at the end), or the read error.
  Result<Block> next();
  // Hands back the block before the one next() returned last.
  void release_older();

 private:
  static constexpr int kSlots = 4;  // two held by the caller, two being read
  struct Free {
    void operator()(uint8_t* p) const;
  };
  struct Slot {
    std::unique_ptr<uint8_t[], Free> mem;
    size_t size = 0;
    int64_t at = 0;
    int err = 0;
  };
  void run();
  void read_block(Slot& s, int64_t at);

  int fd_;
  size_t block_, room_;
  int64_t limit_;
  std::vector<Slot> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t produced_ = 0, consumed_ = 0, released_ = 0;  // block counts
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kseg
