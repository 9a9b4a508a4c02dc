#include "formats/log_entry.h"

#include <algorithm>

namespace kseg {

const char* scan_end_name(ScanEnd e) {
  switch (e) {
    case ScanEnd::none: return "none";
    case ScanEnd::clean: return "clean";
    case ScanEnd::short_tail: return "short_tail";
    case ScanEnd::partial_tail: return "partial_tail";
    case ScanEnd::zero_tail: return "zero_tail";
    case ScanEnd::bad_size: return "bad_size";
  }
  return "unknown";
}

std::optional<EntryRef> EntryScanner::next() {
  if (end_ != ScanEnd::none) return std::nullopt;
  const size_t left = data_.size() - pos_;
  // Kafka stops when pos >= end - 17, i.e. it needs at least 18 bytes.
  if (left <= static_cast<size_t>(kHeaderSizeUpToMagic)) {
    end_ = left == 0 ? ScanEnd::clean : ScanEnd::short_tail;
    return std::nullopt;
  }
  const uint8_t* p = data_.data() + pos_;
  stop_offset_ = static_cast<int64_t>(load_be64(p));
  stop_size_ = static_cast<int32_t>(load_be32(p + kOffsetFieldBytes));
  if (stop_size_ < kMinRecordOverhead) {
    const bool zeros = std::all_of(p, data_.data() + data_.size(), [](uint8_t b) { return b == 0; });
    end_ = zeros ? ScanEnd::zero_tail : ScanEnd::bad_size;
    return std::nullopt;
  }
  const int64_t total = kLogOverhead + stop_size_;
  if (static_cast<uint64_t>(total) > left) {
    end_ = ScanEnd::partial_tail;
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
