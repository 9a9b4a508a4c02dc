// SPDX-License-Identifier: Apache-2.0
// The entries of a segment file (.log, KRaft .checkpoint): a plain
// concatenation with no file header, footer or padding. Every entry, of any
// magic, starts the same way:
//
//   0  int64  offset (v0/v1: of this message; v2: baseOffset)
//   8  int32  size: bytes that follow this field (entry = 12 + size)
//  12  int32  v0/v1: CRC-32 of the message; v2: partitionLeaderEpoch
//  16  int8   magic
//
// EntryScanner walks them exactly as Kafka's FileLogInputStream does: stop
// when at most 17 bytes remain, stop quietly at an entry that runs past the
// end, fail on a size below 14. It names why it stopped, so callers can tell
// a clean end from a torn tail, a zero-filled preallocated tail or a bad size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "lib/byte_reader.h"
#include "lib/types.h"

namespace kseg {

inline constexpr int64_t kOffsetFieldBytes = 8;
inline constexpr int64_t kSizeFieldBytes = 4;
inline constexpr int64_t kLogOverhead = kOffsetFieldBytes + kSizeFieldBytes;         // 12
inline constexpr int64_t kMagicOffset = kLogOverhead + 4;                            // 16
inline constexpr int64_t kHeaderSizeUpToMagic = kMagicOffset + 1;                    // 17
inline constexpr int32_t kMinRecordOverhead = 14;  // smallest size field any reader accepts
static_assert(kHeaderSizeUpToMagic == 17);

struct EntryRef {
  Position position;  // of the entry's first byte
  Bytes bytes;        // the whole entry, log overhead included
  int64_t offset = 0;
  int32_t size = 0;  // the size field: bytes.size() == 12 + size
  int8_t magic = 0;
  Length total() const { return Length{static_cast<int64_t>(bytes.size())}; }
};

// Why a walk over a segment's entries ends, in one vocabulary for every
// reader: the first five are where EntryScanner stops; the last three are
// set by a reader that checks entries (recovery, verify, the cut of a
// truncate) at the first entry Kafka's recovery would not keep. Only clean
// is benign everywhere; whether a zero tail is (preallocation of the active
// segment) is the caller's call.
enum class SegmentEnd {
  none,          // still scanning
  clean,         // every byte belongs to an entry
  short_tail,    // 1..17 bytes left: too few to hold an entry header
  partial_tail,  // an entry whose declared size runs past the end (torn write)
  zero_tail,     // size field < 14 and everything from there is zero bytes (preallocation)
  bad_size,      // size field < 14 with non-zero bytes after it: corruption
  too_small,     // a v2 entry smaller than its 61-byte batch header
  bad_crc,       // checksum mismatch
  bad_control,   // control batch whose first record is no transaction marker: kept, nothing after it
};

const char* segment_end_name(SegmentEnd e);

class EntryScanner {
 public:
  // `data` is the readable part of the file (or of its first --max-bytes),
  // `base` the absolute position of data[0].
  EntryScanner(Bytes data, Position base) : data_(data), base_(base) {}

  // Inline: an EntryRef handed back through memory, written a field at a
  // time and read back whole, stalled each caller on small batches.
  std::optional<EntryRef> next() {
    if (end_ != SegmentEnd::none) return std::nullopt;
    const size_t left = data_.size() - pos_;
    // Kafka stops when pos >= end - 17, i.e. it needs at least 18 bytes.
    if (left <= static_cast<size_t>(kHeaderSizeUpToMagic)) {
      stop_at(left);
      return std::nullopt;
    }
    const uint8_t* p = data_.data() + pos_;
    // Each header's load waits for the one before it (it gives the
    // position), so on small batches every header was a miss from memory
    // that the hardware prefetcher did not hide: a fifth of a v2-tiny dump.
    // The entries are contiguous, so the cache lines up to kPrefetchAhead
    // bytes on are requested early. Not after a large entry (it slowed 16 KiB
    // batches), nor before the first entry says how large they are (an index
    // check makes a scanner per entry and would fetch 4 KiB for nothing).
    // Figures: tests/bench/README.md, "Measurements behind the code".
    constexpr size_t kPrefetchAhead = 4096, kLine = 64, kSmallEntry = 2048;
    if (last_total_ < kSmallEntry) {
      const size_t until = std::min(data_.size(), pos_ + kPrefetchAhead);
      for (prefetched_ = std::max(prefetched_, pos_); prefetched_ < until; prefetched_ += kLine)
        __builtin_prefetch(data_.data() + prefetched_);
    }
    stop_offset_ = static_cast<int64_t>(load_be64(p));
    stop_size_ = static_cast<int32_t>(load_be32(p + kOffsetFieldBytes));
    const int64_t total = kLogOverhead + stop_size_;
    if (stop_size_ < kMinRecordOverhead || static_cast<uint64_t>(total) > left) {
      stop_at(left);
      return std::nullopt;
    }
    EntryRef e;
    e.position = base_ + Length{static_cast<int64_t>(pos_)};
    e.bytes = data_.subspan(pos_, static_cast<size_t>(total));
    e.offset = stop_offset_;
    e.size = stop_size_;
    e.magic = static_cast<int8_t>(p[kMagicOffset]);
    pos_ += static_cast<size_t>(total);
    last_total_ = static_cast<size_t>(total);
    return e;
  }

  // Valid after next() returned nullopt.
  SegmentEnd end() const { return end_; }
  // Position just past the last entry returned: where the valid data ends.
  Position valid_end() const { return base_ + Length{static_cast<int64_t>(pos_)}; }
  // Bytes between valid_end() and the end of the data.
  Length trailing() const { return Length{static_cast<int64_t>(data_.size() - pos_)}; }
  // The stopping entry's offset/size fields (partial_tail, bad_size, zero_tail).
  int64_t stop_offset() const { return stop_offset_; }
  int32_t stop_size() const { return stop_size_; }
  // The bytes from valid_end() to the end of the data.
  Bytes remaining() const { return data_.subspan(pos_); }
  // Goes on from `p` (between valid_end() and the end of the data), as if
  // the entries before it had been returned: a walk that found them by
  // other means hands the scanner back there.
  void resume_at(Position p) {
    pos_ = std::min(data_.size(), static_cast<size_t>(std::max<int64_t>(0, (p - base_).bytes)));
    prefetched_ = pos_;
    last_total_ = kUnknownSize;
    end_ = SegmentEnd::none;
  }
  // The same, just past `last`, the entry before it: its offset and size
  // fields are what stop_offset() and stop_size() say at a clean or short
  // end, as after a scan that returned it.
  void resume_after(const EntryRef& last) {
    resume_at(last.position + last.total());
    stop_offset_ = last.offset;
    stop_size_ = last.size;
  }

 private:
  // Sets end_ for a scan that cannot go on at pos_, `left` bytes before the end.
  void stop_at(size_t left);

  Bytes data_;
  Position base_;
  size_t pos_ = 0;
  size_t prefetched_ = 0;  // lines before it were requested ahead of the scan
  static constexpr size_t kUnknownSize = SIZE_MAX;
  // The size of the entry returned last; kUnknownSize before the first one
  // (made or resumed), so that nothing is prefetched on the first call.
  size_t last_total_ = kUnknownSize;
  SegmentEnd end_ = SegmentEnd::none;
  int64_t stop_offset_ = 0;
  int32_t stop_size_ = 0;
};

// Expected against found at the scanner's end (empty when clean).
std::string segment_end_detail(const EntryScanner& scanner);

}  // namespace kseg
