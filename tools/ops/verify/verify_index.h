// SPDX-License-Identifier: Apache-2.0
// Checks of a segment's .index and .timeindex against its batches, by the
// rules Kafka's append and recovery paths create entries with. Each check
// reads its file before the segment is scanned and then watches the batches
// go by, so it holds the index's entries, never the segment's batches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/verify/verify_log.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

// The slots of an index to check, ordered by a key: slot order itself when
// it already is (the usual case, no memory), else a sorted list of slots.
class SlotOrder {
 public:
  SlotOrder() = default;
  template <class Checked, class Key>
  SlotOrder(int64_t used, Checked checked, Key key) : n_(used) {
    bool in_order = true;
    for (int64_t i = 0; i < used && in_order; ++i) in_order = checked(i) && (i == 0 || key(i - 1) <= key(i));
    if (in_order) return;
    for (int64_t i = 0; i < used; ++i)
      if (checked(i)) slots_.push_back(i);
    std::stable_sort(slots_.begin(), slots_.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
    n_ = static_cast<int64_t>(slots_.size());
  }
  int64_t size() const { return n_; }
  int64_t operator[](int64_t k) const { return slots_.empty() ? k : slots_[static_cast<size_t>(k)]; }

 private:
  int64_t n_ = 0;
  std::vector<int64_t> slots_;
};

// An index file mapped for a check: its live entries (as Kafka reads them)
// and the slots after them up to the last non-zero one. Kafka preallocates
// indexes to segment.index.bytes, so the zero tail is released as it is read.
struct MappedIndex {
  explicit MappedIndex(std::string path);  // maps it, or says why not
  // Sets `first_nonzero` and `used` from the slots after `live`.
  void scan_tail(int64_t slots, int64_t entry_size);

  std::string path;
  std::optional<MappedFile> file;  // empty when it cannot be opened
  std::string open_error;
  int64_t live = 0;
  int64_t used = 0;           // slots up to the last non-zero one (at least `live`)
  int64_t first_nonzero = 0;  // the first non-zero slot past the live ones, or the slot count
};

class OffsetIndexCheck {
 public:
  // `path` names an existing .index of the segment based at `base_offset`;
  // `log_path` its .log, read only to tell the entry width where 12 divides
  // the size (offset_index_width).
  OffsetIndexCheck(std::string path, Offset base_offset, const std::string& log_path = {});
  void batch(const BatchInfo& b);
  // After the scan: every finding, in slot order.
  void finish(const SegmentScan& s, Findings& f);

 private:
  enum class Miss { inside, wrong_offset, past_end };
  struct Result {
    Miss miss;
    int64_t value;  // inside: the batch's position; wrong_offset: its last offset; past_end: unused
  };
  bool checked(int64_t slot) const;
  MappedIndex index_;
  std::optional<offset_index::View> view_;
  SlotOrder by_position_;
  int64_t next_ = 0;           // in by_position_: the first entry not yet placed
  Position prev_position_;  // of the last batch seen
  // Entries that name a later offset than their batch's last (KAFKA-806):
  // offset -> (slot, that batch's last offset), settled by later batches.
  std::multimap<int64_t, std::pair<int64_t, int64_t>> pending_;
  std::map<int64_t, Result> misses_;  // by slot
};

class TimeIndexCheck {
 public:
  TimeIndexCheck(std::string path, Offset base_offset);
  void batch(const BatchInfo& b);
  void finish(const SegmentScan& s, Findings& f);
  // Its last entry's timestamp, as largest_timestamp (partition.h) reads it:
  // none for an empty index or a negative one.
  std::optional<int64_t> last_timestamp() const;

 private:
  // A point where the segment's running max timestamp strictly rises.
  struct MaxPoint {
    int64_t timestamp;
    int64_t first_offset, last_offset;  // of the batch that raised it
  };
  bool checked(int64_t slot) const;
  MappedIndex index_;
  std::optional<time_index::View> view_;
  SlotOrder by_timestamp_, by_offset_;
  int64_t next_ = 0;  // in by_timestamp_: the first entry no point has reached
  std::optional<MaxPoint> last_point_;
  std::vector<uint8_t> matched_;      // by slot: 1 when a point has the entry's timestamp
  std::map<int64_t, int64_t> wrong_;  // slot -> last offset of the batch its timestamp names
  // The timestamp of the latest point whose first offset is at or below
  // each entry's offset, as steps over the ranks of by_offset_: (the first
  // rank a step covers, its timestamp), ranks strictly increasing.
  std::vector<std::pair<int64_t, int64_t>> steps_;
};

}  // namespace kseg
