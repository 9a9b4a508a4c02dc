// SPDX-License-Identifier: Apache-2.0
// The offset map's answers when the dirty section's keys do not fit in
// memory, so that a round still cleans all of it with one rewrite of the log
// (issue 50), where Kafka's cleaner runs a round per map of keys.
//
// The records the cleaning pass will look up are spilled in log order as
// (key digest, offset, whether the map would hold it) into one of 1,024
// buckets chosen by the digest. A bucket's keys fit the map: its entries are
// put (the latest offset of each key wins, as in the map), then each entry
// is looked up, and the offsets a later record of the same key supersedes
// are written, in order, to a second file. The cleaning pass then asks, in
// the same order, whether a record's offset is in its bucket's list, where
// a cursor per bucket only moves forward. The answers are the map's: a
// record is superseded exactly when the map of the whole section would hold
// a later offset for its key.
//
// Both files are made in the partition's directory (its filesystem has the
// room the cleaned segments need; a dry run, which holds no lock and writes
// nothing beside the partition, in $TMPDIR or /tmp) and unlinked at once
// (O_TMPFILE, or a name removed as soon as it is open): nothing is left
// behind, whatever stops the run. Internal to tools/ops/compact.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/offset_map.h"
#include "lib/status.h"

namespace kseg::compact {

class Spill {
 public:
  static constexpr int kBuckets = 1024;
  // Files in `dir` (empty: $TMPDIR, else /tmp); write buffers of at most
  // `buffer_bytes` in all.
  static Result<std::unique_ptr<Spill>> create(const std::string& dir, int64_t buffer_bytes);
  ~Spill();
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;

  // A record the cleaning pass will look up, in log order (offsets strictly
  // increasing: the caller checks); `holds`: the map would hold it (a keyed
  // record of the dirty section outside an aborted transaction).
  Status add(const KeyDigest& key, int64_t offset, bool holds);
  // Writes what the buffers hold and answers every bucket through `map`
  // (cleared before each): fails when one bucket has more than
  // `max_entries` keys. `keys`: the distinct keys of all buckets.
  Status resolve(OffsetMap& map, int64_t max_entries, int64_t& keys);
  // In log order again, after resolve(): whether a later record of `key`
  // supersedes the one at `offset`.
  Result<bool> superseded(const KeyDigest& key, int64_t offset);

  int64_t bytes_written() const { return written_; }  // to both files
  const std::string& dir() const { return dir_; }      // where they are
  int64_t records() const { return records_; }
  int64_t superseded_records() const { return superseded_count_; }

 private:
  struct Bucket;
  Spill(int entries_fd, int lists_fd, int64_t chunk_bytes);
  Status flush(Bucket& b);
  Status read_at(int fd, int64_t at, uint8_t* into, int64_t n, const char* what);

  int entries_fd_ = -1, lists_fd_ = -1;
  std::string dir_;
  int64_t chunk_bytes_ = 0;
  std::vector<Bucket> buckets_;
  int64_t entries_end_ = 0, lists_end_ = 0;
  int64_t written_ = 0, records_ = 0, superseded_count_ = 0;
};

}  // namespace kseg::compact
