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

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/status.h"
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

// The coordinator's last word on a transactional id (TransactionLogValue).
struct CoordinatorTxn {
  std::string id;
  int64_t producer_id = -1, previous_producer_id = -1;
  int16_t producer_epoch = -1;
  int8_t status = -1;
  int32_t timeout_ms = 0;
  int64_t last_update_ms = -1, start_ms = -1;
  std::vector<std::pair<std::string, int32_t>> partitions;
  std::string source;  // the __transaction_state partition
  bool ended() const { return status == 0 || status >= 4; }  // Empty, Complete*, Dead, PrepareEpochFence
  // Two-phase commit (KIP-939): Kafka 4.4.0's coordinator gives a producer that
  // asked for it (transaction.two.phase.commit.enable) Integer.MAX_VALUE as its
  // transaction timeout, and never aborts its transactions: an external
  // coordinator decides. Nothing else on disk says whether the client prepared it.
  bool two_phase() const { return timeout_ms == INT32_MAX; }
  bool includes(const std::string& topic, int32_t p) const {
    return std::find(partitions.begin(), partitions.end(), std::make_pair(topic, p)) != partitions.end();
  }
};

// The transaction coordinator's view in one log dir: its __transaction_state
// partitions (not the -delete, -future or -stray copies) read to their ends,
// the newest value of each transactional id winning, a tombstone removing
// it; and the verdict on a partition's open transaction against it. What
// kseg-txn and kseg-doctor judge with.
class TxnCoordinators {
 public:
  static Result<TxnCoordinators> read(const std::string& log_dir);
  TxnCoordinators() = default;
  TxnCoordinators(TxnCoordinators&&) = default;  // moves keep the map's nodes, which by_pid_ points into
  TxnCoordinators& operator=(TxnCoordinators&&) = default;
  TxnCoordinators(const TxnCoordinators&) = delete;

  bool present() const { return present_; }
  struct Verdict {
    std::string verdict;  // ongoing, completing, hanging, unverified
    std::string why;
    const CoordinatorTxn* coordinator = nullptr;  // the newest transactional id of the producer
  };
  // The transaction of producer `producer_id` open in partition `topic`-`partition`,
  // its last write at `last_timestamp_ms`, judged at `now_ms`.
  Verdict judge(int64_t producer_id, int64_t last_timestamp_ms, const std::string& topic, int32_t partition,
                int64_t now_ms) const;

 private:
  bool present_ = false;
  std::map<std::string, CoordinatorTxn> txns_;
  std::multimap<int64_t, const CoordinatorTxn*> by_pid_;  // by producer id and previous producer id
};

// Exit 0: no hanging transaction; 1: at least one; 2: usage; 3: unreadable input.
int run_txn(const TxnOptions& options, Sink& out, Sink& err);

}  // namespace kseg
