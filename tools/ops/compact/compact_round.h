// SPDX-License-Identifier: Apache-2.0
// One cleaning round over a loaded partition: the plan (sections, bounds,
// groups), the offset map, and the cleaned segments written and swapped in.
// Internal to tools/ops/compact.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/checkpoint_file.h"
#include "formats/producer_snapshot.h"
#include "formats/txn_index.h"
#include "lib/status.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/compact/compact_config.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::compact {

// A partition as a round reads it: the loaded partition
// (partition/partition.h) and what only cleaning needs of it.
struct Input : Partition {
  using Partition::path;
  std::vector<int64_t> largest_timestamps;                 // per segment (LogSegment.largestTimestamp)
  std::vector<std::vector<txn_index::AbortedTxn>> aborted;  // per segment, its .txnindex
  std::vector<std::pair<int64_t, std::string>> loader_deletes;  // snapshots Kafka's load deletes
  int64_t hw = 0;
  bool hw_from_checkpoint = false;
  bool cleaner_present = false;
  std::optional<int64_t> cleaner_line;
  std::vector<checkpoint::TopicPartitionOffset> cleaner_entries;
  std::map<int64_t, producer_snapshot::ProducerEntry> producers;  // at the log end
  std::string path(int64_t base, const char* suffix) const;
};

// Reads what a round needs. Refuses (Errc::refused) a missing .index of an
// inactive segment, and finishes an interrupted swap first as LogLoader does
// (reported in `notes`) under `held` (none: a dry run, which refuses it).
// `swaps_as_they_are`: an interrupted swap is neither finished nor refused
// (kseg-doctor's outlook, which reads only; the segments as they are now).
Result<Input> load(const std::string& dir, const safe::DirLock* held, std::vector<Problem>& notes,
                   bool swaps_as_they_are = false);

struct Counts {
  int64_t batches = 0, records = 0, bytes = 0;
};

struct Group {
  std::vector<int64_t> bases;
  int64_t bytes_in = 0, bytes_out = 0;
};

struct RoundStats {
  int64_t first_dirty = 0, first_uncleanable = 0, uncleanable = 0, active_base = 0, lso = 0;
  std::string stopped_by;  // what sets the uncleanable offset
  bool reset_checkpoint = false;  // the checkpoint was below the log start or past the end
  int64_t clean_bytes = 0, cleanable_bytes = 0;
  int64_t end_offset = 0;          // the map's latest offset + 1: where this round ends
  bool map_full = false;           // the dirty section did not fit the map
  int64_t map_keys = 0, map_capacity = 0, map_records = 0;
  // One pass (RoundOptions::one_pass) whose keys did not fit: what went
  // through the spill files (compact_spill.h).
  bool spilled = false;
  int64_t spill_records = 0, spill_bytes = 0;
  std::string spill_dir;         // where the spill files were
  bool spill_elsewhere = false;  // not the partition's directory (a dry run's: $TMPDIR)
  Counts read, kept;
  int64_t records_superseded = 0, records_unkeyed = 0, records_aborted = 0;
  int64_t tombstones_kept = 0, tombstones_removed = 0, tombstones_stamped = 0;
  int64_t markers_kept = 0, markers_removed = 0, markers_stamped = 0;
  int64_t batches_emptied = 0, batches_rebuilt = 0;
  std::optional<int64_t> next_horizon;  // the earliest delete horizon still ahead of `now`
  std::vector<Group> groups;
  std::vector<std::string> open_txns;  // producers whose open transaction holds the LSO
};

struct RoundOptions {
  int64_t now_ms = 0;
  bool dry_run = false;
  bool backup = true;
  std::string backup_dir;
  std::string* backup_into = nullptr;  // the run's backup directory, once made
  const safe::DirLock* held = nullptr;  // the run's lock (none under dry_run)
  safe::Space* space = nullptr;         // added to: what each group's swap replaced, wrote and kept
  // --until-clean: fail (Errc::usage, naming the map size that would do)
  // before anything is written when the map fills inside the round's first
  // segment, rather than run a round per map of keys.
  bool refuse_small_map = false;
  // kseg-compact's own map (Settings::map_given unset): when the dirty
  // section's keys do not fit, they are spilled (compact_spill.h) and the
  // round still cleans all of it; the spill's write buffers take at most
  // `spill_buffer_bytes`.
  bool one_pass = false;
  int64_t spill_buffer_bytes = 0;
  int number = 0;  // the run's round, for the progress line (0: none said; kseg-doctor's pricing)
  // Only the bounds and the clean and cleanable bytes: no map, nothing read
  // but what load() read (the cleaner's choice of a log, kseg-doctor).
  bool bounds_only = false;
};

// Plans and (unless dry_run) runs one round. Nothing dirty: stats with
// end_offset == first_dirty and no groups.
Result<RoundStats> clean_round(const Input& p, const Settings& s, const RoundOptions& o);

}  // namespace kseg::compact
