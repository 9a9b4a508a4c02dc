// SPDX-License-Identifier: Apache-2.0
// Kafka's LogSegment.recover over the bytes of one .log file: which batches
// are valid, where the valid data ends, and the .index / .timeindex images
// the broker's recovery writes (trimmed, as it leaves them after
// trimToValidSize). Pure: no file I/O. What the images hold:
// formats/offset-index.md and formats/time-index.md.
//
// Per batch, in file order (FileLogInputStream iteration, see log_entry.h):
//   1. ensureValid: v2 size >= 61 and CRC-32C; v0/v1 CRC-32. Fail -> stop.
//   2. lastOffset - base in [0, INT32_MAX], else Kafka throws (not caught).
//   3. running max timestamp (strict >, so the earliest batch holding it wins).
//   4. index point iff position - lastIndexedPosition > index.interval.bytes:
//      offset entry (lastOffset, position), time maybeAppend(runningMax).
//   5. v2 control batch with a producer id: its first record must parse as an
//      end-transaction marker (ProducerAppendInfo), else stop.
// After the loop: the final time entry (running max, full check skipped).
#pragma once

#include <functional>
#include <memory>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/offset_index.h"
#include "formats/batch_check.h"
#include "formats/log_entry.h"
#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::recover {

inline constexpr int32_t kDefaultIndexIntervalBytes = 4096;      // index.interval.bytes
inline constexpr int32_t kDefaultSegmentIndexBytes = 10485760;   // segment.index.bytes

struct Config {
  int32_t index_interval_bytes = kDefaultIndexIntervalBytes;
  int32_t segment_index_bytes = kDefaultSegmentIndexBytes;
  // Bound for decompressing a control batch's first record (a compressed
  // control batch is legal but never written by Kafka).
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
  // Threads that judge batches (CRCs) while one scans ahead; the result is
  // the same for any count.
  unsigned threads = 1;
  // Width of the rebuilt .index's entries: 8, 12 (KIP-1333, experimental)
  // or offset_index::kAutoWidth (8 unless the segment needs 12).
  int64_t index_entry_bytes = offset_index::kAutoWidth;
};

struct SegmentRecovery {
  std::vector<uint8_t> offset_index;  // exactly offset_index_entry_bytes x entries bytes
  int64_t offset_index_entry_bytes = offset_index::kEntrySize;  // 8, or 12 (KIP-1333)
  std::vector<uint8_t> time_index;    // exactly 12 x entries bytes
  Position valid_end;                 // Kafka's validBytes
  Length file_size;
  int64_t valid_batches = 0;
  std::optional<Offset> first_offset;  // base offset of the first valid batch
  std::optional<Offset> last_offset;   // last offset of the last valid batch
  int64_t max_timestamp_ms = -1;       // segment max timestamp (-1: none)
  SegmentEnd stop = SegmentEnd::clean;  // anything but clean: bytes after valid_end Kafka truncates
  std::string stop_detail;             // expected vs found, at valid_end
  bool truncates() const { return valid_end.value < file_size.bytes; }
  bool operator==(const SegmentRecovery&) const = default;
};

// Fails (Errc::refused) where Kafka's recover throws an exception it does not
// catch (offset overflow, non-increasing index offsets, index capacity):
// the broker then fails or splits the segment, so a tool must refuse.
// `scanned(pos)`, if given, is told as the scan goes (a chunk at a time)
// that the bytes before `pos` will not be read again, so a caller holding a
// memory map can release them and keep resident memory flat on large
// segments.
Result<SegmentRecovery> recover_segment(Bytes log, Offset base_offset, const Config& config,
                                        const std::function<void(Position)>& scanned = {});

// The recovery of a segment every byte of which is a valid batch, from its
// bytes given as contiguous windows (for a file read in blocks rather than
// mapped): fed in order, or judged on any thread and taken in order. It
// gives up, for recover_segment to say what happened, at anything else: an
// invalid batch, a tail that is not a whole batch, a bad size field, an
// offset Kafka refuses.
class CleanRecovery {
 public:
  CleanRecovery(Offset base_offset, const Config& config);  // `config` must outlive it
  ~CleanRecovery();

  // What recovery keeps of one valid batch.
  struct Judged {
    Position position;
    Offset base_offset;
    Offset last_offset;
    int64_t max_timestamp_ms = -1;
  };
  // Judges the whole entries at the front of `window`, whose first byte is
  // file position `at`, that start before `stop`, into `out` (cleared
  // first), and returns the bytes they cover; nullopt when one is not a
  // valid batch. Safe on any thread: windows may be judged in parallel and
  // taken in file order.
  std::optional<size_t> judge(Bytes window, Position at, std::vector<Judged>& out,
                              Position stop = Position{INT64_MAX}) const;
  // Takes judged entries, which follow those taken before; false: given up.
  bool take(const std::vector<Judged>& entries);
  // judge, then take: the rest of `window` must start the next window.
  std::optional<size_t> feed(Bytes window, Position at);
  // After the last window, all of whose bytes were taken: the result, or
  // nullopt when given up.
  std::optional<SegmentRecovery> finish(Length file_size);

 private:
  struct State;
  const Config& config_;  // all judge() reads
  std::unique_ptr<State> st_;
};

// Kafka's recovery of the file made by laying `pieces` of `log` end to end
// (what a salvage writes), without building it: positions in the result are
// those of the new file; `scanned` is told positions in `log`.
struct Piece {
  Position begin;
  Position end;
};
Result<SegmentRecovery> recover_layout(Bytes log, const std::vector<Piece>& pieces, Offset base_offset,
                                       const Config& config, const std::function<void(Position)>& scanned = {});

// One entry as recovery judges it. `valid`: Kafka's recovery keeps it;
// `ends_scan`: kept, but nothing after it is (bad_control). Fails where Kafka
// fails loading the log.
struct EntryVerdict {
  bool valid = false;
  bool ends_scan = false;
  Offset base_offset;
  Offset last_offset;
  int64_t max_timestamp_ms = -1;
  SegmentEnd stop = SegmentEnd::clean;  // why not valid (or why the scan ends)
  std::string detail;
};
Result<EntryVerdict> judge_entry(const EntryRef& e, const EntryCheck& c, const Config& config);
Result<EntryVerdict> judge_entry(const EntryRef& e, const Config& config);  // checks `e` itself

// What the bytes after valid_end declare, for the report of what --recover
// removes: the offsets named by the entries that parse there (no CRC check),
// resuming after an entry the scanner cannot cross at the next position
// where an entry with a valid checksum starts.
struct RemovedRange {
  std::optional<Offset> first_offset;
  std::optional<Offset> last_offset;
  int64_t entries = 0;
};
// To describe a gap [valid_end, end), pass log.first(end). With the
// segment's base offset, entries whose offsets it cannot hold are garbage:
// neither noted nor resynced to.
RemovedRange describe_removed(Bytes log, Position valid_end, Offset base_offset = Offset{INT64_MIN});

// The next position in [from, log.size()) where a whole entry with a valid
// checksum starts whose offset field a segment with base offset `min_offset`
// can hold (INT64_MIN: any); nullopt if none. Cheap checks (magic, size, offset)
// come before the checksum, so random or zeroed bytes cost a few loads each.
std::optional<size_t> next_valid_entry(Bytes log, size_t from, Offset min_offset = Offset{INT64_MIN});

}  // namespace kseg::recover
