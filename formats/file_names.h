// SPDX-License-Identifier: Apache-2.0
// Names of the files and directories in a Kafka log dir (LogFileUtils,
// UnifiedLog.parseTopicPartitionName, raft Snapshots).
//
//   00000000000000000123.log            segment data, base offset 123 (20 digits)
//   00000000000000000123.index          .timeindex .txnindex share the prefix
//   00000000000000000123.snapshot       producer state at offset 123
//   <any of the above>.deleted|.cleaned|.swap   transient suffix appended
//   <topic>-<partition>                 partition directory
//   <topic>-<partition>.<32 hex>-delete|-future|-stray
//   <20-digit offset>-<10-digit epoch>.checkpoint[.part|.deleted]   KRaft snapshot
// and kseg's own, beside them (Kafka ignores every one):
//   <name>.kseg-tmp                     a writer's new file until its rename
//   <name>.kseg-journal                 kseg-truncate's record of a cut under way
//   .kseg-backup-<UTC time>[-N]/        the originals a writer replaced
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/status.h"
#include "lib/types.h"

namespace kseg::file_names {

inline constexpr int kOffsetDigits = 20;  // LogFileUtils.filenamePrefixFromOffset
inline constexpr int kEpochDigits = 10;   // Snapshots.EPOCH_WIDTH

inline constexpr const char* kKsegTmpSuffix = ".kseg-tmp";
inline constexpr const char* kKsegJournalSuffix = ".kseg-journal";
inline constexpr const char* kKsegBackupPrefix = ".kseg-backup-";

enum class FileKind { log, index, timeindex, txnindex, snapshot, unknown };
enum class TransientSuffix { none, deleted, cleaned, swap };

const char* suffix(FileKind k);         // ".log" …, "" for unknown
const char* suffix(TransientSuffix s);  // ".deleted" …, "" for none

// "00000000000000000123" for 123. Negative offsets are formatted as Java's
// NumberFormat would ("-" then 20 digits); Kafka never names files so.
std::string offset_prefix(Offset offset);
std::string segment_file_name(Offset base_offset, FileKind kind, TransientSuffix transient = TransientSuffix::none);

// Kafka's offsetFromFileName: everything before the first '.' parsed as a
// Java long. No '.' or a bad number is an error (Kafka throws).
Result<Offset> offset_from_file_name(std::string_view name);

struct SegmentFileName {
  Offset offset;
  FileKind kind = FileKind::unknown;   // from the suffix after the prefix
  TransientSuffix transient = TransientSuffix::none;
  bool canonical_prefix = false;       // prefix is exactly 20 ASCII digits
};
// Parses "<prefix>.<suffix>[<transient>]"; kind is unknown for other suffixes.
Result<SegmentFileName> parse_segment_file_name(std::string_view name);

enum class DirKind { partition, deleting, future, stray };
struct PartitionDirName {
  std::string topic;
  int32_t partition = 0;
  DirKind kind = DirKind::partition;
  std::string unique_id;  // the part between the last '.' and the suffix, if any
};
// UnifiedLog.parseTopicPartitionName: topic = text before the last '-',
// partition = Java int after it; -delete/-future/-stray names must match
// ^(\S+)-(\S+)\.(\S+)-<suffix>$ and lose everything from their last '.'.
Result<PartitionDirName> parse_partition_dir_name(std::string_view name);
std::string partition_dir_name(std::string_view topic, int32_t partition);

enum class SnapshotState { complete, partial, deleted };
struct KraftSnapshotName {
  Offset end_offset;
  int32_t epoch = 0;
  SnapshotState state = SnapshotState::complete;
};
// "<20 digits>-<10 digits>.checkpoint", ".checkpoint.part" (or
// "-<anything>.checkpoint.part"), ".checkpoint.deleted".
Result<KraftSnapshotName> parse_kraft_snapshot_name(std::string_view name);
std::string kraft_snapshot_name(Offset end_offset, int32_t epoch);

}  // namespace kseg::file_names
