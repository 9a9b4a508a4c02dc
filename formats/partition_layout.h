// SPDX-License-Identifier: Apache-2.0
// What the names in a partition directory are, as Kafka's LogLoader and the
// raft snapshot code read them, without opening a file: segments by base
// offset with the files each has, producer snapshots, KRaft snapshots, and
// everything else as a leftover with the reason Kafka treats it specially.
// Pure: the caller lists the directory (tools/ops/partition/partition_dir.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/file_names.h"
#include "lib/types.h"

namespace kseg {

struct SegmentFiles {
  std::map<file_names::FileKind, std::string> names;  // kind -> file name
  bool canonical = true;                              // the .log's prefix is exactly 20 digits
  bool has(file_names::FileKind k) const { return names.count(k) != 0; }
};

struct Leftover {
  enum Kind {
    tmp,             // <name>.tmp: an interrupted atomic write of a checkpoint or snapshot
    kseg_tmp,        // <name>.kseg-tmp: an interrupted kseg writer's new file (or its .kseg-journal)
    kraft_deleted,   // KRaft snapshot awaiting deletion
    kraft_partial,   // KRaft snapshot being written (.checkpoint.part)
    swap,            // cleaned segment not yet swapped in; LogLoader completes the swap
    cleaned,         // output of an interrupted clean; LogLoader deletes it
    deleted,         // awaiting asynchronous deletion
    orphan_index,    // an index with no .log of its segment; LogLoader deletes it
    unknown,         // no name Kafka knows
  };
  Kind kind;
  std::string name;
};

struct PartitionLayout {
  std::map<Offset, SegmentFiles> segments;            // only segments that have a .log
  std::vector<std::pair<Offset, std::string>> snapshots;  // producer .snapshot files
  std::vector<std::string> kraft_snapshots;           // complete <offset>-<epoch>.checkpoint
  std::vector<Leftover> leftovers;
  std::vector<std::string> kseg_backups;
  // Entries with a segment, index or snapshot name that are not regular
  // files: name, and what they are.
  std::vector<std::pair<std::string, std::string>> not_files;  // .kseg-backup-<time> directories of kseg's repairs
  // Segment files whose prefix is not exactly 20 digits (Kafka parses them
  // but never writes them).
  std::vector<std::string> odd_prefixes;
  // Which of Kafka's per-partition state files (leader-epoch-checkpoint,
  // partition.metadata) the listing has, of whatever type (a dangling link
  // is none): filled by the caller that lists the directory, so that their
  // checks need no stat() of their own.
  std::set<std::string> state_files;
};

// Sorts `names` into a layout; the order of the result does not depend on
// the order of `names`. Kafka's own files (partition.metadata,
// leader-epoch-checkpoint, quorum-state) are neither segments nor leftovers.
PartitionLayout classify_partition(std::vector<std::string> names);

}  // namespace kseg
