// SPDX-License-Identifier: Apache-2.0
// A partition built from batches kseg's own encoders write (formats/
// batch_v2.h, control.h, legacy.h), after Redpanda's disk_log_builder: for
// a test that needs a layout no corpus case has (many segments, an empty
// active segment, gaps, an open transaction, a fault at a chosen batch),
// instead of copying and patching fixtures by hand. It writes .log files
// only: a test that needs indexes or state files runs kseg-reindex on the
// result, and any expectation Kafka can produce comes from Kafka (the
// oracle tiers), not from here. Kafka-written bytes go in with raw().
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/codec.h"

namespace kseg::test {

// One batch of PartitionBuilder::batch (a nested struct with defaults
// cannot be a default argument inside its class).
struct BuiltBatch {
  int records = 1;
  Codec codec = Codec::none;
  int8_t magic = 2;                      // 0 or 1: one legacy message a record (or a wrapper, compressed)
  std::optional<int64_t> timestamp = {}; // of the first record (each next +1 ms); none: after the last batch's
  int64_t producer_id = -1;              // -1: no producer (and no sequence)
  int16_t producer_epoch = 0;
  std::optional<int32_t> base_sequence = {};  // none: the producer's next, counted by the builder
  bool transactional = false;
  int32_t leader_epoch = 0;
  std::string key = "key";               // record at offset o: key "<key>-<o>" (null when empty), value "value-<o>"
};

class PartitionBuilder {
 public:
  using Batch = BuiltBatch;

  // <dir> is made if missing; nothing is written before write().
  explicit PartitionBuilder(std::filesystem::path dir);

  // A batch at the next offset.
  PartitionBuilder& batch(const Batch& b = {});
  PartitionBuilder& batches(int n, const Batch& b = {});
  // A transaction marker (a v2 control batch of one record) at the next offset.
  PartitionBuilder& marker(bool commit, int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch = 0);
  // The next batch starts `offsets` further on (a gap, as compaction leaves).
  PartitionBuilder& skip(int64_t offsets);
  // A new segment, named by the next offset; a roll with no batch after it
  // leaves an empty active segment (a roll of a segment still empty names
  // that one anew).
  PartitionBuilder& roll();
  // Bytes appended to the current segment as they are (Kafka-written
  // batches, damage); the next offset is not moved.
  PartitionBuilder& raw(std::span<const uint8_t> bytes);

  int64_t next_offset() const { return next_; }
  // Where each entry the builder appended to the current segment starts.
  const std::vector<size_t>& positions() const { return segments_.back().positions; }
  // The .log files, oldest first; returns their paths.
  std::vector<std::filesystem::path> write() const;

 private:
  struct Segment {
    int64_t base = 0;
    std::vector<uint8_t> bytes;
    std::vector<size_t> positions;
  };
  std::filesystem::path dir_;
  std::vector<Segment> segments_;
  int64_t next_ = 0;
  int64_t next_timestamp_ = 1700000000000;
  std::map<int64_t, int32_t> sequences_;  // producer id -> next sequence
};

}  // namespace kseg::test
