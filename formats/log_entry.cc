// SPDX-License-Identifier: Apache-2.0
#include "formats/log_entry.h"

#include <algorithm>

#include <fmt/format.h>

namespace kseg {

const char* segment_end_name(SegmentEnd e) {
  switch (e) {
    case SegmentEnd::none: return "none";
    case SegmentEnd::clean: return "clean";
    case SegmentEnd::short_tail: return "short_tail";
    case SegmentEnd::partial_tail: return "partial_tail";
    case SegmentEnd::zero_tail: return "zero_tail";
    case SegmentEnd::bad_size: return "bad_size";
    case SegmentEnd::too_small: return "too_small";
    case SegmentEnd::bad_crc: return "bad_crc";
    case SegmentEnd::bad_control: return "bad_control";
  }
  return "unknown";
}

std::string segment_end_detail(const EntryScanner& s) {
  switch (s.end()) {
    case SegmentEnd::partial_tail:
      return fmt::format("torn tail: batch at offset {} declares {} bytes, only {} remain", s.stop_offset(),
                         kLogOverhead + s.stop_size(), s.trailing());
    case SegmentEnd::bad_size:
      return fmt::format("batch at offset {}: size field {} is below the minimum {}", s.stop_offset(), s.stop_size(),
                         kMinRecordOverhead);
    case SegmentEnd::zero_tail:
      return fmt::format("zero-filled tail: {} zero bytes from here to the end of the file (as a preallocated or "
                         "crashed segment leaves them)",
                         s.trailing());
    case SegmentEnd::short_tail: return fmt::format("{} trailing bytes, too few for a batch header", s.trailing());
    default: return "";
  }
}

void EntryScanner::stop_at(size_t left) {
  if (left <= static_cast<size_t>(kHeaderSizeUpToMagic)) {
    end_ = left == 0 ? SegmentEnd::clean : SegmentEnd::short_tail;
  } else if (stop_size_ < kMinRecordOverhead) {
    const uint8_t* p = data_.data() + pos_;
    const bool zeros = std::all_of(p, data_.data() + data_.size(), [](uint8_t b) { return b == 0; });
    end_ = zeros ? SegmentEnd::zero_tail : SegmentEnd::bad_size;
  } else {
    end_ = SegmentEnd::partial_tail;
  }
}

}  // namespace kseg
