// SPDX-License-Identifier: Apache-2.0
// Kafka's producer state as its log replay builds it (ProducerStateManager
// with ProducerAppendInfo, origin replication: nothing is validated, every
// batch is applied), so that a tool that cuts a log can write the snapshot
// Kafka writes at the new end: start from the snapshot at or below that end,
// apply the batches from the snapshot's offset up to it, encode. The per
// producer fields a snapshot keeps (producer-snapshot.md):
//   data batch:  epoch := the batch's (a new epoch forgets the last batch),
//                last batch := (lastSequence, lastOffset, lastOffsetDelta),
//                timestamp := maxTimestamp; a transactional batch opens a
//                transaction at its base offset unless one is open;
//   marker:      epoch := the batch's (a new epoch forgets the last batch:
//                transaction version 2 bumps it on every marker),
//                coordinatorEpoch := the marker's, timestamp := the marker record's
//                maxTimestamp, the open transaction is closed.
// Batches of magic 0/1 and without a producer id change nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "formats/log_entry.h"
#include "formats/producer_snapshot.h"
#include "formats/txn_index.h"
#include "lib/status.h"

namespace kseg {

// What a batch did to a transaction: the marker of one with data ended it
// (Kafka's CompletedTxn; a marker without data completes nothing). For an
// ABORT, `aborted` is the .txnindex entry recovery appends, its
// lastStableOffset the first offset of the earliest transaction of another
// producer still open, or the marker's offset + 1.
struct Applied {
  std::optional<txn_index::AbortedTxn> aborted;
};

// The order a java.util.HashMap<Long, V> filled by put() in `keys` order
// (and never shrunk) iterates its keys: by bucket, (h ^ h >>> 16) & (cap-1)
// of h = Long.hashCode, at the smallest power-of-two capacity >= 16 that
// holds them at load factor 0.75; within a bucket by insertion. A bucket of
// 8 or more would be treeified (or make the table grow): not modelled, as
// Kafka's producer ids, allocated in blocks, do not collide that way.
std::vector<size_t> java_hash_order(std::span<const int64_t> keys);

class ProducerState {
 public:
  // The state a snapshot holds, in the snapshot's order (the insertion order
  // a snapshot written from the map and read back gives it).
  void load(std::span<const producer_snapshot::ProducerEntry> entries);
  // ProducerStateManager.loadFromSnapshot: the same without the producers
  // it takes as expired, those with no open transaction whose timestamp is
  // `expiration_ms` or more before `now_ms`.
  void load(std::span<const producer_snapshot::ProducerEntry> entries, int64_t now_ms, int64_t expiration_ms);
  // Applies one entry of a segment (v2 batches with a producer id). Fails
  // (refused) on a control batch of a producer whose first record is no
  // transaction marker, as Kafka's replay does, and past 1,000,000
  // producers (a snapshot Kafka cannot read); other decode errors of a
  // marker too, naming the position.
  Status apply(const EntryRef& e, Applied* applied = nullptr);
  // Between these, producers seen for the first time are inserted as
  // UnifiedLog.loadProducersFromRecords does: in the hash order of a map of
  // every producer the read saw (it applies them after the read).
  void begin_read();
  void end_read();
  std::vector<producer_snapshot::ProducerEntry> entries() const;  // by producer id
  // The entries in the order Kafka's ProducerStateManager writes them: its
  // HashMap's.
  std::vector<producer_snapshot::ProducerEntry> kafka_order() const;
  bool empty() const { return producers_.empty(); }

 private:
  std::map<int64_t, producer_snapshot::ProducerEntry> producers_;
  std::vector<int64_t> inserted_;    // producer ids in insertion order
  std::map<int64_t, int64_t> open_;  // first offset -> producer id of open transactions (ongoingTxns)
  bool reading_ = false;
  size_t read_first_new_ = 0;        // inserted_ index of the read's first new producer
  std::vector<int64_t> read_seen_;   // every producer the read saw, in first-seen order
  std::unordered_set<int64_t> read_seen_set_;
};

}  // namespace kseg
