// SPDX-License-Identifier: Apache-2.0
// Whether an index a broker wrote serves its segment, though it is not the
// one Kafka 4.4's recovery would build: another index.interval.bytes, or a
// broker that indexed whole appends (before KAFKA-806 a multi-batch append,
// such as a 2.x broker's append of several v0/v1 messages, was indexed as
// the last offset of its last batch at the position of its first). A plain
// kseg-reindex keeps such an index (formats/offset-index.md, time-index.md).
#pragma once

#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/types.h"

namespace kseg {

// Every slot of `index` (no zero tail) in increasing offset and position,
// each at the start of an entry of `log` (its valid bytes), its offset the
// last offset of that entry or of a later one before the next slot's.
bool offset_index_serves(const offset_index::View& index, Bytes log);

// offset_index::detect_width with the segment's bytes at hand: 12 only if
// that reading serves `log` (offset_index_serves), and then also for a size
// only 12 divides whose 8-byte reading is in order too (a torn tail: one
// 12-byte entry reads as an 8-byte one and 4 bytes); where both readings of
// a size both divide still pass, the one that serves it (if only one does).
// Both serving it means a lookup through either finds its batch or one
// before it.
offset_index::Width offset_index_width(Bytes index, Offset base_offset, Bytes log,
                                       int64_t hint = offset_index::kEntrySize);

// Every slot of `index` (no zero tail) a (timestamp, offset) pair of the
// running largest timestamp of `log`'s entries and the last offset of the
// first entry that reached it, timestamps increasing; the last slot at the
// segment's largest timestamp (what the broker reads back as the segment's
// largest timestamp at start-up: retention judges the segment by it).
bool time_index_serves(const time_index::View& index, Bytes log);

}  // namespace kseg
