// SPDX-License-Identifier: Apache-2.0
// kseg-reindex --salvage (beyond Kafka): where Kafka's recovery cuts a segment
// at its first invalid entry, keep every later entry that recovery would
// accept on its own, in file order, as long as offsets keep increasing
// (Kafka accepts offset gaps, as compaction leaves them, never a step back).
// The bytes between kept runs are gaps, each reported with its byte range,
// the offsets its readable entries declare and why the kept data broke off.
// Pure: no file I/O; the new .log is the concatenation of `kept`, and
// recover_layout() gives its indexes.
#pragma once

#include <string>
#include <vector>

#include "formats/segment_recover.h"

namespace kseg::recover {

struct Gap {
  Position begin;         // removed bytes [begin, end) of the original file
  Position end;
  RemovedRange declared;  // offsets named by the entries that parse there
  std::string reason;     // a segment_end_name(), or "offset_order"
  std::string detail;     // expected vs found, at begin
  int64_t skipped_valid = 0;  // entries with a valid checksum dropped (offsets not increasing)
};

struct Salvage {
  std::vector<Piece> kept;  // in file order, disjoint, non-empty
  std::vector<Gap> gaps;    // in file order; empty: the file is valid as it is
  int64_t kept_bytes() const;
};

// Fails where Kafka fails loading the log (see judge_entry). `scanned` as
// for recover_segment (it is told increasing positions; the bytes of a gap
// are read until the gap is described).
Result<Salvage> salvage_segment(Bytes log, Offset base_offset, const Config& config,
                                const std::function<void(Position)>& scanned = {});

}  // namespace kseg::recover
