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
// and, within a segment, .log, .index, .timeindex, .txnindex, .snapshot.
std::vector<std::string> partition_files(const std::string& dir);

// The partition directories of the paths a writing tool is given, by the
// one rule above, filtered by --topic / --partition. A path that is a file,
// missing, or (unless allow_empty) holds no matching partition is an error.
Result<std::vector<std::string>> partition_dirs_for(const std::vector<std::string>& paths, const std::string& topic,
                                                    std::optional<int32_t> partition, bool allow_empty);

}  // namespace kseg
