// SPDX-License-Identifier: Apache-2.0
// Producer state snapshot (`<offset>.snapshot`), ProducerSnapshot schema v1.
//
//   off size field
//    0   2   version          int16 = 1
//    2   4   crc              uint32: CRC-32C of bytes 6 .. end of file
//    6   4   producerEntries  int32 count N, then N x 46-byte entries:
//
//   entry off size field
//    0   8   producerId
//    8   2   epoch                  producer epoch
//   10   4   lastSequence
//   14   8   lastOffset             -1: no batch metadata
//   22   4   offsetDelta            lastOffset - first offset of that batch
//   30   8   timestamp              ms
//   38   4   coordinatorEpoch
//   42   8   currentTxnFirstOffset  -1: no open transaction
//
// Bytes after the N entries are not rejected by Kafka but are covered by
// the CRC. Entries are in Kafka's HashMap order (unsorted).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::producer_snapshot {

inline constexpr int64_t kVersionBytes = 2, kCrcBytes = 4, kCountBytes = 4;
inline constexpr int64_t kCrcOffset = kVersionBytes;
inline constexpr int64_t kEntriesOffset = kCrcOffset + kCrcBytes;  // CRC covers from here
inline constexpr int64_t kHeaderSize = kEntriesOffset + kCountBytes;
static_assert(kCrcOffset == 2 && kEntriesOffset == 6 && kHeaderSize == 10);

inline constexpr int64_t kProducerIdBytes = 8, kEpochBytes = 2, kLastSequenceBytes = 4, kLastOffsetBytes = 8,
                         kOffsetDeltaBytes = 4, kTimestampBytes = 8, kCoordinatorEpochBytes = 4,
                         kCurrentTxnFirstOffsetBytes = 8;
inline constexpr int64_t kEntrySize = kProducerIdBytes + kEpochBytes + kLastSequenceBytes + kLastOffsetBytes +
                                      kOffsetDeltaBytes + kTimestampBytes + kCoordinatorEpochBytes +
                                      kCurrentTxnFirstOffsetBytes;
static_assert(kEntrySize == 46);

inline constexpr int16_t kVersion = 1;
inline constexpr int32_t kMaxCollectionSize = 1000000;  // generated readers' limit

struct ProducerEntry {
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t last_sequence = -1;
  int64_t last_offset = -1;  // -1: no batch metadata
  int32_t offset_delta = 0;
  int64_t timestamp_ms = -1;
  int32_t coordinator_epoch = -1;
  int64_t current_txn_first_offset = -1;  // -1: none

  bool operator==(const ProducerEntry&) const = default;
  bool has_batch_metadata() const { return last_offset >= 0; }
  bool has_open_txn() const { return current_txn_first_offset >= 0; }
  // lastSequence - offsetDelta with Kafka's wrap below 0 to INT32_MAX.
  int32_t first_sequence() const;
};

struct Snapshot {
  int16_t version = kVersion;
  uint32_t crc = 0;         // as stored
  int32_t entry_count = 0;  // as stored
  std::vector<ProducerEntry> entries;
  Length trailing_bytes;    // after the last entry, inside the CRC
};

// Decodes every field; checks bounds only (not version, not CRC). Errors:
// truncated (a field does not fit; position of that field) or bad_length
// (negative count).
Result<Snapshot> decode(Bytes file, Position base = Position{0});

// CRC-32C over bytes 6..end, the value Kafka compares with the stored crc.
uint32_t compute_crc(Bytes file);

// Version, CRC; also called by read(). Kafka's messages.
Status validate(const Snapshot& snapshot, Bytes file, Position base = Position{0});

// ProducerStateManager.readSnapshot: same checks in Kafka's order, and the
// error message is exactly the CorruptSnapshotException message Kafka logs
// (and kafka-dump-log prints), e.g. "Snapshot failed schema validation:
// null" for a short file; the position says where.
Result<Snapshot> read(Bytes file, Position base = Position{0});

// A file Kafka reads back: version 1, count, entries in the given order, CRC.
std::vector<uint8_t> encode(std::span<const ProducerEntry> entries);

}  // namespace kseg::producer_snapshot
