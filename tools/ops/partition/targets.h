// SPDX-License-Identifier: Apache-2.0
// The paths a user gives, as what Kafka keeps on disk: a file, a partition
// directory or a log directory. One rule for every tool:
//   - a path that is not a directory is a file (whoever opens it says if it
//     is missing);
//   - a directory holding any file of a partition (segment, index, snapshot,
//     partition.metadata, leader-epoch-checkpoint) is a partition directory,
//     whatever its name (copies made for inspection keep no Kafka name);
//   - any other directory is a log directory, and each of its subdirectories
//     is a partition directory, as LogManager loads them: all but
//     remote-log-index-cache and hidden ones (kseg's backups). A name that is
//     not <topic>-<partition> is the partition's problem to report (verify).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/status.h"
#include "lib/types.h"

namespace kseg {

struct Target {
  enum Kind { file, partition, log_dir } kind = file;
  std::string path;             // as given (trailing '/' dropped), or log dir + '/' + name
  bool clean_shutdown = false;  // partitions and log dirs: the log dir holds .kafka_cleanshutdown
};

struct Targets {
  std::vector<Target> targets;      // in the order given; a log dir's partitions by name, then the log dir
  std::vector<std::string> errors;  // directories that could not be listed: "path: reason"
};

Targets expand_targets(const std::vector<std::string>& paths);

// The files of a partition directory that kseg-dump prints, in offset order
// and, within a segment, .log, .index, .timeindex, .txnindex, .snapshot;
// then, with `state_files`, leader-epoch-checkpoint, partition.metadata and
// quorum-state, those present.
std::vector<std::string> partition_files(const std::string& dir, bool state_files);
// A log dir's own files kseg-dump prints: the root checkpoints present, in
// kRootCheckpoints order, then meta.properties.
std::vector<std::string> log_dir_state_files(const std::string& dir);

// What every tool that takes partitions (not single files) is given: the
// paths, and --topic, --partition and --allow-empty. The writers' options
// (write/writer_run.h), txn's and info's derive from it.
struct PartitionSelection {
  std::vector<std::string> paths;    // partition directories or log directories
  std::string topic;                 // with a log directory: only this topic's partitions
  std::optional<int32_t> partition;  // and only this partition
  bool allow_empty = false;          // a path with no partition is not an error (exit 0, not 3)
};

// A partition a tool runs on: its directory and, when a segment's .log
// file was named (kseg-reindex), that segment alone.
struct PartitionJob {
  std::string dir;
  std::optional<Offset> only_base;
  std::string log_dir;  // the log directory given that holds it ("" when it was named itself)
};

// The partitions of the paths, by the one rule above, filtered by --topic /
// --partition. A path that is missing, or (unless allow_empty) holds no
// matching partition is an error; so is a file, unless `segment_files` and
// it is a regular segment .log file (its segment alone).
Result<std::vector<PartitionJob>> partition_jobs(const PartitionSelection& s, bool segment_files = false);

// The same, directories only (a file is an error).
Result<std::vector<std::string>> partition_dirs_for(const PartitionSelection& s);

}  // namespace kseg
