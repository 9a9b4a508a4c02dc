// SPDX-License-Identifier: Apache-2.0
#include "formats/offset_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

#include "lib/cpus.h"
#include "lib/work_pool.h"

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
constexpr int64_t kProjectFrom = 1 << 20;  // 24 MiB: beyond most caches
constexpr int64_t kMostGrowth = 4;
// Past this (192 MiB) a growth at most doubles: a rate of new keys that
// falls later (every key written once, then updated) projects up to 4x too
// many, and fresh pages are what large tables cost most (the kernel zeroes
// each; 20 million keys took 1.6 GB at 4x, 0.8 GB at 2x).
constexpr int64_t kLargeSlots = int64_t{1} << 23;
constexpr size_t kPopulateFrom = size_t{32} << 20;

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
  entries_ = puts_ = puts_since_grow_ = new_since_grow_ = 0;
  end_hint_ = -1;
  latest_ = -1;
}

OffsetMap::Table OffsetMap::map_table(int64_t slots) {
  const size_t bytes = static_cast<size_t>(slots * kBytesPerEntry);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: ignored where THP is off
  // A large table is filled at once (grow() moves every entry into it, its
  // keys all over it): its pages are faulted in by every core, not one by
  // one on the thread that puts. Zeroing is cheap on a machine; on a VM whose
  // host backs memory only when first touched (and takes back what is freed),
  // a fault cost 1-2 ms a MiB here (10pct-none's 500 MB of tables: up to a
  // second, on one thread, when the faults were the moves'). Where the
  // kernel or libc lacks MADV_POPULATE_WRITE (Linux 5.14) the moves fault them in.
#ifdef MADV_POPULATE_WRITE
  if (bytes >= kPopulateFrom) {
    constexpr size_t kPart = size_t{2} << 20;  // whole huge pages where the table starts on one
    const size_t parts = std::max<size_t>(1, std::min<size_t>(2 * usable_cpus(), bytes / kPart));
    const size_t each = (bytes / parts + kPart - 1) / kPart * kPart;
    auto* base = static_cast<uint8_t*>(p);
    WorkPool::shared().run(parts, [&](size_t i) {
      const size_t from = i * each;
      if (from < bytes) ::madvise(base + from, std::min(each, bytes - from), MADV_POPULATE_WRITE);
    });
  }
#endif
  return {static_cast<uint8_t*>(p), slots, remainder_magic(static_cast<uint32_t>(slots))};
}

void OffsetMap::unmap_table(Table& t) {
  if (t.bytes) ::munmap(t.bytes, static_cast<size_t>(t.slots * kBytesPerEntry));
  t = {};
}

// The slot a key probes first: Kafka's first probe (the big-endian int at
// digest bytes [0, 4), |probe| mod table size, |INT_MIN| taken as 0). Later
// probes go to the next slots, where Kafka's jump by other digest bytes: which
// slot a key sits in is seen by nothing outside the map, and on 9 million
// keys the jumps were a cache miss each, most of the map pass (issue 50); the
// next slot is mostly in the cache line already loaded.
int64_t OffsetMap::slot_of(const KeyDigest& key, const Table& t) {
  const uint32_t word = uint32_t(key[0]) << 24 | uint32_t(key[1]) << 16 | uint32_t(key[2]) << 8 | key[3];
  const int32_t probe = static_cast<int32_t>(word);
  const uint32_t positive = probe == INT32_MIN ? 0 : static_cast<uint32_t>(probe < 0 ? -probe : probe);
  return remainder_u32(positive, static_cast<uint32_t>(t.slots), t.magic);
}

// The slot holding `key`, or the empty one it would go to (nullptr: the
// table is full).
uint8_t* OffsetMap::find(const Table& t, const KeyDigest& key, bool* found) {
  int64_t slot = slot_of(key, t);
  for (int64_t attempt = 0; attempt < t.slots; ++attempt) {
    uint8_t* p = t.bytes + slot * kBytesPerEntry;
    if (empty(p)) return *found = false, p;
    if (std::memcmp(p, key.data(), key.size()) == 0) return *found = true, p;
    if (++slot == t.slots) slot = 0;
  }
  return *found = false, nullptr;
}

// How large the table grows from here (at most Kafka's size). Twice while
// small: fresh pages cost (the kernel zeroes each). Past kProjectFrom slots,
// where the offsets still to come are known, to what the rate of new keys
// since the last growth projects for them, at most kMostGrowth times (twice
// past kLargeSlots): every growth moves each key (random writes over
// hundreds of MiB), and on 9 million keys the doublings were half the map
// pass. A rate that falls (old
// keys coming back) projects too many, never too few: hence the bound.
double OffsetMap::projected_entries(int64_t offset) const {
  if (end_hint_ <= offset || puts_since_grow_ == 0 || offset < first_put_) return -1;
  const double rate = static_cast<double>(new_since_grow_) / static_cast<double>(puts_since_grow_);
  // The records still to come: the offsets left at the density of records so far (compacted logs have gaps).
  const double density = static_cast<double>(puts_) / static_cast<double>(offset - first_put_ + 1);
  return static_cast<double>(entries_) + rate * density * static_cast<double>(end_hint_ - offset);
}

int64_t OffsetMap::next_slots(int64_t offset) const {
  int64_t next = table_.slots * 2;
  if (const double projected = projected_entries(offset); table_.slots >= kProjectFrom && projected >= 0) {
    const int64_t most = table_.slots >= kLargeSlots ? 2 : kMostGrowth;
    const double want = std::min(projected / kGrowAt, static_cast<double>(most * table_.slots));
    next = std::max(next, static_cast<int64_t>(want) + 1);
  }
  return std::min(slots_, next);
}

// Moves every entry into a larger table: old and new together are at most
// twice Kafka's size.
void OffsetMap::grow(int64_t offset) {
  Table bigger = map_table(next_slots(offset));
  puts_since_grow_ = new_since_grow_ = 0;
  // The new slot of the entry a few ahead is loaded while this one moves.
  constexpr int64_t kAhead = 16;
  for (int64_t i = 0; i < table_.slots; ++i) {
    if (i + kAhead < table_.slots) {
      const uint8_t* ahead = table_.bytes + (i + kAhead) * kBytesPerEntry;
      if (!empty(ahead)) {
        KeyDigest k;
        std::memcpy(k.data(), ahead, k.size());
        const uint8_t* slot = bigger.bytes + slot_of(k, bigger) * kBytesPerEntry;
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

int64_t OffsetMap::put(const KeyDigest& key, int64_t offset) {
  bool found = false;
  uint8_t* p = find(table_, key, &found);
  if (!found && table_.slots < slots_ &&
      (p == nullptr || static_cast<double>(entries_ + 1) > kGrowAt * static_cast<double>(table_.slots))) {
    grow(offset);
    p = find(table_, key, &found);
  }
  if (puts_++ == 0) first_put_ = offset;
  ++puts_since_grow_;
  new_since_grow_ += !found;
  int64_t previous = -1;
  if (p) {  // (a cleaner keeping within max_entries always finds a slot)
    if (found) {
      previous = get_long(p + 16);
    } else {
      std::memcpy(p, key.data(), key.size());
      ++entries_;
    }
    put_long(p + 16, offset);
  }
  latest_ = offset;
  return previous;
}

int64_t OffsetMap::get(const KeyDigest& key) const {
  bool found = false;
  const uint8_t* p = find(table_, key, &found);
  return found ? get_long(p + 16) : -1;
}

}  // namespace kseg
