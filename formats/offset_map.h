// SPDX-License-Identifier: Apache-2.0
// The log cleaner's offset map (Kafka's SkimpyOffsetMap): a 16-byte digest of
// the key -> the latest offset of that key, in an array of 24-byte slots (16
// digest bytes, 8 offset bytes). Its size in Kafka is log.cleaner.dedupe.buffer
// .size (slots() = memory / 24), and the cleaner stops filling it at
// floor(slots x load factor) distinct digests (see max_entries): what makes a
// round end early and the next round go on from there. Kafka's probe i (< 13)
// takes the big-endian int at digest bytes [i, i+4); kseg's first probe is
// Kafka's (|int| mod table size, |INT_MIN| taken as 0), later ones the next
// slots (formats/log-cleaning.md). A slot of 24 zero bytes is empty.
//
// The table starts small and grows (rehashed) up to Kafka's size:
// which slot a key sits in is seen by nothing outside the map, and
// lookups find every key it holds, so the map holds the same keys with the same
// offsets and fills at the same count, while a dirty section of a few hundred
// thousand keys (a __consumer_offsets) is probed in a few MiB that stay in
// cache, not across 128 MiB of pages the kernel zeroes as they are touched.
#pragma once

#include <array>
#include <cstdint>

#include "lib/byte_reader.h"

namespace kseg {

// What the map keys by. Kafka's cleaner takes MD5 of the key; any 128-bit
// hash keeps distinct keys apart as surely (a collision as unlikely), so the
// same records survive and the map fills after as many distinct keys, rounds
// falling where Kafka's fall. XXH3-128 costs a fraction of MD5, which was a
// quarter of kseg-compact's time on __consumer_offsets (issue 50).
using KeyDigest = std::array<uint8_t, 16>;
KeyDigest key_digest(Bytes key);

// a % d for 32-bit operands without a division (Lemire, Kaser and Kurz,
// "Faster remainder by direct computation", 2019), `magic` being
// remainder_magic(d): a division per probe was a third of the map's time.
inline uint64_t remainder_magic(uint32_t d) { return UINT64_MAX / d + 1; }
inline uint32_t remainder_u32(uint32_t a, uint32_t d, uint64_t magic) {
  // The high 64 bits of (magic * a mod 2^64) * d, in two 32x32 products:
  // neither sum can carry past 64 bits.
  const uint64_t low = magic * a;
  return static_cast<uint32_t>(((low >> 32) * d + (((low & 0xffffffffu) * d) >> 32)) >> 32);
}

class OffsetMap {
 public:
  static constexpr int64_t kBytesPerEntry = 24;
  // `memory` bytes, as Kafka sizes it: min(dedupe buffer / threads, INT32_MAX).
  explicit OffsetMap(int64_t memory);
  ~OffsetMap();
  OffsetMap(const OffsetMap&) = delete;
  OffsetMap& operator=(const OffsetMap&) = delete;

  int64_t slots() const { return slots_; }  // Kafka's: what the capacity is counted in
  int64_t size() const { return entries_; }
  // Distinct keys the cleaner puts before it stops: (int)(slots x load factor).
  int64_t max_entries(double load_factor) const { return static_cast<int64_t>(static_cast<double>(slots_) * load_factor); }
  // The caller keeps size() within max_entries (load factor < 1), as the
  // cleaner does. The key's offset before this put (-1: a new key).
  int64_t put(const KeyDigest& key, int64_t offset);
  int64_t get(const KeyDigest& key) const;  // -1 when absent
  // Starts loading the slot a key probes first, kPrefetchAhead keys before
  // it is looked up or put, so that the cache misses of a batch's keys
  // overlap (more at once overflow the core's miss buffers); later probes
  // are the slots after it.
  static constexpr size_t kPrefetchAhead = 10;
  void prefetch(const KeyDigest& key) const {
    const uint8_t* slot = table_.bytes + slot_of(key, table_) * kBytesPerEntry;
    __builtin_prefetch(slot);
    __builtin_prefetch(slot + kBytesPerEntry - 1);  // a quarter of the 24-byte slots cross a cache line
  }
  // The offsets still to be put are below `end` (-1: unknown): how far a
  // large table grows at once (offset_map.cc, grow).
  void expect_offsets_below(int64_t end) { end_hint_ = end; }
  // Empty again, back to the first small table (its memory returned).
  void clear();
  void update_latest_offset(int64_t offset) { latest_ = offset; }
  int64_t latest_offset() const { return latest_; }

 private:
  // An anonymous mapping: zero pages until touched, and huge pages where the
  // kernel has them (random probes over 128 MiB miss the TLB on nearly every
  // put with 4 KiB pages).
  struct Table {
    uint8_t* bytes = nullptr;
    int64_t slots = 0;   // at most 2^31 - 1: Kafka's probes are ints
    uint64_t magic = 0;  // for the remainder by slots without a division (fastmod)
  };
  static Table map_table(int64_t slots);
  static void unmap_table(Table& t);
  static int64_t slot_of(const KeyDigest& key, const Table& t);
  static uint8_t* find(const Table& t, const KeyDigest& key, bool* found);
  // The distinct keys the section will have, at the rate of new keys since the last growth (-1: unknown).
  double projected_entries(int64_t offset) const;
  int64_t next_slots(int64_t offset) const;
  void grow(int64_t offset);

  int64_t slots_;
  int64_t entries_ = 0;
  // For grow's projection: puts, the first one's offset, and puts and new keys since the last growth.
  int64_t end_hint_ = -1, puts_ = 0, first_put_ = 0, puts_since_grow_ = 0, new_since_grow_ = 0;
  int64_t latest_ = -1;
  Table table_;
};

}  // namespace kseg
