// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/plan.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/partition_metadata.h"
#include "lib/time_text.h"
#include "lib/work_pool.h"
#include "lib/units.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/reindex/reindex.h"

namespace kseg::doctor {

int Step::order() const {
  if (optional) return 6;
  switch (kind) {
    case salvage: return 0;
    case producer_state: return 1;
    case reindex: return 2;
    case partition_metadata: return 3;
    case set_aside: return 3;
    case by_hand: return 4;
  }
  return 5;
}

namespace {

std::string reindex_command(const char* flag, const std::string& dir) {
  return fmt::format("kseg reindex {}{}", flag, shell_word(dir));
}

// The startup's recovery of this partition, for an optional step's line.
std::string recovery_spared(const PartitionDoc& d) {
  if (!d.startup) return "nothing (spares the broker a recovery)";
  int64_t bytes = 0;
  for (const auto& g : d.startup->segments)
    if (g.why == RecoverWhy::no_index || g.why == RecoverWhy::txnindex) bytes += g.size;
  return fmt::format("nothing (spares the broker's recovery of {})", human_bytes(bytes));
}

}  // namespace

Step set_aside_step(const std::string& path, const std::string& partition) {
  const std::string name = std::filesystem::path(path).filename().string();
  // What Kafka starts with instead (LogManager: a missing checkpoint reads as empty; a directory
  // it cannot parse as <topic>-<partition> refuses the start).
  const char* loses = name == "recovery-point-offset-checkpoint"
                          ? "nothing: every recovery point is taken as 0 (after an unclean shutdown Kafka, or --fix "
                            "before it, recovers every segment)"
                      : name == "log-start-offset-checkpoint"
                          ? "the log starts DeleteRecords and retention set: each log starts at its first segment, and "
                            "records below the old start are served again until retention deletes them (records "
                            "deleted on purpose, as an erasure, come back: set the log starts by hand instead)"
                      : name == "replication-offset-checkpoint"
                          ? "the high watermarks: each starts at its log start and moves up as the replicas fetch "
                            "(nothing on disk is lost)"
                      : name == "cleaner-offset-checkpoint"
                          ? "the cleaner's progress: each compacted partition is cleaned again from its log start"
                      : name == "lost+found"
                          ? "nothing: it is empty (e2fsck makes a new lost+found when it needs one)"
                          : "nothing: it is empty";
  if (partition.empty())
    return {Step::by_hand, path, {fmt::format("(by hand) move {} out of the log dir: Kafka starts without it", path),
                                  "nothing, if what it holds is kept elsewhere"}, {}, false, name};
  return {Step::set_aside, partition,
          {fmt::format("set aside {} (kseg doctor --fix keeps it in a backup): Kafka starts without it", path), loses},
          {}, false, name};
}

void add_steps(const PartitionDoc& d, std::vector<Step>& plan) {
  switch (d.action) {
    case Action::salvage:
      if (d.salvage) plan.push_back({Step::salvage, d.dir, {reindex_command("--salvage ", d.dir), d.salvage->text()}, {}, false});
      else plan.push_back({Step::by_hand, d.dir, {fmt::format("(by hand) {}: no priced repair; see its findings", d.dir), ""}, {}, false});
      break;
    case Action::producer_state:
      plan.push_back({Step::producer_state, d.dir, {reindex_command("--producer-state ", d.dir), "nothing"}, {}, false});
      break;
    case Action::reindex: {
      std::string loses = "nothing";  // but where it rebuilds an unreadable leader-epoch-checkpoint
      for (const auto& f : d.findings)
        if (f.problem.code == Code::epoch_corrupt && !f.fixes.empty()) loses = f.fixes.front().loses;
      plan.push_back({Step::reindex, d.dir, {reindex_command("", d.dir), loses}, {}, false});
      break;
    }
    case Action::by_hand:
    case Action::none: break;
  }
  if (d.startup && d.startup->line_past_end())
    plan.push_back({Step::by_hand, d.dir,
                    {fmt::format("(by hand) {}: its log-start-offset-checkpoint line ({}) lies past its log end {}: "
                                 "lower it to at most {} to keep its records, or let Kafka delete them",
                                 d.dir, *d.startup->log_start_line, d.startup->log_end_before, d.startup->log_end_before),
                     fmt::format("{} if left", human_bytes(d.startup->bytes_lost))},
                    {}, false});
  // The partition.metadata a stray needs, and what only a person can do.
  for (const auto& f : d.findings) {
    if (!f.by_hand || f.fixes.empty()) continue;
    // Only a partition.metadata that is missing is written by --fix: another topic id most often
    // means an older incarnation of a topic deleted and made again, which Kafka sets aside on purpose.
    if (f.problem.code == Code::partition_metadata_stray && f.problem.expected.size() == 22 && f.problem.found == "none")
      plan.push_back({Step::partition_metadata, d.dir, f.fixes.front(), f.problem.expected, false});
    else
      plan.push_back({Step::by_hand, d.dir, {fmt::format("(by hand) {}: {}", f.problem.file, f.fixes.front().command), f.fixes.front().loses}, {}, false});
  }
  if (d.action == Action::none || d.action == Action::by_hand) {
    if (d.saves_recovery == Action::producer_state)
      plan.push_back({Step::producer_state, d.dir, {reindex_command("--producer-state ", d.dir), recovery_spared(d)}, {}, true});
    else if (d.saves_recovery == Action::reindex)
      plan.push_back({Step::reindex, d.dir, {reindex_command("", d.dir), recovery_spared(d)}, {}, true});
  }
}

int apply_steps(const std::vector<Step>& plan, const FixOptions& o, const TopicSettings& settings,
                const std::map<std::string, safe::DirLock>& locks, Sink& out, Sink& err) {
  int failed = 0, n = 0;
  int total = 0;
  for (const auto& s : plan) total += s.kind != Step::by_hand;
  for (const auto& s : plan) {
    if (s.kind == Step::by_hand) continue;
    out.print("applying {}/{}: {}\n", ++n, total, s.fix.command);
    out.flush();
    const safe::DirLock* lock = nullptr;
    for (const auto& [dir, l] : locks)
      if (l.covers(s.dir)) lock = &l;
    if (lock == nullptr) {
      err.print("kseg-doctor: {}: no lock held on its log dir\n", s.dir);
      ++failed;
      continue;
    }
    if (s.kind == Step::set_aside) {
      // Renamed into the backup (kept under log-dir.<name>), never deleted.
      safe::Plan p{s.dir, {safe::Action::remove(s.file, "Kafka cannot read it; it starts without it").in_log_dir()}};
      auto applied = safe::apply(p, {false, true, o.backup_dir, "", nullptr}, *lock);
      if (!applied.ok()) {
        err.print("kseg-doctor: {}: {}\n", p.path_of(p.actions.front()), applied.error().message);
        ++failed;
      } else {
        out.print("{}: set aside (in {}'s backup)\n", p.path_of(p.actions.front()), s.dir);
      }
      continue;
    }
    if (s.kind == Step::partition_metadata) {
      auto id = parse_kafka_uuid(s.topic_id);
      if (!id.ok()) {
        err.print("kseg-doctor: {}: the metadata log's topic id {}: {}\n", s.dir, s.topic_id, id.error().message);
        ++failed;
        continue;
      }
      const std::string text = partition_metadata::serialize(partition_metadata::kVersion, *id);
      safe::Plan p{s.dir, {safe::Action::write("partition.metadata", std::vector<uint8_t>(text.begin(), text.end()),
                                               "the topic id the metadata log gives the topic")}};
      auto applied = safe::apply(p, {false, o.backup, o.backup_dir, "", nullptr}, *lock);
      if (!applied.ok()) {
        err.print("kseg-doctor: {}: {}\n", s.dir, applied.error().message);
        ++failed;
      } else {
        out.print("{}: partition.metadata written (topic id {})\n", s.dir, s.topic_id);
      }
      continue;
    }
    ReindexOptions ro;
    ro.backup = o.backup;
    ro.backup_dir = o.backup_dir;
    ro.repair = s.kind == Step::salvage ? Repair::salvage : Repair::none;
    ro.producer_state = s.kind == Step::producer_state;
    ro.producer_id_expiration_ms = o.producer_id_expiration_ms;
    if (reindex_one(s.dir, ro, settings, *lock, out, err) != 0) ++failed;
  }
  return failed;
}

namespace {

// Every file of the log dir's file system written back (syncfs(2)): the segments a killed broker
// left in the page cache among them.
Status sync_file_system(const std::string& log_dir) {
  const int fd = ::open(log_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::fail(Errc::io, std::nullopt, fmt::format("{}: cannot open: {}", log_dir, std::strerror(errno)));
  const int rc = ::syncfs(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) return Status::fail(Errc::io, std::nullopt, fmt::format("{}: cannot sync its file system: {}", log_dir, std::strerror(e)));
  return {};
}

}  // namespace

Result<PreRecovery> pre_recover(const std::string& log_dir, const std::vector<std::string>& partitions, bool whole,
                                const std::set<std::string>& not_ready, const FixOptions& o,
                                const TopicSettings& settings, const safe::DirLock& lock, Sink& out, Sink& err) {
  PreRecovery r;
  // Each partition on the process's threads; their results kept in order.
  struct One {
    bool advanced = false;
    checkpoint::TopicPartitionOffset line;
    std::string errors;  // what it said on stderr, written in order
  };
  std::vector<One> ones(partitions.size());
  const int64_t now = clock_ms(std::nullopt);
  WorkPool::shared().run(partitions.size(), [&](size_t i) {
    One& one = ones[i];
    const std::string& dir = partitions[i];
    if (not_ready.contains(dir)) return;
    ReindexOptions ro;
    ro.backup = o.backup;
    ro.backup_dir = o.backup_dir;
    ro.producer_state = true;
    ro.as_recovery = true;
    ro.threads = 1;  // the partitions share the cores
    ro.now_ms = now;
    ro.producer_id_expiration_ms = o.producer_id_expiration_ms;
    Sink quiet, said;
    bool changed = true;
    const int rc = reindex_one(dir, ro, settings, lock, quiet, said, &changed);
    one.errors = said.contents();
    if (rc != 0) return;
    // Rewritten (or with anything to say): planned again from the files as they are now, nothing
    // may be left to change or to warn about.
    if (changed) {
      recover::Config config;
      if (!index_settings(settings, dir, config).ok()) return;
      auto again = plan_partition(dir, config, Repair::none, std::nullopt,
                                  ProducerStateOptions{true, now, o.producer_id_expiration_ms}, false);
      if (!again.ok() || !again->plan.empty() || again->invalid_left || again->refused || !again->problems.empty() ||
          !again->left_as_is.empty())
        return;
    }
    auto p = load_partition(dir);
    if (!p.ok()) return;
    one.line = {p->topic, p->number, p->log_end};
    one.advanced = true;
  });
  std::vector<checkpoint::TopicPartitionOffset> moved;
  for (size_t i = 0; i < partitions.size(); ++i) {
    err.write(ones[i].errors);
    if (ones[i].advanced) {
      moved.push_back(ones[i].line);
      r.advanced.push_back(partitions[i]);
    } else {
      r.left.push_back(partitions[i]);
    }
  }
  if (r.advanced.empty()) return r;
  // What the broker lost with its process may still be only in the page cache: Kafka flushes a
  // log before it checkpoints it (LogManager.shutdown), and so does kseg before it says the
  // segments need no recovery.
  if (Status st = sync_file_system(log_dir); !st.ok()) return st.error();
  auto lines = read_checkpoint_lines(log_dir, RootCheckpoint::recovery_point, "", -1);
  if (!lines.ok()) return lines.error();
  std::vector<checkpoint::TopicPartitionOffset> entries = lines->entries;
  std::map<std::pair<std::string, int32_t>, size_t> at;  // each line's index, by topic-partition
  for (size_t i = 0; i < entries.size(); ++i) at[{entries[i].topic, entries[i].partition}] = i;
  for (const auto& m : moved) {
    if (auto it = at.find({m.topic, m.partition}); it != at.end()) entries[it->second].offset = m.offset;
    else entries.push_back(m);
  }
  const std::string text = checkpoint::serialize_offset_checkpoint(entries);
  safe::Plan plan{r.advanced.front(), {}};
  plan.actions.push_back(safe::Action::write(root_checkpoint_name(RootCheckpoint::recovery_point),
                                             std::vector<uint8_t>(text.begin(), text.end()),
                                             "recovery points at the log ends kseg recovered")
                             .in_log_dir());
  // The marker last: a crash before it leaves recovery points Kafka starts its recovery from.
  r.marked_clean = whole && r.left.empty();
  if (r.marked_clean)
    plan.actions.push_back(safe::Action::write(kCleanShutdownFile, {}, "every partition recovered").in_log_dir());
  auto applied = safe::apply(plan, {false, o.backup, o.backup_dir, "", nullptr}, lock);
  if (!applied.ok()) return applied.error();
  out.print("{}: {} partition{} recovered by kseg: recovery point{} at the log end{}\n", log_dir, r.advanced.size(),
            r.advanced.size() == 1 ? "" : "s", r.advanced.size() == 1 ? "" : "s",
            r.marked_clean ? "; .kafka_cleanshutdown written: the broker recovers nothing"
            : whole        ? fmt::format("; {} left for the broker to recover", r.left.size())
                           : "; the log dir's other partitions unread, so no clean-shutdown marker");
  return r;
}

}  // namespace kseg::doctor
