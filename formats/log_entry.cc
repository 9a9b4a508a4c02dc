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

std::optional<EntryRef> EntryScanner::next() {
  if (end_ != SegmentEnd::none) return std::nullopt;
  const size_t left = data_.size() - pos_;
  // Kafka stops when pos >= end - 17, i.e. it needs at least 18 bytes.
  if (left <= static_cast<size_t>(kHeaderSizeUpToMagic)) {
    end_ = left == 0 ? SegmentEnd::clean : SegmentEnd::short_tail;
    return std::nullopt;
  }
  const uint8_t* p = data_.data() + pos_;
  stop_offset_ = static_cast<int64_t>(load_be64(p));
  stop_size_ = static_cast<int32_t>(load_be32(p + kOffsetFieldBytes));
  if (stop_size_ < kMinRecordOverhead) {
    const bool zeros = std::all_of(p, data_.data() + data_.size(), [](uint8_t b) { return b == 0; });
    end_ = zeros ? SegmentEnd::zero_tail : SegmentEnd::bad_size;
    return std::nullopt;
  }
  const int64_t total = kLogOverhead + stop_size_;
  if (static_cast<uint64_t>(total) > left) {
    end_ = SegmentEnd::partial_tail;
    return std::nullopt;
  }
  EntryRef e;
  e.position = base_ + Length{static_cast<int64_t>(pos_)};
  e.bytes = data_.subspan(pos_, static_cast<size_t>(total));
  e.offset = stop_offset_;
  e.size = stop_size_;
  e.magic = static_cast<int8_t>(p[kMagicOffset]);
  pos_ += static_cast<size_t>(total);
  return e;
}

}  // namespace kseg
