// SPDX-License-Identifier: Apache-2.0
#include "formats/offset_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kseg {

KeyDigest key_digest(Bytes key) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(key.data(), key.size()));
  KeyDigest out;
  std::memcpy(out.data(), c.digest, out.size());
  return out;
}

namespace {

// The table's first size, and how full it grows at: below Kafka's size it is
// kept at most 60% full (short probe runs); at Kafka's size it fills as far as
// the cleaner lets it (90% by default), as Kafka's does.
constexpr int64_t kFirstSlots = 1 << 15;
constexpr double kGrowAt = 0.6;

void put_long(uint8_t* p, int64_t v) {
  for (int i = 7; i >= 0; --i, v = static_cast<int64_t>(static_cast<uint64_t>(v) >> 8)) p[i] = static_cast<uint8_t>(v);
}

int64_t get_long(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return static_cast<int64_t>(v);
}

bool empty(const uint8_t* p) {
  uint64_t w[3];
  std::memcpy(w, p, sizeof w);
  return (w[0] | w[1] | w[2]) == 0;
}

}  // namespace

OffsetMap::OffsetMap(int64_t memory)
    : slots_(std::clamp<int64_t>(memory / kBytesPerEntry, 1, INT32_MAX)), table_(map_table(std::min(slots_, kFirstSlots))) {}

OffsetMap::~OffsetMap() { unmap_table(table_); }

void OffsetMap::clear() {
  unmap_table(table_);
  table_ = map_table(std::min(slots_, kFirstSlots));
  entries_ = 0;
  latest_ = -1;
}

OffsetMap::Table OffsetMap::map_table(int64_t slots) {
  const size_t bytes = static_cast<size_t>(slots * kBytesPerEntry);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: ignored where THP is off
  return {static_cast<uint8_t*>(p), slots, remainder_magic(static_cast<uint32_t>(slots))};
}

void OffsetMap::unmap_table(Table& t) {
  if (t.bytes) ::munmap(t.bytes, static_cast<size_t>(t.slots * kBytesPerEntry));
  t = {};
}

int64_t OffsetMap::slot_of(const KeyDigest& key, int attempt, const Table& t) {
  const int at = std::min(attempt, 12);
  const uint32_t word = uint32_t(key[at]) << 24 | uint32_t(key[at + 1]) << 16 | uint32_t(key[at + 2]) << 8 | key[at + 3];
  // Java int arithmetic: the addition wraps.
  const int32_t probe = static_cast<int32_t>(word + static_cast<uint32_t>(std::max(0, attempt - 12)));
  const uint32_t positive = probe == INT32_MIN ? 0 : static_cast<uint32_t>(probe < 0 ? -probe : probe);
  return remainder_u32(positive, static_cast<uint32_t>(t.slots), t.magic);
}

// The slot holding `key`, or the empty one it would go to (nullptr: neither
// within slots + 12 probes, where Kafka 4.4.0 gives up too).
uint8_t* OffsetMap::find(const Table& t, const KeyDigest& key, bool* found) {
  for (int64_t attempt = 0; attempt < t.slots + 12; ++attempt) {
    uint8_t* p = t.bytes + slot_of(key, static_cast<int>(std::min<int64_t>(attempt, INT32_MAX)), t) * kBytesPerEntry;
    if (empty(p)) return *found = false, p;
    if (std::memcmp(p, key.data(), key.size()) == 0) return *found = true, p;
  }
  return *found = false, nullptr;
}

// Makes the table twice as large (at most Kafka's size) and moves every
// entry into it: old and new together are then at most twice Kafka's
// size. Twice, not four times: fresh pages cost (the kernel zeroes each, a
// quarter of kseg-compact's time on 2.2 million keys at 4x), and the table
// stays between 30% and 60% full.
void OffsetMap::grow() {
  const int64_t next = std::min(slots_, table_.slots * 2);
  Table bigger = map_table(next);
  // The new slot of the entry a few ahead is loaded while this one moves.
  constexpr int64_t kAhead = 16;
  for (int64_t i = 0; i < table_.slots; ++i) {
    if (i + kAhead < table_.slots) {
      const uint8_t* ahead = table_.bytes + (i + kAhead) * kBytesPerEntry;
      if (!empty(ahead)) {
        KeyDigest k;
        std::memcpy(k.data(), ahead, k.size());
        const uint8_t* slot = bigger.bytes + slot_of(k, 0, bigger) * kBytesPerEntry;
        __builtin_prefetch(slot, 1);
        __builtin_prefetch(slot + kBytesPerEntry - 1, 1);
      }
    }
    const uint8_t* p = table_.bytes + i * kBytesPerEntry;
    if (empty(p)) continue;
    KeyDigest key;
    std::memcpy(key.data(), p, key.size());
    bool found = false;
    uint8_t* to = find(bigger, key, &found);
    assert(to != nullptr && !found);  // a table under 60% full has room, and each key is there once
    std::memcpy(to, p, kBytesPerEntry);
  }
  unmap_table(table_);
  table_ = bigger;
}

void OffsetMap::put(const KeyDigest& key, int64_t offset) {
  bool found = false;
  uint8_t* p = find(table_, key, &found);
  if (!found && table_.slots < slots_ &&
      (p == nullptr || static_cast<double>(entries_ + 1) > kGrowAt * static_cast<double>(table_.slots))) {
    grow();
    p = find(table_, key, &found);
  }
  if (p) {  // (a cleaner keeping within max_entries always finds a slot)
    if (!found) {
      std::memcpy(p, key.data(), key.size());
      ++entries_;
    }
    put_long(p + 16, offset);
  }
  latest_ = offset;
}

int64_t OffsetMap::get(const KeyDigest& key) const {
  bool found = false;
  const uint8_t* p = find(table_, key, &found);
  return found ? get_long(p + 16) : -1;
}

}  // namespace kseg
