// SPDX-License-Identifier: Apache-2.0
#include "formats/index_serves.h"

#include <optional>

#include "formats/batch_check.h"
#include "formats/log_entry.h"

namespace kseg {

namespace {

// The entries of `log` one after another, with the facts the checks need.
struct Walk {
  EntryScanner scanner;
  std::optional<EntryRef> cur;
  EntryCheck check;
  explicit Walk(Bytes log) : scanner(log, Position{0}) { advance(); }
  void advance() {
    cur = scanner.next();
    if (cur) check = check_entry(*cur);
  }
  bool ok() const { return cur.has_value() && (check.v2() || check.decoded); }
};

}  // namespace

bool offset_index_serves(const offset_index::View& index, Bytes log) {
  Walk w(log);
  std::optional<offset_index::OffsetPosition> prev;
  for (int64_t i = 0; i < index.slot_count(); ++i) {
    const auto op = index.offset_position(i);
    if (prev && (op.offset <= prev->offset || op.position <= prev->position)) return false;
    while (w.ok() && w.cur->position.value < op.position) w.advance();
    if (!w.ok() || w.cur->position.value != op.position) return false;
    while (w.ok() && w.check.last_offset < op.offset.value) w.advance();
    if (!w.ok() || w.check.last_offset != op.offset.value) return false;
    prev = op;
    w.advance();  // the next slot starts at a later entry
  }
  return true;
}

offset_index::Width offset_index_width(Bytes index, Offset base_offset, Bytes log, int64_t hint) {
  const offset_index::Width w = offset_index::detect_width(index, log, hint);
  auto serves = [&](int64_t width) {
    const offset_index::View v(index, base_offset, Position{0}, offset_index::Width{width});
    return offset_index_serves(offset_index::View(v.bytes().first(static_cast<size_t>(v.live_entry_count() * width)),
                                                  base_offset, Position{0}, offset_index::Width{width}),
                               log);
  };
  // 12 only when it serves the log: a damaged 8-byte index stays one (Kafka's reading).
  // Where only 12 divides the size, the 8-byte reading has a torn tail: 12 if it is in order and serves.
  const bool only12 = index.size() % offset_index::kEntrySize != 0;
  if (w.entry_bytes == offset_index::kWideEntrySize || (only12 && w.ambiguous))
    return serves(offset_index::kWideEntrySize) ? offset_index::Width{offset_index::kWideEntrySize, false}
                                                : offset_index::Width{offset_index::kEntrySize, false};
  if (!w.ambiguous) return w;
  const bool narrow = serves(offset_index::kEntrySize), wide = serves(offset_index::kWideEntrySize);
  if (narrow != wide) return {narrow ? offset_index::kEntrySize : offset_index::kWideEntrySize, false};
  return w;
}

bool time_index_serves(const time_index::View& index, Bytes log) {
  Walk w(log);
  const int64_t n = index.slot_count();
  int64_t slot = 0;
  // The running largest timestamp and the entry that first reached it
  // (its offsets [from, to]): Kafka 4.4 names its last offset; 2.x-3.7
  // brokers named the first record holding it in an uncompressed v2 batch
  // (KAFKA-16310), any offset of that entry serves.
  int64_t max_ts = time_index::kNoTimestamp, from = -1, to = -1;
  auto names_max = [&](const time_index::TimestampOffset& t) {
    return t.timestamp_ms == max_ts && t.timestamp_ms > time_index::kNoTimestamp && t.offset.value >= from &&
           t.offset.value <= to;
  };
  for (; w.ok(); w.advance()) {
    if (w.check.max_timestamp > max_ts) {
      max_ts = w.check.max_timestamp;
      from = w.check.v2() ? w.check.header.base_offset : w.check.last_offset;
      to = w.check.last_offset;
    }
    while (slot < n && index.offset(slot).value <= w.check.last_offset) {
      const auto t = index.timestamp_offset(slot);
      if (!names_max(t)) return false;
      if (slot > 0 && t.timestamp_ms <= index.timestamp_offset(slot - 1).timestamp_ms) return false;
      ++slot;
    }
  }
  if (slot != n) return false;  // a slot past the data
  if (n == 0) return max_ts == time_index::kNoTimestamp;
  return names_max(index.timestamp_offset(n - 1));
}

}  // namespace kseg
