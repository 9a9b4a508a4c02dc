// SPDX-License-Identifier: Apache-2.0
// The producer state Kafka's loader starts from, written once for every tool
// that needs the state at some offset (txn, info, compact, truncate):
// ProducerStateManager.truncateAndReload chooses the snapshot, then
// UnifiedLog.rebuildProducerState replays the batches after it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/partition_layout.h"
#include "formats/producer_state.h"
#include "lib/status.h"

namespace kseg {

// Whether Kafka's loader keeps a snapshot when it loads the state at `end`
// with the log starting at `log_start`: it deletes every other one, so a
// snapshot exactly at the log start is never read. Kafka 4.4.0 leaves one
// there after DeleteRecords or retention to a segment base and deletes it at
// the next load; the producers only it held are gone (the truncate and
// compact oracles check this on a partition Kafka wrote that way).
constexpr bool loader_keeps_snapshot(int64_t offset, int64_t log_start, int64_t end) {
  return offset > log_start && offset <= end;
}

// The snapshots of `snapshots` ((offset, name)) Kafka's load deletes, as it
// loads the state at the log end.
std::vector<std::pair<int64_t, std::string>> snapshots_loader_deletes(
    std::span<const std::pair<int64_t, std::string>> snapshots, int64_t log_start, int64_t log_end);

// ProducerStateManager.removeStraySnapshots, which the load runs on the
// segments it ends with: of the snapshot offsets `offsets` (ascending), those
// kept: every one at a segment base (`bases`, ascending), and the newest
// other one if it is above every base.
std::vector<int64_t> snapshots_kept_of_strays(std::span<const int64_t> offsets, std::span<const int64_t> bases);

// loadFromSnapshot's expiry: producers with no open transaction whose last
// timestamp is `expiration_ms` or more before `now_ms` are dropped.
struct ProducerExpiry {
  int64_t now_ms = 0, expiration_ms = 0;
};

struct ProducerStart {
  ProducerState state;
  int64_t from = 0;                 // where the replay starts: the snapshot's offset, else the log start
  std::optional<int64_t> snapshot;  // the snapshot loaded
};

// The newest snapshot the loader keeps that reads (Kafka deletes an
// unreadable one and tries the next older); none: empty, from the log start.
// `snapshots` are (offset, file name in `dir`), ascending. Fails only when a
// snapshot file cannot be read at all (the error names it).
Result<ProducerStart> producer_start(const std::string& dir, std::span<const std::pair<int64_t, std::string>> snapshots,
                                     int64_t log_start, int64_t end, std::optional<ProducerExpiry> expiry = {});

// The layout's producer snapshots as (offset, file name), ascending.
std::vector<std::pair<int64_t, std::string>> snapshot_files(const PartitionLayout& layout);

// Applies to `state` the batches of `logs` ((base offset, path), ascending)
// whose last offset is in [from, end), end = INT64_MAX for all; counts them
// in `replayed`. Segments wholly below `from` are not opened.
Status replay_producers(std::span<const std::pair<int64_t, std::string>> logs, int64_t from, int64_t end,
                        ProducerState& state, int64_t* replayed = nullptr);

}  // namespace kseg
