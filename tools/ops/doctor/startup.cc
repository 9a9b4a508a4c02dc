// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/startup.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/txn_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/log_end.h"
#include "tools/ops/partition/swap.h"

namespace kseg::doctor {

using file_names::FileKind;

const char* recover_why_text(RecoverWhy w) {
  switch (w) {
    case RecoverWhy::none: return "loaded as it is";
    case RecoverWhy::unclean: return "unclean shutdown: at or after the recovery point";
    case RecoverWhy::no_index: return "no .index";
    case RecoverWhy::txnindex: return ".txnindex fails the sanity check";
  }
  return "?";
}

namespace {

// TransactionIndex.sanityCheck as LogSegment.sanityCheck calls it at load:
// an entry ending below the base offset is a CorruptIndexException (the
// segment is recovered); a version above 0 throws a KafkaException nothing
// catches (the broker stops).
struct TxnSanity {
  bool recover = false;
  std::optional<std::string> fails;
};
Result<TxnSanity> txnindex_sanity(const Segment& s) {
  TxnSanity out;
  if (!s.has(FileKind::txnindex)) return out;
  const std::string path = s.path(FileKind::txnindex);
  auto f = MappedFile::open(path);
  if (!f.ok()) return f.error().in(path);
  const txn_index::View v(f->bytes());
  for (int64_t i = 0; i < v.entry_count(); ++i) {
    if (Status st = txn_index::check_version(v, i, path); !st.ok()) {
      out.fails = fmt::format("KafkaException: {}", st.error().message);
      return out;
    }
    if (v.entry(i).last_offset < s.base) {  // CorruptIndexException: the first entry that fails decides
      out.recover = true;
      return out;
    }
  }
  return out;
}

// Where the segment's offsets end as the files hold them now.
int64_t end_now(const Partition& p, size_t i) {
  return i + 1 < p.segments.size() ? p.segments[i + 1].base : p.log_end;
}

// Whether recovery's indexes of a `size`-byte segment cannot fill up: its
// entries are at least index.interval.bytes + 1 apart, after the first
// interval; the time index keeps its last slot for the final entry.
bool indexes_fit(int64_t size, const recover::Config& c) {
  const int64_t most = size > 0 ? (size - 1) / (static_cast<int64_t>(c.index_interval_bytes) + 1) : 0;
  return most < c.segment_index_bytes / 8 && most < c.segment_index_bytes / 12 - 1;
}

// The partition as LogLoader's first passes leave it (partition/swap.h): the
// segments a swap covers gone, the swapped-in ones in their place (read from
// their .swap files), the snapshots in the covered offsets gone.
Result<Partition> finish_swaps(const Partition& given) {
  auto plan = plan_swap_finish(given.dir, given.layout);
  if (!plan.ok()) return plan.error();
  Partition p = given;
  if (plan->empty()) return p;
  auto covered = [&](int64_t o) { return o >= plan->lo && o < plan->hi; };
  std::erase_if(p.segments, [&](const Segment& s) { return covered(s.base); });
  std::erase_if(p.snapshots, [&](const auto& s) { return covered(s.first); });
  for (const auto& [base, name] : plan->renamed) {
    auto n = file_names::parse_segment_file_name(name);
    if (!n.ok() || n->kind != FileKind::log) continue;
    Segment seg;
    seg.base = base;
    seg.stem = p.dir + "/" + fmt::format("{:020d}", base);
    seg.transient = ".swap";
    for (const auto& [b, other] : plan->renamed)  // the indexes swapped in with it
      if (auto m = file_names::parse_segment_file_name(other); b == base && m.ok()) seg.files.names[m->kind] = other;
    // Without one, reading the swap's next offset creates an empty .index.swap, renamed with the
    // rest: the segment loads with it (seen with 4.4.0: no recovery, an index of zeros).
    if (!seg.has(FileKind::index)) seg.files.names[FileKind::index] = fmt::format("{:020d}.index.swap", base);
    std::error_code ec;
    seg.size = static_cast<int64_t>(std::filesystem::file_size(seg.path(FileKind::log), ec));
    if (ec) return Error{Errc::io, std::nullopt, fmt::format("{}: cannot stat", seg.path(FileKind::log))};
    p.segments.push_back(std::move(seg));
  }
  std::sort(p.segments.begin(), p.segments.end(), [](const Segment& a, const Segment& b) { return a.base < b.base; });
  if (!p.segments.empty() && covered(p.segments.back().base)) {  // the swap is the last segment: its end is the log's
    auto end = segment_next_offset(p.segments.back().path(FileKind::log), p.segments.back().base);
    if (!end.ok()) return end.error();
    p.log_end = *end;
  }
  return p;
}

}  // namespace

namespace {

// UnifiedLog makes the partition's LeaderEpochFileCache before LogLoader
// loads a segment: a leader-epoch-checkpoint that does not read throws there
// (an IOException through CheckpointFileWithFailureHandler, which also takes
// the log dir offline; a NumberFormatException), and so does an entry with a
// negative epoch or offset (LeaderEpochFileCache.assign). Entries that do not
// increase are dropped, not thrown on.
std::optional<std::string> epoch_cache_throws(const Partition& p) {
  if (!p.layout.state_files.contains("leader-epoch-checkpoint")) return std::nullopt;
  const std::string path = p.dir + "/leader-epoch-checkpoint";
  auto bytes = MappedFile::read_state_file(path);
  if (!bytes.ok()) return fmt::format("{}: IOException: {}", path, bytes.error().message);
  checkpoint::Failure failure = checkpoint::Failure::io_exception;
  auto entries = checkpoint::parse_leader_epoch_checkpoint(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path, Position{0}, &failure);
  if (!entries.ok())
    return failure == checkpoint::Failure::io_exception
               ? fmt::format("{}: IOException: {} (the log dir goes offline)", path, entries.error().message)
               : fmt::format("{}: {}: {}", path,
                             entries.error().message.find("Illegal Capacity") != std::string::npos
                                 ? "IllegalArgumentException"  // a negative count
                                 : "NumberFormatException",
                             entries.error().message);
  for (const auto& e : *entries)
    if (e.epoch < 0 || e.start_offset < 0)
      return fmt::format("{}: IllegalArgumentException: Received invalid partition leader epoch entry "
                         "EpochEntry(epoch={}, startOffset={})",
                         path, e.epoch, e.start_offset);
  return std::nullopt;
}

}  // namespace

Result<Startup> predict_startup(const Partition& given, bool clean, const recover::Config& config, bool metadata_log,
                                const std::set<int64_t>& clean_logs) {
  auto finished = finish_swaps(given);
  if (!finished.ok()) return finished.error();
  const Partition& p = *finished;
  Startup s;
  s.clean_shutdown = clean && !metadata_log;
  s.log_start_line = metadata_log ? std::nullopt : p.log_start_line;
  s.log_end_before = p.log_end;
  if (metadata_log) s.recovery_point = 0;
  // An unreadable checkpoint is read as empty (LogManager.loadLogs): recovery point 0.
  else if (auto rp = partition_checkpoint(p.dir, RootCheckpoint::recovery_point); rp.ok()) s.recovery_point = *rp;
  const int64_t recovery_point = s.recovery_point.value_or(0);
  // (The metadata log too: KafkaMetadataLog makes a UnifiedLog, which reads its epoch checkpoint.)
  if (auto thrown = epoch_cache_throws(p)) {
    s.fails = std::move(*thrown);
    s.log_end_after = p.log_end;
    return s;
  }
  const size_t n = p.segments.size();
  s.segments.resize(n);
  std::vector<std::optional<recover::SegmentRecovery>> done(n);

  // Recovers segment i once (a segment recovered at load is not cut again by
  // the unclean pass: its bytes are already trimmed). False when Kafka throws.
  auto recover_one = [&](size_t i, RecoverWhy why) -> Result<bool> {
    SegmentFate& f = s.segments[i];
    if (why == RecoverWhy::unclean) f.unclean_pass = true;
    if (f.why != RecoverWhy::none) {  // read again: its bytes were trimmed at load, so nothing more is cut
      s.bytes_to_scan += f.size - f.truncated_bytes;
      return true;
    }
    f.why = why;
    ++s.recovered;
    s.bytes_to_scan += f.size;
    if (clean_logs.contains(f.base) && p.segments[i].transient.empty() && indexes_fit(f.size, config))
      return true;  // kept whole: nothing to cut (a swapped-in .log is not the one verify read)
    auto log = MappedFile::open(p.segments[i].path(FileKind::log));
    if (!log.ok()) return log.error().in(p.segments[i].path(FileKind::log));
    auto r = recover::recover_segment(log->bytes(), Offset{f.base}, config);
    bool invalid_offset = false;  // LogLoader empties the segment (InvalidOffsetException)
    if (!r.ok()) {
      const std::string& m = r.error().message;
      // LogLoader.retryOnOffsetOverflow splits such a segment and loads again: not modelled.
      if (m.find("LogSegmentOffsetOverflowException") != std::string::npos)
        return Error{Errc::refused, std::nullopt,
                     fmt::format("{}: an offset beyond 2^31-1 of its base: Kafka splits the segment and loads again "
                                 "(not predicted further)",
                                 p.segments[i].path(FileKind::log))};
      // InvalidOffsetException: the unclean pass empties the segment; at
      // load (no index, txnindex) it is not caught.
      if (why == RecoverWhy::unclean && m.find("Attempt to append") != std::string::npos) {
        recover::SegmentRecovery empty;
        empty.file_size = Length{f.size};
        empty.valid_end = Position{0};
        empty.stop_detail = m;
        done[i] = empty;
        invalid_offset = true;
      } else {
        s.fails = fmt::format("{}:{}: {}", p.segments[i].path(FileKind::log),
                              r.error().position ? r.error().position->value : 0, m);
        return false;
      }
    } else {
      done[i] = std::move(*r);
    }
    const auto& rec = *done[i];
    if (rec.truncates()) {
      f.stop_kind = invalid_offset ? "invalid_offset" : segment_end_name(rec.stop);
      f.truncated_bytes = f.size - rec.valid_end.value;
      f.stop_position = rec.valid_end.value;
      f.stop = rec.stop_detail.empty() ? f.stop_kind : fmt::format("{}: {}", f.stop_kind, rec.stop_detail);
      const int64_t new_end = rec.last_offset ? rec.last_offset->value + 1 : f.base;
      // The offsets the cut bytes declare (a torn batch's too), as kseg-reindex prices a cut.
      int64_t end = end_now(p, i);
      const auto cut = recover::describe_removed(log->bytes(), rec.valid_end, Offset{f.base});
      if (cut.last_offset) end = std::max(end, cut.last_offset->value + 1);
      f.offsets_cut = std::max<int64_t>(0, end - new_end);
    }
    return true;
  };

  for (size_t i = 0; i < n; ++i) {
    s.segments[i].base = p.segments[i].base;
    s.segments[i].size = p.segments[i].size;
  }
  // Load (LogLoader.loadSegmentFiles): a segment without .index, or whose
  // .txnindex fails the sanity check, is recovered whether or not the
  // shutdown was clean; a truncation there deletes nothing after it.
  for (size_t i = 0; i < n && !s.fails; ++i) {
    const Segment& seg = p.segments[i];
    if (!seg.has(FileKind::index)) {
      auto ok = recover_one(i, RecoverWhy::no_index);
      if (!ok.ok()) return ok.error();
      continue;
    }
    auto t = txnindex_sanity(seg);
    if (!t.ok()) return t.error();
    if (t->fails) s.fails = fmt::format("{}: {}", seg.path(FileKind::txnindex), *t->fails);
    else if (t->recover) {
      auto ok = recover_one(i, RecoverWhy::txnindex);
      if (!ok.ok()) return ok.error();
    }
  }
  // Unclean: from the segment holding the recovery point to the end; the
  // first that truncates ends the pass and every later segment is deleted.
  if (!s.clean_shutdown && !s.fails) {
    size_t from = 0;
    for (size_t i = 0; i < n; ++i)
      if (p.segments[i].base <= recovery_point) from = i;
    for (size_t i = from; i < n; ++i) {
      const bool earlier = s.segments[i].why != RecoverWhy::none;
      auto ok = recover_one(i, RecoverWhy::unclean);
      if (!ok.ok()) return ok.error();
      if (!*ok) break;
      if (!earlier && s.segments[i].truncated_bytes > 0) {
        for (size_t j = i + 1; j < n; ++j) s.segments[j].deleted = true;
        break;
      }
    }
  }
  if (s.fails) return s;
  // What is left, and the log end Kafka reads from the last segment.
  s.log_end_after = p.log_end;
  for (size_t i = 0; i < n; ++i) {
    const SegmentFate& f = s.segments[i];
    if (f.deleted) {
      s.bytes_lost += f.size;
      s.offsets_lost += std::max<int64_t>(0, end_now(p, i) - f.base);
      continue;
    }
    s.bytes_lost += f.truncated_bytes;
    s.offsets_lost += f.offsets_cut;
    if (done[i] && (i + 1 == n || s.segments[i + 1].deleted))
      s.log_end_after = done[i]->last_offset ? done[i]->last_offset->value + 1 : f.base;
  }
  // A log end below the checkpointed log start: LogLoader deletes every
  // segment and starts an empty one at the log start.
  if (s.log_start_line && s.log_end_after < *s.log_start_line && n > 0) {
    s.deletes_all = true;
    s.bytes_lost = 0;
    for (auto& f : s.segments) {
      f.deleted = true;  // "Deleting segments as part of log recovery", every one
      s.bytes_lost += f.size;
    }
    s.offsets_lost = std::max<int64_t>(0, s.log_end_before - *s.log_start_line);  // all it could serve
    s.log_end_after = *s.log_start_line;
  }
  return s;
}

}  // namespace kseg::doctor
