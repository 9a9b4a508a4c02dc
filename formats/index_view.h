// SPDX-License-Identifier: Apache-2.0
// What Kafka's two segment indexes share (AbstractIndex): fixed-size slots
// after a base offset that comes from the file name, with every slot
// exposed (Kafka counts floor(size / entry size) entries when it opens a
// file and never looks for the zero tail), and kafka-dump-log's zero-tail
// rule. offset_index::View and time_index::View are this over their entry.
#pragma once

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg {

// Lazy accessor over the bytes of an index file; no per-entry allocation.
// The bytes must outlive the view. Entry: a relative_offset, kSize (its
// usual width) and decode(const uint8_t*, int64_t width).
template <class Entry>
class IndexView {
 public:
  IndexView(Bytes data, Offset base_offset, Position file_position = Position{0}, int64_t entry_size = Entry::kSize)
      : data_(data), base_offset_(base_offset), file_position_(file_position), entry_size_(entry_size) {}

  Offset base_offset() const { return base_offset_; }
  Length size() const { return Length{static_cast<int64_t>(data_.size())}; }
  // Bytes a slot takes: Entry::kSize, or another width the format allows.
  int64_t entry_size() const { return entry_size_; }
  // Kafka's entries() for an opened file: floor(size / entry size).
  int64_t slot_count() const { return static_cast<int64_t>(data_.size()) / entry_size_; }
  // Bytes after the last whole slot.
  Length trailing_bytes() const { return Length{static_cast<int64_t>(data_.size()) % entry_size_}; }

  // Preconditions: 0 <= slot < slot_count().
  Entry entry(int64_t slot) const { return Entry::decode(data_.data() + slot * entry_size_, entry_size_); }
  Offset offset(int64_t slot) const { return base_offset_ + entry(slot).relative_offset; }
  Position slot_position(int64_t slot) const { return file_position_ + Length{slot * entry_size_}; }
  Bytes bytes() const { return data_; }

  // The length part of Kafka's sanityCheck, in its words: `kind` is
  // "Index" or "Time index".
  Status length_check(std::string_view kind, std::string_view file_path) const {
    if (trailing_bytes().bytes == 0) return {};
    return Status::fail(Errc::bad_length, slot_position(slot_count()),
                        fmt::format("{} file {} is corrupt, found {} bytes which is neither positive nor a multiple of {}",
                                    kind, file_path, size(), entry_size_));
  }

  // kafka-dump-log's rule: stop at the first slot i > 0 whose relative
  // offset is 0 (offset == base offset).
  int64_t dump_entry_count() const {
    const int64_t n = slot_count();
    for (int64_t i = 1; i < n; ++i)
      if (entry(i).relative_offset == 0) return i;
    return n;
  }

 private:
  Bytes data_;
  Offset base_offset_;
  Position file_position_;
  int64_t entry_size_;
};

}  // namespace kseg
