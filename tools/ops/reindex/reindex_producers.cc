// SPDX-License-Identifier: Apache-2.0
// kseg-reindex --producer-state: the .txnindex files and producer snapshots
// Kafka 4.4's LogLoader leaves when it recovers every segment of a partition
// (each .index missing), replayed step by step as Kafka takes them:
//   per segment, in offset order, LogLoader.recoverSegment: a fresh
//     ProducerStateManager, UnifiedLog.rebuildProducerState up to the
//     segment's base (snapshots above it or at/below the log start deleted,
//     the newest left loaded, expired producers dropped, the segments loaded
//     so far replayed from it), LogSegment.recover (every v2 batch applied,
//     each ABORT of a transaction with data appended to the .txnindex with
//     the LSO), a snapshot at the map end;
//   removeStraySnapshots over the segment bases; the loader's own
//     rebuildProducerState up to the log end, as after a clean shutdown.
// Snapshot contents depend on the clock (expiration at each load: --now) and
// on producer.id.expiration.ms; entry order is Kafka's HashMap's.
#include <algorithm>
#include <filesystem>
#include <map>

#include "formats/batch_v2.h"
#include "formats/file_names.h"
#include "formats/partition_layout.h"
#include "formats/producer_state.h"
#include "formats/txn_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/producer_start.h"
#include "tools/ops/reindex/reindex.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;
using producer_snapshot::ProducerEntry;

namespace {

// A snapshot file as the managers see the directory: one on disk (read only
// when a manager loads it), or one this replay wrote, kept encoded (46 bytes
// a producer) until it is planned.
struct Snap {
  std::string path;            // on disk: the file as it is
  std::vector<uint8_t> bytes;  // written by the replay
  int64_t producers = 0;
};

// One ProducerStateManager: its map and its two offsets.
struct Manager {
  ProducerState state;
  int64_t last_map = 0, last_snap = 0;
};

class Replay {
 public:
  Replay(const std::vector<KeptLog>& logs, const ProducerStateOptions& o) : logs_(logs), o_(o) {
    for (const auto& l : logs_) bases_.push_back(l.base.value);  // in offset order
  }

  Status run(const std::string& dir, int64_t log_start_ck, int64_t log_end) {
    auto layout = read_partition_layout(dir);
    if (!layout.ok()) return layout.error().in(dir);
    for (const auto& [offset, name] : layout->snapshots) {
      snaps_[offset.value] = Snap{dir + "/" + name, {}, 0};
      names_[offset.value] = name;
    }
    txns_.resize(logs_.size());
    for (size_t i = 0; i < logs_.size(); ++i) {
      Manager m;
      KSEG_RETURN_IF_ERROR(rebuild(m, i, logs_[i].base.value, log_start_ck, false));
      KSEG_RETURN_IF_ERROR(recover(m, i));
      take_snapshot(m);
    }
    remove_strays();
    Manager m;
    const int64_t start = logs_.empty() ? log_start_ck : std::max(log_start_ck, logs_.front().base.value);
    return rebuild(m, logs_.size(), log_end, start, true);
  }

  const std::vector<std::vector<txn_index::AbortedTxn>>& txns() const { return txns_; }
  std::map<int64_t, Snap>& snaps() { return snaps_; }
  const std::map<int64_t, std::string>& names() const { return names_; }

 private:
  void take_snapshot(Manager& m) {
    if (m.last_map <= m.last_snap) return;
    const auto entries = m.state.kafka_order();
    snaps_[m.last_map] = Snap{"", producer_snapshot::encode(entries), static_cast<int64_t>(entries.size())};
    m.last_snap = m.last_map;
  }

  // ProducerStateManager.loadFromSnapshot: the newest readable snapshot;
  // an unreadable one is deleted and the next tried.
  Status load_newest(Manager& m, int64_t log_start) {
    while (!snaps_.empty()) {
      auto it = std::prev(snaps_.end());
      std::vector<uint8_t> read;
      if (!it->second.path.empty()) {
        auto bytes = MappedFile::read_state_file(it->second.path);
        if (!bytes.ok()) return bytes.error().in(it->second.path);
        read = std::move(*bytes);
      }
      auto snap = producer_snapshot::read(it->second.path.empty() ? it->second.bytes : read);
      if (!snap.ok()) {
        snaps_.erase(it);
        continue;
      }
      m.state.load(snap->entries, o_.now_ms, o_.expiration_ms);
      m.last_snap = m.last_map = it->first;
      return {};
    }
    m.last_snap = m.last_map = log_start;
    return {};
  }

  // UnifiedLog.rebuildProducerState over the first `loaded` segments, on a
  // fresh manager (map end 0, empty).
  Status rebuild(Manager& m, size_t loaded, int64_t target, int64_t log_start, bool clean_shutdown) {
    std::vector<int64_t> snapshot_at;
    if (loaded >= 2) snapshot_at.push_back(logs_[loaded - 2].base.value);
    if (loaded >= 1) snapshot_at.push_back(logs_[loaded - 1].base.value);
    snapshot_at.push_back(target);
    auto wanted = [&](int64_t o) { return std::find(snapshot_at.begin(), snapshot_at.end(), o) != snapshot_at.end(); };
    if (clean_shutdown && snaps_.empty()) {  // the upgrade shortcut: empty snapshots, no scan
      for (int64_t o : snapshot_at) {
        m.last_map = o;
        take_snapshot(m);
      }
      return {};
    }
    const bool empty_before = target <= 0;
    // truncateAndReload: out-of-range snapshots go; a fresh manager's map end
    // is 0, so it reloads unless the target is 0 (then onLogStartOffsetIncremented).
    snaps_.erase(snaps_.upper_bound(target), snaps_.end());
    snaps_.erase(snaps_.begin(), snaps_.upper_bound(log_start));
    if (target != 0) {
      KSEG_RETURN_IF_ERROR(load_newest(m, log_start));
    } else {
      m.last_map = std::max(m.last_map, log_start);
      m.last_snap = snaps_.empty() ? log_start : snaps_.rbegin()->first;
    }
    if (target > m.last_map && !empty_before) {
      // LogSegments.values(mapEnd, target): from the segment holding the
      // map end (the first when none does) to the last below the target.
      auto bases_end = bases_.begin() + static_cast<std::ptrdiff_t>(loaded);
      auto floor = std::upper_bound(bases_.begin(), bases_end, m.last_map);
      size_t first = floor == bases_.begin() ? 0 : static_cast<size_t>(floor - bases_.begin()) - 1;
      for (size_t j = first; j < loaded && logs_[j].base.value < target; ++j) {
        const int64_t base = logs_[j].base.value;
        const int64_t from = std::max({base, m.last_map, log_start});
        m.last_map = from;
        if (wanted(base)) take_snapshot(m);
        m.state.begin_read();
        Status st = for_each_batch(j, [&](const EntryRef& e) -> Result<bool> {
          const int64_t last = v2::last_offset_of(e);
          if (last < from) return true;
          if (last >= target && j + 1 == loaded) return false;  // at maxPosition
          if (Status applied = m.state.apply(e); !applied.ok()) return applied.error();
          return true;
        });
        m.state.end_read();
        KSEG_RETURN_IF_ERROR(st);
      }
    }
    m.last_map = target;
    take_snapshot(m);
    return {};
  }

  // LogSegment.recover's producer part.
  Status recover(Manager& m, size_t i) {
    return for_each_batch(i, [&](const EntryRef& e) -> Result<bool> {
      if (e.magic < 2) return true;
      Applied a;
      if (Status st = m.state.apply(e, &a); !st.ok()) return st.error();
      if (a.aborted) txns_[i].push_back(*a.aborted);
      const int64_t last = v2::last_offset_of(e);
      m.last_map = static_cast<int64_t>(static_cast<uint64_t>(last) + 1);  // Java's long wraps
      return true;
    });
  }

  // ProducerStateManager.removeStraySnapshots (producer_start.h).
  void remove_strays() {
    std::vector<int64_t> offsets;
    for (const auto& [o, snap] : snaps_) offsets.push_back(o);
    const std::vector<int64_t> kept = snapshots_kept_of_strays(offsets, bases_);
    for (int64_t o : offsets)
      if (!std::binary_search(kept.begin(), kept.end(), o)) snaps_.erase(o);
  }

  // Every entry of segment `i` as the plan leaves it, until `fn` says false.
  template <typename Fn>
  Status for_each_batch(size_t i, Fn&& fn) {
    const KeptLog& l = logs_[i];
    auto f = MappedFile::open(l.path);
    if (!f.ok()) return f.error().in(l.path);
    for (const auto& r : l.ranges) {
      if (r.begin.value + r.size.bytes > f->size()) return Status::fail(Errc::io, r.begin, l.path + ": shrank");
      const Bytes part = f->bytes().subspan(static_cast<size_t>(r.begin.value), static_cast<size_t>(r.size.bytes));
      EntryScanner scanner(part, r.begin);
      while (auto e = scanner.next()) {
        f->release_before(e->position);
        Result<bool> more = fn(*e);
        if (!more.ok()) return more.error().in(l.path);
        if (!*more) return {};
      }
    }
    return {};
  }

  const std::vector<KeptLog>& logs_;
  std::vector<int64_t> bases_;
  const ProducerStateOptions& o_;
  std::map<int64_t, Snap> snaps_;
  std::map<int64_t, std::string> names_;  // of the snapshot files on disk
  std::vector<std::vector<txn_index::AbortedTxn>> txns_;
};

}  // namespace

Status plan_producer_state(const std::string& dir, const std::vector<KeptLog>& logs, int64_t log_end,
                           const ProducerStateOptions& o, safe::Plan& plan) {
  auto ck = partition_checkpoint(dir, RootCheckpoint::log_start);  // LogManager's default: 0
  if (!ck.ok()) return ck.status();
  Replay r(logs, o);
  KSEG_RETURN_IF_ERROR(r.run(dir, ck->value_or(0), log_end));
  for (size_t i = 0; i < logs.size(); ++i) {
    const std::string name = file_names::segment_file_name(logs[i].base, FileKind::txnindex);
    std::vector<uint8_t> want = txn_index::encode(r.txns()[i]);
    std::error_code ec;
    const bool exists = fs::exists(dir + "/" + name, ec);
    if (!exists && want.empty()) continue;  // Kafka creates the file at its first entry
    if (exists) {
      auto have = MappedFile::read_state_file(dir + "/" + name);
      if (!have.ok()) return have.error().in(dir + "/" + name);
      if (*have == want) continue;
    }
    const size_t n = r.txns()[i].size();
    plan.actions.push_back(safe::Action::write(
        name, std::move(want),
        fmt::format("rebuilt as Kafka's recovery writes it: {} aborted transaction{}{}", n, n == 1 ? "" : "s",
                    exists ? "" : " (was missing)")));
  }
  for (const auto& [offset, name] : r.names())
    if (!r.snaps().count(offset))
      plan.actions.push_back(safe::Action::remove(
          name, "producer snapshot Kafka's recovery does not keep (past the log end, at or below the log start, "
                "unreadable, or not at a segment base)"));
  for (auto& [offset, s] : r.snaps()) {
    if (!s.path.empty()) continue;  // a file on disk Kafka leaves as it is
    auto on_disk = r.names().find(offset);
    if (on_disk != r.names().end()) {
      auto have = MappedFile::read_state_file(dir + "/" + on_disk->second);
      if (have.ok() && *have == s.bytes) continue;
    }
    const int64_t n = s.producers;
    plan.actions.push_back(safe::Action::write(
        file_names::segment_file_name(Offset{offset}, FileKind::snapshot), std::move(s.bytes),
        fmt::format("producer state at offset {} as Kafka's recovery writes it: {} producer{}", offset, n,
                    n == 1 ? "" : "s")));
  }
  return {};
}

}  // namespace kseg
