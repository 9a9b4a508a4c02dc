// SPDX-License-Identifier: Apache-2.0
// What Kafka 4.4 does with a partition once it has loaded it, worked out
// offline, each as a finding with its Kafka text and fixes: the producer
// state its load reads (with no snapshot after a clean shutdown it forgets
// the producers; a stale one is replayed), the transactions open at the log
// end (kseg-txn's verdict against the log dir's coordinator), the cleaner's
// next pick (the dirty ratio, and what a kseg-compact round frees), and the
// retention check (what kseg-truncate --retention frees).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "tools/ops/doctor/explain.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/partition/topic_settings.h"
#include "tools/ops/txn/txn.h"
#include "tools/ops/verify/verify_partition.h"

namespace kseg::doctor {

// Each log dir's transaction coordinators, read once, by whichever worker
// asks first.
class Coordinators {
 public:
  const TxnCoordinators& of(const std::string& log_dir);

 private:
  std::mutex mu_;
  std::map<std::string, TxnCoordinators> by_dir_;
};

// Each partition's log dir as log_dir_of names it, worked out once for each
// parent directory as given, by whichever worker asks first.
class LogDirs {
 public:
  std::string of(const std::string& partition_dir);

 private:
  std::mutex mu_;
  std::map<std::string, std::string> by_parent_;
};

struct ServiceContext {
  const TopicSettings& settings;
  Coordinators& coordinators;
  int64_t now_ms = 0;
  int64_t producer_id_expiration_ms = 86400000;
  std::string broker_config;  // said in the commands printed, so they resolve the same settings
  LogDirs& log_dirs;
};

// Adds the in-service findings of partition `p` (`clean`: the log dir shut
// down cleanly) to `d`, after its start-up is predicted; explain() leaves
// their texts as they are.
// `r`: kseg-verify's result for it (the time indexes it read).
void in_service(const ServiceContext& c, const Partition& p, const TargetResult& r, bool clean, PartitionDoc& d);

}  // namespace kseg::doctor
