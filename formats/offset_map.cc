// SPDX-License-Identifier: Apache-2.0
#include "formats/offset_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kseg {

OffsetMap::OffsetMap(int64_t memory) : slots_(std::max<int64_t>(1, memory / kBytesPerEntry)) {
  mapped_ = static_cast<size_t>(slots_ * kBytesPerEntry);
  void* p = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::madvise(p, mapped_, MADV_HUGEPAGE);  // advice only: ignored where THP is off
  bytes_ = static_cast<uint8_t*>(p);
}

OffsetMap::~OffsetMap() { ::munmap(bytes_, mapped_); }

int64_t OffsetMap::slot_of(const Md5Digest& key, int attempt) const {
  const int at = std::min(attempt, 12);
  const uint32_t word = uint32_t(key[at]) << 24 | uint32_t(key[at + 1]) << 16 | uint32_t(key[at + 2]) << 8 | key[at + 3];
  // Java int arithmetic: the addition wraps.
  const int32_t probe = static_cast<int32_t>(word + static_cast<uint32_t>(std::max(0, attempt - 12)));
  const int64_t positive = probe == INT32_MIN ? 0 : std::abs(static_cast<int64_t>(probe));
  return positive % slots_;
}

bool OffsetMap::empty_at(int64_t slot) const {
  uint64_t w[3];
  std::memcpy(w, bytes_ + slot * kBytesPerEntry, sizeof w);
  return (w[0] | w[1] | w[2]) == 0;
}

static void put_long(uint8_t* p, int64_t v) {
  for (int i = 7; i >= 0; --i, v = static_cast<int64_t>(static_cast<uint64_t>(v) >> 8)) p[i] = static_cast<uint8_t>(v);
}

static int64_t get_long(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return static_cast<int64_t>(v);
}

void OffsetMap::put(const Md5Digest& key, int64_t offset) {
  // The cleaner never fills every slot (load factor < 1), so a free one is found.
  for (int attempt = 0; attempt < slots_ + 12; ++attempt) {
    const int64_t slot = slot_of(key, attempt);
    uint8_t* p = bytes_ + slot * kBytesPerEntry;
    if (empty_at(slot)) {
      std::memcpy(p, key.data(), key.size());
      put_long(p + 16, offset);
      ++entries_;
      break;
    }
    if (std::memcmp(p, key.data(), key.size()) == 0) {
      put_long(p + 16, offset);
      break;
    }
  }
  latest_ = offset;
}

int64_t OffsetMap::get(const Md5Digest& key) const {
  // Kafka 4.4.0 gives up after slots + 12 probes (the 13 hashed ones, then linear).
  for (int64_t attempt = 0; attempt < slots_ + 12; ++attempt) {
    const int64_t slot = slot_of(key, static_cast<int>(std::min<int64_t>(attempt, INT32_MAX)));
    if (empty_at(slot)) return -1;
    const uint8_t* p = bytes_ + slot * kBytesPerEntry;
    if (std::memcmp(p, key.data(), key.size()) == 0) return get_long(p + 16);
  }
  return -1;
}

}  // namespace kseg
