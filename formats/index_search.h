// SPDX-License-Identifier: Apache-2.0
// AbstractIndex.largestLowerBoundSlotFor, the search both index files use.
//
// Kafka first tries the "warm" tail (the last 8192 / entrySize entries, the
// pages most likely in memory) and only then the rest. On sorted entries this
// is a plain binary search; on unsorted (corrupt) entries it picks the same
// slot Kafka picks, which is why it is reproduced rather than replaced by
// std::upper_bound.
#pragma once

#include <cstdint>

namespace kseg {

// Largest slot in [0, entries) whose key is <= target, or -1 if there is none
// (including entries == 0). key(slot) returns the entry's int64 search key.
template <class KeyAt>
int64_t largest_lower_bound_slot(int64_t entries, int64_t warm_entries, int64_t target, KeyAt key) {
  if (entries == 0) return -1;
  const auto search = [&](int64_t lo, int64_t hi) {
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) / 2;
      const int64_t found = key(mid);
      if (found > target) hi = mid - 1;
      else if (found < target) lo = mid;
      else return mid;
    }
    return lo;
  };
  const int64_t first_hot = entries - 1 - warm_entries > 0 ? entries - 1 - warm_entries : 0;
  if (key(first_hot) < target) return search(first_hot, entries - 1);
  if (key(0) > target) return -1;
  return search(0, first_hot);
}

}  // namespace kseg
