// SPDX-License-Identifier: Apache-2.0
// Why a segment's walk ended, as a code of the shared problem catalogue: the
// one mapping dump, verify and reindex report a SegmentEnd by.
#pragma once

#include <optional>

#include "formats/log_entry.h"
#include "tools/ops/common/problem.h"

namespace kseg {

// nullopt for an end that is no problem (clean, none). `active`: the
// partition's last segment, where a short or torn tail is an interrupted
// write; in any other segment the same bytes are a bad size or garbage.
inline std::optional<Code> segment_end_code(SegmentEnd e, bool active) {
  switch (e) {
    case SegmentEnd::none:
    case SegmentEnd::clean: return std::nullopt;
    case SegmentEnd::short_tail: return active ? Code::log_torn_tail : Code::log_trailing_garbage;
    case SegmentEnd::partial_tail: return active ? Code::log_torn_tail : Code::log_bad_size;
    case SegmentEnd::zero_tail: return Code::log_zero_tail;
    case SegmentEnd::bad_size: return Code::log_trailing_garbage;
    case SegmentEnd::too_small: return Code::log_bad_size;
    case SegmentEnd::bad_crc: return Code::log_crc_mismatch;
    case SegmentEnd::bad_control: return Code::log_bad_control;
  }
  return std::nullopt;
}

}  // namespace kseg
