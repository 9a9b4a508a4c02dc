// SPDX-License-Identifier: Apache-2.0
// Checks of one segment file (.log, or a KRaft .checkpoint): walks the
// batches as Kafka's FileLogInputStream does and hands each one's few header
// fields, in file order, to the index, transaction and epoch checks, so a
// segment is read once and memory does not grow with its batch count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/batch_check.h"
#include "formats/log_entry.h"
#include "lib/types.h"
#include "tools/ops/verify/verify.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

struct BatchInfo {
  Position position;
  Length size;                 // whole entry, log overhead included
  int64_t first_offset = 0;    // v2 baseOffset; legacy: first inner offset when known
  int64_t last_offset = 0;     // Kafka's lastOffset()
  int64_t max_timestamp = -1;  // Kafka's maxTimestamp() (header)
  int32_t leader_epoch = -1;   // v2 only
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t last_sequence = -1;
  int32_t last_offset_delta = 0;
  int32_t records_count = 0;
  int16_t control_type = -1;   // first control record's type, -1 if none/unknown
  int8_t magic = 0;
  bool transactional = false;
  bool control = false;
  bool crc_ok = true;
};

struct SegmentScan {
  std::string file;
  Offset base_offset;
  bool last_segment = false;   // the active segment: benign endings are judged differently
  // The active segment of a log dir shut down cleanly (not the metadata log,
  // which Kafka recovers at every start): Kafka loads its indexes as they are.
  bool loaded_as_is = false;
  Length file_size;
  Position valid_end;          // after the last whole batch
  Length checked_bytes;        // read (less than file_size under --max-bytes)
  bool damaged = false;        // a batch or the tail is corrupt
  bool tail_damaged = false;   // the walk stopped before the end on corrupt or torn bytes
  int64_t batch_count = 0;     // batches whose header could be read
  BatchInfo last_batch;        // the last of them, when batch_count > 0
  // Kafka's next offset after this segment (last batch's lastOffset + 1), or
  // the base offset when the segment is empty.
  int64_t next_offset() const { return batch_count == 0 ? base_offset.value : last_batch.last_offset + 1; }
};

// Called with every batch whose header could be read, in file order.
using BatchVisitor = std::function<void(const BatchInfo&)>;

struct LogCheckOptions {
  VerifyDepth depth = VerifyDepth::normal;
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
  int64_t max_bytes = INT64_MAX;
  // Threads that examine the batches of one segment (one partition on a
  // machine with spare cores); findings come out in file order regardless.
  unsigned segment_threads = 1;
};

// Reads `scan.file` (base offset and last_segment already set), fills the
// rest and shows each batch to `visit`. Returns false on an I/O error
// (recorded in `findings`).
bool scan_segment(const LogCheckOptions& opts, SegmentScan& scan, Findings& findings, const BatchVisitor& visit = {});

// Record-level checks of one batch (verify_records.cc); may refine
// b.first_offset for legacy wrappers.
// `c` is check_entry(e), whose header it reuses.
void check_records(const EntryRef& e, const EntryCheck& c, BatchInfo& b, const LogCheckOptions& opts,
                   const std::string& file, std::vector<uint8_t>& scratch, Findings& findings);

}  // namespace kseg
