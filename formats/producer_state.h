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
//                coordinatorEpoch := the marker's, timestamp := the batch's
//                maxTimestamp, the open transaction is closed.
// Batches of magic 0/1 and without a producer id change nothing.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "formats/log_entry.h"
#include "formats/producer_snapshot.h"
#include "lib/status.h"

namespace kseg {

class ProducerState {
 public:
  // The state a snapshot holds (its entries, in any order).
  void load(std::span<const producer_snapshot::ProducerEntry> entries);
  // Applies one entry of a segment (v2 batches with a producer id). Fails
  // (refused) on a control batch of a producer whose first record is no
  // transaction marker, as Kafka's replay does, and past 1,000,000
  // producers (a snapshot Kafka cannot read); other decode errors of a
  // marker too, naming the position.
  Status apply(const EntryRef& e);
  std::vector<producer_snapshot::ProducerEntry> entries() const;  // by producer id
  bool empty() const { return producers_.empty(); }

 private:
  std::map<int64_t, producer_snapshot::ProducerEntry> producers_;
};

}  // namespace kseg
