// SPDX-License-Identifier: Apache-2.0
// An entry's records as a filter that keeps some of them reads it (the
// batch's facts, its records in order, a control batch's type), and the
// batch Kafka writes from the records it keeps (MemoryRecords.
// buildRetainedRecordsInto, log-cleaning.md: what is written per batch).
// The cleaner's filter (kseg-compact) decides by its offset map; a filter of
// its own may decide by anything a record holds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/log_entry.h"
#include "lib/status.h"

namespace kseg::kept {

// One entry as a filter sees it (a v2 batch or a legacy entry).
struct Batch {
  EntryRef ref;
  EntryCheck check;
  int8_t magic = 0;
  int64_t base = 0, last = 0, max_ts = -1;
  bool control = false, txn = false, has_pid = false, log_append_time = false;
  int64_t pid = -1;
  int16_t epoch = -1;
  std::optional<int64_t> horizon;
  int codec = 0;
};

Batch batch_of(const EntryRef& e);

struct Rec {
  int64_t offset = 0, timestamp = -1;
  int8_t magic = 0;
  v2::Blob key, value;
  Bytes headers;
  int32_t headers_count = 0;
};

// The records of a batch in order (Kafka's deep iteration); decompressed
// bytes live in `scratch`.
Status records_of(const Batch& b, std::vector<uint8_t>& scratch, std::vector<Rec>& out);

// The control type of a control batch's first record; none when it has none.
Result<std::optional<int16_t>> control_type(const Batch& b, std::vector<uint8_t>& scratch);

// The v2 batch Kafka 4.4.0 writes for what `kept` holds of `b` into `out`
// (cleared first), with `horizon` as its delete horizon: a v2 batch keeps its
// header (base offset, last offset delta, producer fields, leader epoch) and
// codec, its timestamps recomputed from the kept records under CreateTime; a
// v0/v1 entry becomes a v2 batch from its first kept offset to its last, no
// producer, its codec, CreateTime for v0; nothing kept: the 61-byte header of
// an empty batch.
// Returns the header written.
Result<v2::BatchHeader> rebuild_batch(const Batch& b, std::span<const Rec> kept, std::optional<int64_t> horizon,
                                      std::vector<uint8_t>& out);

}  // namespace kseg::kept
