// SPDX-License-Identifier: Apache-2.0
// The files at the root of a log directory that belong to no one partition:
// the four offset checkpoints every partition of the log dir shares a line
// in, meta.properties, and the marker of a clean shutdown. A tool that
// reads them (verify) and one that must rewrite them (truncate clamps the
// checkpoints of the partitions it cuts) name them from here.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "formats/checkpoint_file.h"
#include "lib/status.h"

namespace kseg {

// LogManager's checkpoints, "<topic> <partition> <offset>" lines each.
enum class RootCheckpoint { recovery_point, replication, log_start, cleaner };
inline constexpr std::array kRootCheckpoints{RootCheckpoint::recovery_point, RootCheckpoint::replication,
                                             RootCheckpoint::log_start, RootCheckpoint::cleaner};
// "recovery-point-offset-checkpoint", "replication-offset-checkpoint",
// "log-start-offset-checkpoint", "cleaner-offset-checkpoint".
const char* root_checkpoint_name(RootCheckpoint c);
// The checkpoint a file name is, if any: the name, or a copy's that starts
// with it ("replication-offset-checkpoint.bak").
std::optional<RootCheckpoint> root_checkpoint_of(const std::string& file_name);

inline constexpr const char* kCleanShutdownFile = ".kafka_cleanshutdown";
inline constexpr const char* kMetaPropertiesFile = "meta.properties";

// What of those a log dir holds, found by name (nothing is read).
struct LogDirFiles {
  std::string path;
  struct Checkpoint {
    RootCheckpoint which;
    std::string path;
  };
  std::vector<Checkpoint> checkpoints;  // the ones present, in kRootCheckpoints order
  std::optional<std::string> meta_properties;
  bool clean_shutdown = false;
};
LogDirFiles log_dir_files(const std::string& dir);

// A root checkpoint as a writer reads it: every line, kept for rewriting,
// and this partition's.
struct CheckpointLines {
  std::string path;
  bool present = false;
  std::vector<checkpoint::TopicPartitionOffset> entries;
  std::optional<int64_t> mine;
};
// Reads checkpoint `which` of `log_dir` for partition topic-number: not
// present without the file; Errc::refused naming it when it does not parse
// (the broker takes the log dir offline then).
Result<CheckpointLines> read_checkpoint_lines(const std::string& log_dir, RootCheckpoint which, const std::string& topic,
                                              int32_t partition);

// Partition topic-number's line of checkpoint `which` of `log_dir` (nullopt
// without the file or the line), from a parse of the file kept while it is
// unchanged; an error as read_checkpoint_lines's.
Result<std::optional<int64_t>> checkpoint_line(const std::string& log_dir, RootCheckpoint which, const std::string& topic,
                                               int32_t partition);

// This partition's line of a root checkpoint of the log dir holding
// `partition_dir`: nullopt without the file, the line or a partition name.
Result<std::optional<int64_t>> partition_checkpoint(const std::string& partition_dir, RootCheckpoint which);

// The canonical log dir of a partition directory (its parent, links
// resolved): the one a writer locks and whose checkpoints it reads.
std::string log_dir_of(const std::string& partition_dir);
// Whether Kafka loads the active segment's indexes of `partition_dir` as they
// are and appends to them: its log dir was shut down cleanly, it is a
// partition's log or a -future copy (not -delete, -stray) and not the
// metadata log (which Kafka recovers at every start). A preallocated
// .timeindex loaded so is full (formats/time-index.md).
bool active_indexes_loaded_as_is(const std::string& partition_dir);

// Whether the log dir holding partition directory `partition_dir` was shut
// down cleanly (Kafka then skips recovery of its partitions).
bool parent_shut_down_cleanly(const std::string& partition_dir);

}  // namespace kseg
