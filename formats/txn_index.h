// SPDX-License-Identifier: Apache-2.0
// Transaction index (`<base offset>.txnindex`): one 34-byte AbortedTxn per
// aborted transaction whose ABORT marker is in the segment. Not
// preallocated; absent when the segment saw no abort.
//
//   off size field
//    0   2   version            int16, must be 0
//    2   8   producerId         int64
//   10   8   firstOffset        int64: first offset of the transaction's data
//   18   8   lastOffset         int64: offset of the ABORT marker
//   26   8   lastStableOffset   int64: LSO when the abort completed
//
// Kafka (4.4) reads whole entries from byte 0 and ignores a trailing partial
// entry; a version other than 0 stops the iteration with an exception.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::txn_index {

inline constexpr int64_t kVersionBytes = 2, kProducerIdBytes = 8, kOffsetBytes = 8;
inline constexpr int64_t kProducerIdOffset = kVersionBytes;
inline constexpr int64_t kFirstOffsetOffset = kProducerIdOffset + kProducerIdBytes;
inline constexpr int64_t kLastOffsetOffset = kFirstOffsetOffset + kOffsetBytes;
inline constexpr int64_t kLastStableOffsetOffset = kLastOffsetOffset + kOffsetBytes;
inline constexpr int64_t kEntrySize = kLastStableOffsetOffset + kOffsetBytes;
static_assert(kFirstOffsetOffset == 10 && kLastOffsetOffset == 18 && kEntrySize == 34);
inline constexpr int16_t kCurrentVersion = 0;

struct AbortedTxn {
  int16_t version = kCurrentVersion;
  int64_t producer_id = 0;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int64_t last_stable_offset = 0;
  bool operator==(const AbortedTxn&) const = default;
};

// Kafka's AbortedTxn.toString (used inside its sanity-check message).
std::string to_kafka_string(const AbortedTxn& txn);

// Lazy accessor; the bytes must outlive the view.
class View {
 public:
  explicit View(Bytes data, Position file_position = Position{0}) : data_(data), file_position_(file_position) {}
  Length size() const { return Length{static_cast<int64_t>(data_.size())}; }
  // Whole entries Kafka iterates over: floor(size / 34).
  int64_t entry_count() const { return static_cast<int64_t>(data_.size()) / kEntrySize; }
  // The partial entry Kafka ignores (size % 34 bytes).
  Length trailing_bytes() const { return Length{static_cast<int64_t>(data_.size()) % kEntrySize}; }
  // Decodes slot i as stored, version included. Precondition i < entry_count().
  AbortedTxn entry(int64_t i) const;
  Position entry_position(int64_t i) const { return file_position_ + Length{i * kEntrySize}; }

 private:
  Bytes data_;
  Position file_position_;
};

// Kafka's version check for entry i (message names `file_path`).
Status check_version(const View& index, int64_t i, std::string_view file_path);

// Every whole entry, as Kafka's iterator yields them: stops with the
// version error at the first entry whose version is not 0.
Result<std::vector<AbortedTxn>> decode(const View& index, std::string_view file_path);

// TransactionIndex.sanityCheck: every entry's lastOffset >= base offset
// (from the file name); version errors surface first, as in Kafka.
Status sanity_check(const View& index, Offset base_offset, std::string_view file_path);

// Checks beyond Kafka's: no trailing partial entry, firstOffset <=
// lastOffset, lastOffset strictly increasing.
Status validate_entries(const View& index);

void append_entry(std::vector<uint8_t>& out, const AbortedTxn& txn);
std::vector<uint8_t> encode(std::span<const AbortedTxn> txns);

}  // namespace kseg::txn_index
