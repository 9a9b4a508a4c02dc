// SPDX-License-Identifier: Apache-2.0
// Control records (the records of a v2 batch with the control bit set).
//
// Key: int16 version (negative is invalid), int16 type:
//   0 ABORT, 1 COMMIT           value: int16 version, int32 coordinatorEpoch
//   2 LEADER_CHANGE             value: {Version int16, LeaderId int32, Voters[VoterId], GrantingVoters[VoterId]}
//   3 SNAPSHOT_HEADER           value: flexible message {Version int16, LastContainedLogTimestamp int64}
//   4 SNAPSHOT_FOOTER           value: {Version int16}
//   5 KRAFT_VERSION             value: {Version int16, KRaftVersion int16}
//   6 KRAFT_VOTERS              value: {Version int16, Voters[...]}
#pragma once

#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "lib/status.h"

namespace kseg::control {

enum class Type : int16_t {
  abort = 0, commit = 1, leader_change = 2, snapshot_header = 3, snapshot_footer = 4,
  kraft_version = 5, kraft_voters = 6,
};

// Kafka's ControlRecordType name for a type id ("UNKNOWN" for others).
const char* type_name(int16_t type);

struct Key {
  int16_t version = 0;
  int16_t type = 0;
};
Result<Key> decode_key(const v2::Blob& key);

struct EndTxnMarker {
  int16_t version = 0;
  int32_t coordinator_epoch = 0;
};
Result<EndTxnMarker> decode_end_txn_marker(const v2::Blob& value);

// The first record of a control batch, the one Kafka reads (its producer
// state, its cleaner, its loader), with its key decoded; the value and
// the record point into the batch or into `scratch`. Errc::truncated when
// the batch holds no record. Every tool reads control batches through it.
struct FirstRecord {
  Key key;
  v2::Blob value;
  int64_t timestamp = 0;
};
Result<FirstRecord> first_record(const EntryRef& e, const v2::BatchHeader& h, std::vector<uint8_t>& scratch,
                                 size_t max_decompressed = v2::kDefaultMaxDecompressed);

// The encoders a writer of control batches needs: the 4-byte key of any
// type and the 6-byte value of an end-transaction marker (ABORT, COMMIT).
std::vector<uint8_t> encode_key(const Key& key);
std::vector<uint8_t> encode_end_txn_marker(const EndTxnMarker& marker);

// The text DumpLogSegments appends to a control record's line, with its
// leading space: " endTxnMarker: COMMIT coordinatorEpoch: 0",
// " SnapshotHeader {json}", " LeaderChange: {json}", " controlType: UNKNOWN(9)" …
Result<std::string> describe(const v2::Blob& key, const v2::Blob& value);

}  // namespace kseg::control
