// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/txn/txn.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_v2.h"
#include "formats/coordinator_records.h"
#include "formats/file_names.h"
#include "formats/log_batch.h"
#include "formats/producer_state.h"
#include "formats/txn_index.h"
#include "lib/byte_reader.h"
#include "lib/mapped_file.h"
#include "lib/units.h"
#include "tools/ops/common/envelope.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;
using nlohmann::json;
using producer_snapshot::ProducerEntry;

namespace {

// Every entry of a .log, until `fn` says false.
template <typename Fn>
Status each_entry(const std::string& path, Fn&& fn) {
  auto f = MappedFile::open(path);
  if (!f.ok()) return f.error().in(path);
  EntryScanner scanner(f->bytes(), Position{0});
  while (auto e = scanner.next()) {
    f->release_before(e->position);
    Result<bool> more = fn(*e);
    if (!more.ok()) return more.error().in(path);
    if (!*more) break;
  }
  return {};
}

// The __transaction_state partitions beside `log_dir`'s partitions, read to
// their ends: the newest value of each key wins, a tombstone removes it.
Result<std::map<std::string, CoordinatorTxn>> read_coordinator(const std::string& log_dir, bool& present) {
  std::map<std::string, CoordinatorTxn> out;
  const auto types = coordinator::transaction_record_types();
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(log_dir, ec)) {
    // Not the -delete, -future or -stray copies: stale.
    auto name = file_names::parse_partition_dir_name(e.path().filename().string());
    if (name.ok() && name->topic == "__transaction_state" && name->kind == file_names::DirKind::partition &&
        e.is_directory(ec))
      dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  present = !dirs.empty();
  for (const auto& d : dirs) {
    auto layout = read_partition_layout(d.string());
    if (!layout.ok()) return layout.error().in(d.string());
    for (const auto& [base, files] : layout->segments) {
      const std::string path = (d / file_names::segment_file_name(base, FileKind::log)).string();
      RecordWalker walker;
      KSEG_RETURN_IF_ERROR(each_entry(path, [&](const EntryRef& e) -> Result<bool> {
        if (e.magic < 2) return true;
        auto h = v2::decode_header(e);
        if (!h.ok() || h->is_control() || v2::compute_crc(e.bytes) != h->crc) return true;  // kseg verify says why
        (void)walker.batch(e, *h, [&](const EntryRecord& rec) {  // what does not decode is kseg verify's to say
          if (rec.key.null || rec.key.bytes.size() < 2) return true;
          ByteReader kr(rec.key.bytes, Position{0});
          if (kr.i16() != types[0].id) return true;
          auto key = schema::decode(*types[0].key, 0, rec.key.bytes.subspan(2));
          if (!key.ok()) return true;
          const std::string id = json::parse(key->json, nullptr, false).value("transactionalId", "");
          if (rec.value.null) {
            out.erase(id);
            return true;
          }
          if (rec.value.bytes.size() < 2) return true;
          ByteReader vr(rec.value.bytes, Position{0});
          const int16_t version = vr.i16();
          auto value = schema::decode(*types[0].value, version, rec.value.bytes.subspan(2));
          if (!value.ok()) return true;
          const json v = json::parse(value->json, nullptr, false);
          if (!v.is_object()) return true;
          CoordinatorTxn t;
          t.id = id;
          t.producer_id = v.value("producerId", int64_t{-1});
          t.previous_producer_id = v.value("previousProducerId", int64_t{-1});
          t.producer_epoch = v.value("producerEpoch", int16_t{-1});
          t.status = v.value("transactionStatus", int8_t{-1});
          t.timeout_ms = v.value("transactionTimeoutMs", int32_t{0});
          t.last_update_ms = v.value("transactionLastUpdateTimestampMs", int64_t{-1});
          t.start_ms = v.value("transactionStartTimestampMs", int64_t{-1});
          if (v.contains("transactionPartitions") && v["transactionPartitions"].is_array())
            for (const auto& tp : v["transactionPartitions"])
              for (const auto& n : tp.value("partitionIds", json::array()))
                t.partitions.emplace_back(tp.value("topic", ""), n.get<int32_t>());
          t.source = d.filename().string();
          out[id] = std::move(t);
          return true;
        });
        return true;
      }));
    }
  }
  return out;
}

struct Open : TxnCoordinators::Verdict {
  ProducerEntry producer;
};

// What txn reports of one partition.
struct Report {
  std::string dir, topic;
  int32_t number = 0;
  int64_t log_start = 0, leo = 0, hw = 0, lso = 0;
  bool hw_from_checkpoint = false;
  std::optional<int64_t> snapshot;  // the one the state starts from
  int64_t replayed_batches = 0;
  std::vector<ProducerEntry> producers;  // by producer id
  std::vector<Open> open;                // by first offset
  std::vector<txn_index::AbortedTxn> aborted;
  int64_t aborted_total = 0;
};

Result<Report> read_partition(const std::string& dir, const TxnOptions& o) {
  auto part = load_partition(dir, LoadOptions{.need_name = false});
  if (!part.ok()) return part.error();
  Report p;
  p.dir = dir;
  p.topic = part->topic;
  p.number = part->number;
  if (part->segments.empty()) return p;  // nothing to say (Kafka creates a segment at load)
  p.leo = part->log_end;
  p.log_start = std::min(part->log_start(), p.leo);
  auto hw = part->high_watermark(p.log_start);
  if (!hw.ok()) return hw.error();
  p.hw = hw->offset;
  p.hw_from_checkpoint = hw->from_checkpoint;
  // The loader's rebuild at the log end, producers expired at --now dropped.
  auto state = load_producers(*part, ProducerExpiry{o.now_ms, o.producer_id_expiration_ms});
  if (!state.ok()) return state.error();
  p.snapshot = state->snapshot;
  p.replayed_batches = state->replayed;
  p.producers = state->state.entries();
  p.lso = p.hw;
  for (const auto& e : p.producers)
    if (e.has_open_txn()) {
      p.open.push_back(Open{{}, e});
      p.lso = std::min(p.lso, e.current_txn_first_offset);
    }
  std::sort(p.open.begin(), p.open.end(), [](const Open& a, const Open& b) {
    return a.producer.current_txn_first_offset < b.producer.current_txn_first_offset;
  });
  for (const auto& seg : part->segments) {
    if (!seg.has(FileKind::txnindex)) continue;
    const std::string path = seg.path(FileKind::txnindex);
    auto bytes = MappedFile::open(path);
    if (!bytes.ok()) return bytes.error().in(path);
    auto entries = txn_index::decode(txn_index::View(bytes->bytes()), path);
    if (!entries.ok()) return entries.error();
    p.aborted_total += static_cast<int64_t>(entries->size());
    for (const auto& t : *entries)
      if (static_cast<int64_t>(p.aborted.size()) < o.max_aborted) p.aborted.push_back(t);
  }
  return p;
}

// Java's long subtraction, which wraps.
int64_t minus(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }

std::string iso(int64_t ms) {
  if (ms < 0) return "-";
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

json producer_json(const ProducerEntry& e) {
  return {{"producer_id", e.producer_id},         {"epoch", e.producer_epoch},
          {"last_sequence", e.last_sequence},     {"last_offset", e.last_offset},
          {"timestamp_ms", e.timestamp_ms},       {"coordinator_epoch", e.coordinator_epoch},
          {"txn_first_offset", e.current_txn_first_offset}};
}

json partition_json(const Report& p, const TxnOptions& o) {
  json j = {{"dir", p.dir},
            {"topic", p.topic},
            {"partition", p.number},
            {"log_start_offset", p.log_start},
            {"log_end_offset", p.leo},
            {"high_watermark", p.hw},
            {"high_watermark_from_checkpoint", p.hw_from_checkpoint},
            {"last_stable_offset", p.lso},
            {"snapshot_offset", p.snapshot ? json(*p.snapshot) : json(nullptr)},
            {"replayed_batches", p.replayed_batches},
            {"producers", json::array()},
            {"open_transactions", json::array()},
            {"aborted_transactions", json::array()},
            {"aborted_total", p.aborted_total}};
  for (const auto& e : p.producers) j["producers"].push_back(producer_json(e));
  for (const auto& t : p.open) {
    json c = nullptr;
    if (t.coordinator)
      c = {{"transactional_id", t.coordinator->id},
           {"state", coordinator::transaction_state_name(t.coordinator->status)},
           {"producer_id", t.coordinator->producer_id},
           {"producer_epoch", t.coordinator->producer_epoch},
           {"timeout_ms", t.coordinator->timeout_ms},
           {"last_update_ms", t.coordinator->last_update_ms},
           {"includes_partition", t.coordinator->includes(p.topic, p.number)},
           {"two_phase_commit", t.coordinator->two_phase()},
           {"from", t.coordinator->source}};
    j["open_transactions"].push_back({{"producer_id", t.producer.producer_id},
                                      {"epoch", t.producer.producer_epoch},
                                      {"first_offset", t.producer.current_txn_first_offset},
                                      {"last_timestamp_ms", t.producer.timestamp_ms},
                                      {"age_ms", minus(o.now_ms, t.producer.timestamp_ms)},
                                      {"offsets_held_back", p.hw - t.producer.current_txn_first_offset},
                                      {"coordinator", c},
                                      {"verdict", t.verdict},
                                      {"why", t.why}});
  }
  for (const auto& a : p.aborted)
    j["aborted_transactions"].push_back({{"producer_id", a.producer_id},
                                         {"first_offset", a.first_offset},
                                         {"last_offset", a.last_offset},
                                         {"last_stable_offset", a.last_stable_offset}});
  return j;
}

void print_text(const Report& p, const TxnOptions& o, Sink& out) {
  out.print("{}: log start {}, log end {}, high watermark {}{}, last stable offset {}\n", p.dir, p.log_start, p.leo,
            p.hw, p.hw_from_checkpoint ? "" : " (no checkpoint line: the log end)", p.lso);
  out.print("  producer state: {}, {} batch{} replayed; {} producer{}, {} open transaction{}, {} aborted range{}\n",
            p.snapshot ? fmt::format("from {}", file_names::segment_file_name(Offset{*p.snapshot}, FileKind::snapshot))
                       : std::string("no snapshot (from the log start)"),
            p.replayed_batches, p.replayed_batches == 1 ? "" : "es", p.producers.size(),
            p.producers.size() == 1 ? "" : "s", p.open.size(), p.open.size() == 1 ? "" : "s", p.aborted_total,
            p.aborted_total == 1 ? "" : "s");
  for (const auto& t : p.open) {
    const bool two_phase = t.verdict == "ongoing" && t.coordinator && t.coordinator->two_phase();
    out.print("  {}: producer {} epoch {}: open from offset {}, last write {} ({} before --now)\n",
              t.verdict == "hanging" ? "HANGING" : two_phase ? "ongoing (2PC)" : t.verdict, t.producer.producer_id, t.producer.producer_epoch,
              t.producer.current_txn_first_offset, iso(t.producer.timestamp_ms),
              human_duration(minus(o.now_ms, t.producer.timestamp_ms)));
    if (t.coordinator)
      out.print("    coordinator ({}): {} {} producer {} epoch {}, timeout {} ms, updated {}\n", t.coordinator->source,
                t.coordinator->id, coordinator::transaction_state_name(t.coordinator->status),
                t.coordinator->producer_id, t.coordinator->producer_epoch, t.coordinator->timeout_ms,
                iso(t.coordinator->last_update_ms));
    out.print("    {}\n", t.why);
    if (t.producer.current_txn_first_offset < p.hw)
      out.print("    holds back: read_committed consumers read no further than offset {} ({} offsets below the high "
                "watermark); the log cleaner cleans nothing from there on\n",
                t.producer.current_txn_first_offset, p.hw - t.producer.current_txn_first_offset);
    if (t.verdict == "hanging")
      out.print("    to end it: kafka-transactions.sh --bootstrap-server ... abort --topic {} --partition {} "
                "--start-offset {}\n",
                p.topic, p.number, t.producer.current_txn_first_offset);
  }
  for (const auto& a : p.aborted)
    out.print("  aborted: producer {} offsets {}..{} (LSO {})\n", a.producer_id, a.first_offset, a.last_offset,
              a.last_stable_offset);
  if (p.aborted_total > static_cast<int64_t>(p.aborted.size()))
    out.print("  ... {} more aborted ranges (--max-aborted)\n", p.aborted_total - static_cast<int64_t>(p.aborted.size()));
}

}  // namespace

// The coordinator's transactional ids by producer id and previous producer id.
Result<TxnCoordinators> TxnCoordinators::read(const std::string& log_dir) {
  TxnCoordinators c;
  auto txns = read_coordinator(log_dir, c.present_);
  if (!txns.ok()) return txns.error();
  c.txns_ = std::move(*txns);
  for (const auto& [id, t] : c.txns_) {
    c.by_pid_.emplace(t.producer_id, &t);
    if (t.previous_producer_id >= 0 && t.previous_producer_id != t.producer_id) c.by_pid_.emplace(t.previous_producer_id, &t);
  }
  return c;
}

// In the spirit of kafka-transactions.sh find-hanging: the coordinator's
// transaction for the producer does not include this partition (or is over),
// and the partition's has been open longer than the coordinator's timeout
// (younger, a lagging copy of either side could explain it: unverified).
TxnCoordinators::Verdict TxnCoordinators::judge(int64_t pid, int64_t last_timestamp_ms, const std::string& topic,
                                                int32_t partition, int64_t now_ms) const {
  Verdict t;
  const CoordinatorTxn* best = nullptr;
  for (auto [it, end] = by_pid_.equal_range(pid); it != end; ++it)
    if (!best || it->second->last_update_ms > best->last_update_ms) best = it->second;
  t.coordinator = best;
  if (!present_) {
    t.verdict = "unverified";
    t.why = "no __transaction_state partition in this log dir";
    return t;
  }
  if (!best) {
    t.verdict = "unverified";
    t.why = "no transactional id of the __transaction_state partitions here has this producer id (its coordinator "
            "partition may be on another broker, or the id expired)";
    return t;
  }
  const bool listed = best->producer_id == pid && best->includes(topic, partition);
  if (best->status == 1 && listed) {
    t.verdict = "ongoing";
    t.why = best->two_phase()
                ? fmt::format("the coordinator has it ongoing with this partition, under two-phase commit (KIP-939): "
                              "it never times out; the external coordinator's commit or abort ends it, or, if that "
                              "coordinator is gone, kafka-transactions.sh --bootstrap-server ... "
                              "forceTerminateTransaction --transactionalId {}",
                              best->id)
                : "the coordinator has it ongoing with this partition";
    return t;
  }
  if ((best->status == 2 || best->status == 3) && listed) {
    t.verdict = "completing";
    t.why = fmt::format("the coordinator is writing its markers ({})", coordinator::transaction_state_name(best->status));
    return t;
  }
  const std::string what =
      best->ended() ? fmt::format("the coordinator ended it ({}), but no marker for it is in this partition",
                                  coordinator::transaction_state_name(best->status))
                    : fmt::format("the coordinator's transaction ({}, producer {} epoch {}) does not include this "
                                  "partition",
                                  coordinator::transaction_state_name(best->status), best->producer_id,
                                  best->producer_epoch);
  const int64_t age = minus(now_ms, last_timestamp_ms);
  // A 2PC timeout (Integer.MAX_VALUE, 24.8 days) is no bound on a lagging
  // copy: the broker's default transaction.max.timeout.ms is, as
  // kafka-transactions.sh find-hanging's --max-transaction-timeout.
  const int64_t timeout_ms = best->two_phase() ? int64_t{900000} : best->timeout_ms;
  if (age <= timeout_ms) {
    t.verdict = "unverified";
    t.why = fmt::format("{}; but its last write is only {} ms old, within the transaction timeout ({} ms): a copy "
                        "that lags behind could explain it",
                        what, age, timeout_ms);
    return t;
  }
  t.verdict = "hanging";
  t.why = what;
  return t;
}

int run_txn(const TxnOptions& o, Sink& out, Sink& err) {
  auto dirs = partition_dirs_for(o);
  if (!dirs.ok()) return report_failure("kseg-txn", dirs.error(), err);
  std::map<std::string, TxnCoordinators> coordinators;  // by log dir
  json doc = {{"now_ms", o.now_ms}, {"partitions", json::array()}};
  int rc = kExitOk;
  int64_t hanging = 0;
  Progress progress("kseg-txn", Progress::Unit::partitions, static_cast<int64_t>(dirs->size()),
                    o.progress && dirs->size() > 1);
  for (const auto& dir : *dirs) {
    auto p = read_partition(dir, o);
    progress.add(1);
    if (!p.ok()) {
      err.print("kseg-txn: {}\n", p.error().message);
      rc = std::max(rc, static_cast<int>(exit_code_for(p.error().code)));
      continue;
    }
    const std::string log_dir = fs::absolute(dir).lexically_normal().parent_path().string();
    if (!coordinators.count(log_dir)) {
      auto c = TxnCoordinators::read(log_dir);
      if (!c.ok()) {  // judged as with no coordinator partition
        err.print("kseg-txn: {}\n", c.error().message);
        rc = std::max(rc, static_cast<int>(exit_code_for(c.error().code)));
        coordinators.emplace(log_dir, TxnCoordinators{});
      } else {
        coordinators.emplace(log_dir, std::move(*c));
      }
    }
    const TxnCoordinators& c = coordinators.at(log_dir);
    int64_t hanging_here = 0;
    for (auto& t : p->open) {
      static_cast<TxnCoordinators::Verdict&>(t) =
          c.judge(t.producer.producer_id, t.producer.timestamp_ms, p->topic, p->number, o.now_ms);
      if (t.verdict == "hanging") hanging_here++;
    }
    hanging += hanging_here;
    if (p->producers.empty() && p->leo == 0 && p->aborted_total == 0 && p->replayed_batches == 0 &&
        !p->snapshot) {
      if (!o.json) out.print("{}: no segment\n", dir);
      continue;
    }
    if (o.json_lines) {  // a document per partition, on one line, as it is read
      nlohmann::ordered_json line = json_envelope("kseg-txn");
      line["now_ms"] = o.now_ms;
      line["hanging"] = hanging_here;
      line["partitions"] = nlohmann::ordered_json::array({nlohmann::ordered_json(partition_json(*p, o))});
      out.print("{}\n", line.dump());
      out.flush();
    } else if (o.json) {
      doc["partitions"].push_back(partition_json(*p, o));
    } else {
      print_text(*p, o, out);
    }
  }
  doc["hanging"] = hanging;
  if (o.json && !o.json_lines) {
    nlohmann::ordered_json report = json_envelope("kseg-txn");
    for (const char* key : {"now_ms", "hanging", "partitions"}) report[key] = nlohmann::ordered_json(doc[key]);
    out.print("{}\n", report.dump(2));
  }
  else if (!o.json && hanging > 0) out.print("{} hanging transaction{}\n", hanging, hanging == 1 ? "" : "s");
  return std::max(rc, static_cast<int>(hanging > 0 ? kExitProblems : kExitOk));
}

}  // namespace kseg
