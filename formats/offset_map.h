// SPDX-License-Identifier: Apache-2.0
// The log cleaner's offset map (Kafka's SkimpyOffsetMap): MD5(key) -> the
// latest offset of that key, in a fixed array of 24-byte slots (16 digest
// bytes, 8 offset bytes) sized by log.cleaner.dedupe.buffer.size, so memory
// never grows with the partition. Probing is Kafka's: attempt i (< 13) takes
// the big-endian int at digest bytes [i, i+4), later attempts go linear from
// bytes [12, 16); slot = |probe| mod slots (|INT_MIN| taken as 0). A slot of
// 24 zero bytes is empty. The cleaner stops filling it at
// floor(slots x load factor) distinct digests (see max_entries), which is
// what makes a round end early and the next round go on from there.
#pragma once

#include <cstdint>


#include "lib/byte_reader.h"
#include "lib/md5.h"

namespace kseg {

class OffsetMap {
 public:
  static constexpr int64_t kBytesPerEntry = 24;
  // `memory` bytes, as Kafka sizes it: min(dedupe buffer / threads, INT32_MAX).
  explicit OffsetMap(int64_t memory);
  int64_t slots() const { return slots_; }
  int64_t size() const { return entries_; }
  // Distinct keys the cleaner puts before it stops: (int)(slots x load factor).
  int64_t max_entries(double load_factor) const { return static_cast<int64_t>(static_cast<double>(slots_) * load_factor); }
  void put(const Md5Digest& key, int64_t offset);
  int64_t get(const Md5Digest& key) const;  // -1 when absent
  // Starts loading the slot a key probes first: a batch's keys are prefetched
  // together so their cache misses overlap.
  void prefetch(const Md5Digest& key) const { __builtin_prefetch(bytes_ + slot_of(key, 0) * kBytesPerEntry); }
  void update_latest_offset(int64_t offset) { latest_ = offset; }
  int64_t latest_offset() const { return latest_; }

 private:
  int64_t slot_of(const Md5Digest& key, int attempt) const;
  bool empty_at(int64_t slot) const;
  int64_t slots_;
  int64_t entries_ = 0;
  int64_t latest_ = -1;
  // An anonymous mapping: zero pages until touched, so only slots keys land
  // in become resident, and huge pages where the kernel has them (random
  // probes over 128 MiB miss the TLB on nearly every put with 4 KiB pages).
  uint8_t* bytes_ = nullptr;
  size_t mapped_ = 0;
 public:
  ~OffsetMap();
  OffsetMap(const OffsetMap&) = delete;
  OffsetMap& operator=(const OffsetMap&) = delete;
};

}  // namespace kseg
