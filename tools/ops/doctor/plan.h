// SPDX-License-Identifier: Apache-2.0
// The broker's plan: each partition's fix as a step, in the order that loses
// least (salvages, producer state, index rebuilds, the partition.metadata a
// stray needs, then what a person must do; last, the optional steps that
// spare the broker a recovery), and --fix applying it through kseg-reindex
// and the safe-write protocol under the log dirs' locks.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/status.h"
#include "tools/ops/doctor/explain.h"
#include "tools/ops/partition/topic_settings.h"
#include "tools/ops/write/safe_write.h"

namespace kseg {
class Sink;
}

namespace kseg::doctor {

struct Step {
  // set_aside: a root checkpoint Kafka cannot read, or a directory of the log
  // dir Kafka refuses (lost+found), moved into the backup (Kafka then starts
  // without it).
  enum Kind { salvage, producer_state, reindex, partition_metadata, set_aside, by_hand } kind = by_hand;
  std::string dir;       // the partition directory (set_aside: one in the log dir, which keeps the backup)
  Fix fix;               // the command as printed, and what it loses
  std::string topic_id;  // partition_metadata: the metadata log's id for the topic
  bool optional = false;  // Kafka does it at start-up anyway (by recovering segments)
  std::string file = {};  // set_aside: the root file's name
  int order() const;     // lower first
};

// The steps of one partition's fixes.
void add_steps(const PartitionDoc& d, std::vector<Step>& plan);

// The step for an unreadable root checkpoint or a refused directory at
// `path`, kept in the backup of `partition` (a partition directory of the
// same log dir; none: left to a person).
Step set_aside_step(const std::string& path, const std::string& partition);

// What --fix does with the files it replaces.
struct FixOptions {
  bool backup = true;
  std::string backup_dir;  // empty: <partition>/.kseg-backup-<time>
  int64_t producer_id_expiration_ms = 86400000;  // the broker's producer.id.expiration.ms
};

// Applies every step but by_hand ones, in order, each under the lock of its
// log dir (held by the caller for the whole run); says each on `out`.
// Returns the number of steps that failed.
int apply_steps(const std::vector<Step>& plan, const FixOptions& o, const TopicSettings& settings,
                const std::map<std::string, safe::DirLock>& locks, Sink& out, Sink& err);

// After an unclean shutdown, what Kafka's recovery would read is made
// already recovered: each partition of `partitions` (the partition dirs of
// one log dir, each with no finding left to fix) is rewritten by
// kseg-reindex --producer-state with indexes exactly as recovery writes
// them, then planned again: where nothing is left to change, its line of
// recovery-point-offset-checkpoint moves to its log end. When every
// partition of the log dir holds, .kafka_cleanshutdown is written (empty:
// Kafka then registers with no previous broker epoch, as after a crash).
struct PreRecovery {
  std::vector<std::string> advanced;  // partitions whose recovery point moved to their log end
  std::vector<std::string> left;      // partitions Kafka still recovers from their recovery point
  bool marked_clean = false;
};
// `whole`: `partitions` are every partition of the log dir (it was given as a
// path), without which the marker is never written.
Result<PreRecovery> pre_recover(const std::string& log_dir, const std::vector<std::string>& partitions, bool whole,
                                const std::set<std::string>& not_ready, const FixOptions& o,
                                const TopicSettings& settings, const safe::DirLock& lock, Sink& out, Sink& err);

}  // namespace kseg::doctor
