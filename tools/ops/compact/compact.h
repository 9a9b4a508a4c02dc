// SPDX-License-Identifier: Apache-2.0
// kseg-compact: one round (or several) of Kafka's log cleaner over a
// partition directory, offline, with the cleaner's semantics as Kafka 4.4.0
// has them (formats/log-cleaning.md): the dirty section from
// cleaner-offset-checkpoint, the uncleanable bound (active segment, last
// stable offset, min.compaction.lag.ms), the offset map of Kafka's size
// (a section that does not fit is cleaned over several rounds), segments
// regrouped by size, records kept or dropped as Cleaner.shouldRetainRecord
// and the transaction tracker decide, tombstones and markers kept until the
// delete horizon stored in their batch, empty batches kept for producer
// state. Cleaned segments are swapped in with Kafka's own .cleaned -> .swap
// protocol, so an interrupted run is finished (or undone) by the broker's
// start-up exactly as an interrupted cleaner round is. See man/kseg-compact.1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/status.h"
#include "tools/ops/write/writer_run.h"

namespace kseg {

class Sink;
class TopicSettings;

struct CompactOptions : WriterOptions {  // now_ms: the cleaner's clock
  std::string topic_config_file;     // key=value lines of the topic's configs
  std::string broker_config_file;    // server.properties: log.* defaults, cleaner settings
  std::vector<std::pair<std::string, std::string>> overrides;  // --config and the named options, last wins
  int rounds = 1;
  bool until_clean = false;
  bool force = false;  // compact a partition whose cleanup.policy has no "compact"
  // kseg-compact's own budget when the map's size is not Kafka's given
  // (compact_config.h, Settings::map_given): the map and the spill's
  // buffers within it; 0: a quarter of usable_memory(), at most 4 GiB.
  int64_t memory = 0;
};

// What --memory gives the offset map: half (while the table grows, the old
// one is held beside the new, and the last step can be from nearly the
// full size).
int64_t memory_map_bytes(int64_t memory);
int64_t default_memory();

// What Kafka's cleaner makes of a partition when it next picks logs, offline
// (LogCleanerManager.grabFilthiestCompactedLog): the topic's cleanup.policy,
// the dirty ratio (cleanable bytes over clean and cleanable) against
// min.cleanable.dirty.ratio, and, when it is above and `price` is set, what
// one kseg-compact round (a dry run) removes and frees.
struct CleanerOutlook {
  std::string cleanup_policy;
  bool compacts = false, deletes = false;
  double dirty_ratio = 0, min_ratio = 0.5;
  int64_t clean_bytes = 0, cleanable_bytes = 0;
  int64_t first_dirty = 0, first_uncleanable = 0;
  bool picked() const { return compacts && dirty_ratio > min_ratio; }
  std::optional<int64_t> frees;  // bytes one round frees, when priced
  int64_t records_removed = 0;
  bool more_rounds = false;      // the dirty section does not fit one round's map
  std::string not_judged;        // why the cleaner's pick was not worked out (its settings, the partition)
};
// `settings`: the settings lookup of the run (a metadata log read once).
// Fails only where the policy cannot be read; a partition with no compact
// policy is not loaded, and one whose cleaner settings or files do not read
// says why in `not_judged`. The priced rounds run one at a time (each holds
// an offset map of the cleaner's size).
// `topic` and `log_dir` (canonical) are the partition's, as load_partition names them.
Result<CleanerOutlook> cleaner_outlook(const std::string& dir, const std::string& topic, const std::string& log_dir,
                                       const TopicSettings& settings, int64_t now_ms, bool price);

// Runs a whole compaction; returns the exit code.
int run_compact(const CompactOptions& options, Sink& out, Sink& err);

}  // namespace kseg
