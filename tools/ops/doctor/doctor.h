// SPDX-License-Identifier: Apache-2.0
// kseg-doctor: a broker's log dirs read as Kafka 4.4 will read them at its
// next start. Every finding of kseg-verify, with what Kafka does with it
// (startup.h: which segments it recovers, what it truncates and deletes,
// where it fails) and the kseg command that fixes it, priced; an inventory
// of each log dir; one plan for the broker, in the order that loses least;
// a summary. Reads only: safe beside a running broker. See man/kseg-doctor.1.
#pragma once

#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "tools/ops/verify/verify.h"

namespace kseg {

class Sink;

struct DoctorOptions {
  std::vector<std::string> paths;  // log dirs of one broker, or partition dirs
  VerifyDepth depth = VerifyDepth::normal;
  bool json = false;
  bool verbose = false;            // info findings and every partition, healthy ones too
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
  unsigned threads = 0;            // 0: usable_cpus()
  bool progress = false;
  // --fix: lock the log dirs, diagnose, apply the plan (after a "y" on a
  // terminal, or with `yes`), diagnose again. The writers' backups.
  bool fix = false;
  bool yes = false;
  bool backup = true;
  std::string backup_dir;
  // The broker's settings kseg cannot read from the log dir: its
  // server.properties (log.index.interval.bytes, log.index.size.max.bytes),
  // and producer.id.expiration.ms, for the producer snapshots --fix writes.
  std::string broker_config;
  int64_t producer_id_expiration_ms = 86400000;
  int64_t now_ms = 0;  // the clock: transaction ages, retention, min.compaction.lag.ms
};

// Returns the exit code: 0 nothing to fix, 1 findings (or Kafka's start-up
// would lose data or fail), 3 a path unreadable or holding no partition (or,
// with --fix, a log dir locked); with --fix, of the diagnosis after it.
int run_doctor(const DoctorOptions& opts, Sink& out, Sink& err);

}  // namespace kseg
