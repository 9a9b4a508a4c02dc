// SPDX-License-Identifier: Apache-2.0
// Producer state replayed over a partition's batches, in log order, the way
// Kafka's recovery does (ProducerAppendInfo): it yields the aborted
// transactions each segment's .txnindex must hold and the state each
// producer snapshot must record.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/producer_snapshot.h"
#include "lib/mapped_file.h"
#include "formats/txn_index.h"
#include "tools/ops/verify/verify_log.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

struct SnapshotFile {
  std::string path;
  int64_t offset = 0;  // from the file name: state of offsets below it
  std::vector<producer_snapshot::ProducerEntry> entries;
  bool compared = false;
};

// Reads and validates every snapshot (snapshot.corrupt / snapshot.crc);
// returns the readable ones sorted by offset.
std::vector<SnapshotFile> read_snapshots(const std::vector<std::pair<int64_t, std::string>>& files, Findings& f);

// An ABORT marker as the replay saw it. The log cleaner removes an aborted
// transaction's data but keeps the marker, and the .txnindex entry made when
// the data was there, so an entry may name offsets the log no longer holds.
struct ReplayedAbort {
  txn_index::AbortedTxn txn;  // what the .txnindex must hold; first_offset -1: no data left
  int64_t data_floor = -1;    // the producer's last data offset before the transaction's data
  bool marker_removed = false;  // taken from the .txnindex: no batch holds the marker's offset
  // The transaction was open across an offset gap [gap_begin, gap_end): an
  // earlier marker of the producer may have been in it (bytes a repair cut
  // out), so the transaction may have begun anywhere from gap_begin.
  int64_t gap_begin = -1, gap_end = -1;
  int64_t lso_without_gaps = -1;  // the LSO not counting transactions open across a gap
};

class ProducerReplay {
 public:
  // `snapshots` sorted by offset; one at `start_offset` seeds the open
  // transactions of producers whose earlier batches are gone.
  ProducerReplay(std::vector<SnapshotFile> snapshots, int64_t start_offset);

  // Before the segment's first batch: reads its .txnindex (`txn_path`; not
  // opened unless `listed`, the directory listing having it as a regular
  // file), so that an entry whose marker is gone from the log (an offset
  // gap) ends the transaction where the marker was.
  void begin_segment(const std::string& txn_path, bool listed);
  // Replays one batch of the segment being scanned.
  void batch(const BatchInfo& b, Findings& f);
  // After the segment's last batch: checks its .txnindex (`txn_path`, which
  // may not exist) against the aborts found in it.
  void end_segment(const SegmentScan& s, const std::string& txn_path, Findings& f);
  // After the last segment: snapshots at the log end or above it.
  void finish(int64_t log_end_offset, bool tail_damaged, Findings& f);

 private:
  struct Producer {
    bool has_batch = false;
    BatchInfo last;               // last data batch
    int64_t open_txn_first = -1;  // first offset of the ongoing transaction
    int64_t data_floor = -1;      // last data offset before it
    int64_t gap_begin = -1, gap_end = -1;  // the first offset gap the open transaction spans
  };
  void apply(const BatchInfo& b);
  // Ends, as their markers would have, the transactions of the segment's
  // entries below `offset` that no batch held.
  void pass_removed_markers(int64_t offset);
  void note_gap(const BatchInfo& b);
  void cover(const BatchInfo& b);
  // True when no batch of the log holds `offset`: the cleaner removed it.
  bool removed(int64_t offset) const;
  // Compares the snapshots at or below `offset` not compared yet: the state
  // now holds every batch below it.
  void compare_snapshots_below(int64_t offset, Findings& f);
  void compare(SnapshotFile& snap, Findings& f);

  std::vector<SnapshotFile> snapshots_;
  std::map<int64_t, Producer> producers_;
  std::vector<ReplayedAbort> aborts_;  // in the segment being scanned
  std::optional<MappedFile> txn_file_;          // the segment's .txnindex, read at its start and end
  std::vector<txn_index::AbortedTxn> entries_;  // its entries, by lastOffset
  std::vector<bool> entry_held_;               // a batch holds the entry's lastOffset
  size_t next_entry_ = 0;
  int64_t start_offset_;
  bool seeded_ = false;  // open transactions at start_offset_ are known
  // Offsets the snapshots name, and whether a batch of the log holds each:
  // bounded by the snapshots' size, not the log's.
  std::vector<int64_t> watched_;
  std::vector<bool> covered_;
  int64_t next_offset_;    // past the last v2 batch replayed
  bool compacted_ = false;  // an offset gap seen: only the cleaner makes them
};

// `mf`: the .txnindex at `path`, or null where there is none.
// `compacted`: the log has offset gaps, so entries may name removed data.
void check_txn_index(const std::string& path, const MappedFile* mf, const SegmentScan& s,
                     const std::vector<ReplayedAbort>& replayed, bool state_known, bool compacted, Findings& f);

}  // namespace kseg
