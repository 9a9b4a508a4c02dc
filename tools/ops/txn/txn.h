// SPDX-License-Identifier: Apache-2.0
// kseg-txn: producer state and transactions of partitions, from their logs
// and snapshots alone, as Kafka's loader rebuilds them (newest snapshot at or
// below the log end, then every later batch), with the open transactions,
// what they hold back (the last stable offset), the aborted ranges of the
// .txnindex files, and, with __transaction_state partitions in the same log
// dir, the coordinator's view of each transactional id: a transaction the
// partition shows open while the coordinator has ended it (or moved on) is
// hanging. Reads only. See man/kseg-txn.1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/ops/partition/targets.h"

namespace kseg {

class Sink;

struct TxnOptions : PartitionSelection {
  int64_t now_ms = 0;              // the clock: ages, producer expiration at snapshot load
  int64_t producer_id_expiration_ms = 86400000;
  bool json = false;
  bool json_lines = false;  // with json: a document per partition, one line each
  int64_t max_aborted = 1000;      // aborted ranges listed per partition (the rest counted)
  bool progress = false;           // a progress line on stderr (Progress::wanted)
};

// Exit 0: no hanging transaction; 1: at least one; 2: usage; 3: unreadable input.
int run_txn(const TxnOptions& options, Sink& out, Sink& err);

}  // namespace kseg
