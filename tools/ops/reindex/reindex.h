// SPDX-License-Identifier: Apache-2.0
// kseg-reindex: rebuild .index and .timeindex files from the .log exactly as
// Kafka's LogSegment.recover writes them, and with --recover cut a partition
// at its first invalid batch as Kafka's unclean-shutdown recovery does
// (truncate that segment, delete every later one), or with --salvage keep
// every valid batch around the invalid bytes (segment_salvage.h). All writes
// go through safe_write.h. See man/kseg-reindex.1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/segment_recover.h"
#include "lib/mapped_file.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/partition/topic_settings.h"
#include "tools/ops/write/safe_write.h"
#include "tools/ops/write/writer_run.h"

namespace kseg {

class Sink;

// What to do with invalid bytes in a .log.
enum class Repair {
  none,     // report them (exit 1), rebuild indexes over the valid part
  recover,  // Kafka's unclean recovery: truncate there, delete later segments
  salvage,  // cut out only the invalid bytes, keep later batches and segments
};

// Producer state: --producer-state, or a repair that changes a .log.
struct ProducerStateOptions {
  bool rebuild = false;
  int64_t now_ms = 0;                  // Kafka's clock when it loads a snapshot (producer expiration)
  int64_t expiration_ms = 86400000;    // producer.id.expiration.ms
};

// paths: .log files too (a segment alone).
struct ReindexOptions : WriterOptions {
  std::optional<int32_t> index_interval_bytes;
  std::optional<int32_t> segment_index_bytes;
  // .index entry width (8, or KIP-1333's 12: experimental); unset: 8 unless
  // a segment over 2 GiB needs 12.
  std::optional<int64_t> index_entry_bytes;
  std::string topic_config;   // a properties file (index.interval.bytes, segment.index.bytes)
  std::string broker_config;  // a server.properties (log.index.interval.bytes, log.index.size.max.bytes)
  Repair repair = Repair::none;
  unsigned threads = 0;  // batches judged in parallel; 0: usable_cpus()
  bool producer_state = false;           // also rebuild .txnindex and producer snapshots
  // Indexes exactly as Kafka's recovery writes them, even where a broker's
  // serve the log (kseg-doctor --fix, before it moves a recovery point).
  bool as_recovery = false;
  int64_t producer_id_expiration_ms = 86400000;
};

// What a repair removes from the .log files: bytes, and the offsets the
// removed entries declare in their headers (damaged bytes may declare them
// wrongly: an estimate, as the plan's steps say).
struct Removed {
  int64_t bytes = 0;
  int64_t offsets = 0;  // summed over the removed ranges
  std::optional<int64_t> first, last;
  void add(int64_t n_bytes, std::optional<Offset> from, std::optional<Offset> to);
  std::string text() const;  // "21.3 KiB, 203 offsets (44..246)"
};

// The plan for one partition directory, and what it cannot fix.
struct PartitionPlan {
  safe::Plan plan;
  std::vector<Problem> problems;  // left as they are (e.g. invalid bytes without --recover/--salvage)
  std::vector<Problem> left_as_is;  // warnings on state files reindex does not rewrite (state_files.h)
  bool refused = false;           // Kafka would fail on it: nothing planned
  bool invalid_left = false;      // no repair asked for, and a .log holds invalid bytes
  Removed removed;                // by --recover or --salvage
  int64_t segments = 0;
};

// The common case, a segment of valid batches only, recovered from `log`'s
// mapping read in `block`-byte blocks by config.threads threads (at most 4;
// reindex_clean.cc), up to the size it was mapped at, dropping the pages it
// has read from the mapping. nullopt when it is not that case or anything
// fails: then recover_segment, which plan_partition falls back to, says what.
std::optional<recover::SegmentRecovery> recover_clean(MappedFile& log, Offset base, const recover::Config& config,
                                                      size_t block = 2u << 20);

// `only_base`: plan just that segment (a .log path was given; producer
// state is then left alone). `keep_serving`: a plain run keeps an index
// that serves its log though Kafka's recovery would write another
// (formats/index_serves.h); false when the index settings were set on the
// command line, to rewrite with them.
Result<PartitionPlan> plan_partition(const std::string& dir, const recover::Config& config, Repair repair,
                                     std::optional<Offset> only_base = std::nullopt,
                                     const ProducerStateOptions& producers = {}, bool keep_serving = false);

// A segment as the plan leaves it: its .log is `ranges` of the file at `path`.
struct KeptLog {
  Offset base;
  std::string path;
  std::vector<safe::ByteRange> ranges;
};

// reindex_producers.cc: the .txnindex of each of `logs` (the partition's
// segments in order, ending at `log_end`) and the producer snapshots, as
// Kafka's recovery of every segment leaves them; plans what differs.
Status plan_producer_state(const std::string& dir, const std::vector<KeptLog>& logs, int64_t log_end,
                           const ProducerStateOptions& o, safe::Plan& plan);

// Runs a whole reindex; returns the exit code.
int run_reindex(const ReindexOptions& options, Sink& out, Sink& err);

// One partition directory as run_reindex repairs it (o.paths is not read),
// under `lock`, which the caller took on its log dir and holds for its whole
// run: kseg-doctor --fix applies its plan through it. Returns the exit code.
// With `changed`, it prints nothing but errors and says there whether it
// wrote anything or had anything to say (a caller then plans it again).
int reindex_one(const std::string& dir, const ReindexOptions& o, const TopicSettings& settings, const safe::DirLock& lock,
                Sink& out, Sink& err, bool* changed = nullptr);

}  // namespace kseg
