// SPDX-License-Identifier: Apache-2.0
// Kafka's text checkpoint files (server-common CheckpointFile) and the two
// entry formats kept in them.
//
//   line 1     <version>        Java int; must equal the expected version
//   line 2     <count>          Java int: number of entry lines
//   line 3..   <entry>          split on runs of whitespace (\s+)
//
// Read rules (CheckpointReadBuffer): an empty file, or one with only the
// version line, has no entries; every line after the count is parsed
// (including extra and empty ones); the number parsed must equal the count.
// Lines end at \n, \r or \r\n. Kafka writes "\n" after every line.
//
// Entry formats, both version 0:
//   offset checkpoints  "<topic> <partition> <offset>"   recovery-point-,
//                       replication-, log-start-, cleaner-offset-checkpoint
//   leader-epoch-checkpoint  "<epoch> <startOffset>"
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/java_text.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::checkpoint {

inline constexpr int32_t kOffsetCheckpointVersion = 0;
inline constexpr int32_t kLeaderEpochCheckpointVersion = 0;

// What an entry parser (Kafka's EntryFormatter.fromString) made of a line:
// malformed is Optional.empty (an IOException "Malformed line …" in Kafka),
// bad_number a NumberFormatException for the field `bad_field`.
struct LineVerdict {
  enum Kind { ok, malformed, bad_number } kind = ok;
  std::string_view bad_field;
};
using EntryParser = std::function<LineVerdict(std::string_view line)>;

// How Kafka's CheckpointFile.read fails on a text: an IOException (a
// malformed line, an unrecognised version, a count that does not match),
// which CheckpointFileWithFailureHandler reports as a failed log dir; or an
// unchecked exception (a NumberFormatException in an entry, a negative
// count), which only the caller sees (LogManager resets a recovery point or
// log start; the log cleaner's thread dies).
enum class Failure { io_exception, unchecked };

// The generic reader: calls parse_entry for every line after the count.
// Errors carry Kafka's message (with `file_path` where Kafka names the
// file) and the byte position of the offending line; a bad number inside
// an entry reads `line N: For input string: "x"` (Kafka throws the bare
// NumberFormatException there). `failure`, when given, gets which kind.
Status read(std::string_view text, Position base, int32_t expected_version, std::string_view file_path,
            const EntryParser& parse_entry, Failure* failure = nullptr);

// The generic writer: version, count, then the lines, each ending in "\n".
std::string write(int32_t version, std::span<const std::string> entry_lines);

struct TopicPartitionOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  bool operator==(const TopicPartitionOffset&) const = default;
};
Result<std::vector<TopicPartitionOffset>> parse_offset_checkpoint(std::string_view text, std::string_view file_path,
                                                                  Position base = Position{0},
                                                                  Failure* failure = nullptr);
std::string serialize_offset_checkpoint(std::span<const TopicPartitionOffset> entries);

struct EpochEntry {
  int32_t epoch = 0;
  int64_t start_offset = 0;
  bool operator==(const EpochEntry&) const = default;
};
Result<std::vector<EpochEntry>> parse_leader_epoch_checkpoint(std::string_view text, std::string_view file_path,
                                                              Position base = Position{0}, Failure* failure = nullptr);
std::string serialize_leader_epoch_checkpoint(std::span<const EpochEntry> entries);

// Beyond Kafka's parser: epochs >= 0 and strictly increasing, start offsets
// >= 0 and strictly increasing. `index` in the message is 0-based.
Status validate_epoch_entries(std::span<const EpochEntry> entries);

// LeaderEpochFileCache.truncateFromEnd(end): the entries whose start offset
// is >= `end` go (UnifiedLog.truncateTo, and LogLoader after it loads a log,
// at the log end offset).
std::vector<EpochEntry> truncate_epochs_from_end(std::span<const EpochEntry> entries, int64_t end);
// LeaderEpochFileCache.truncateFromStart(start): the entries at or below
// `start` go, the last of them re-starting at `start`.
std::vector<EpochEntry> truncate_epochs_from_start(std::span<const EpochEntry> entries, int64_t start);

}  // namespace kseg::checkpoint
