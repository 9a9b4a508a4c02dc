// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/info/info.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_v2.h"
#include "formats/file_names.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/producer_snapshot.h"
#include "formats/producer_state.h"
#include "formats/time_index.h"
#include "lib/codec.h"
#include "lib/mapped_file.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/envelope.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/progress.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;
using json = nlohmann::ordered_json;

namespace {

constexpr size_t kWidth = 80;
constexpr int64_t kNoTimestamp = -1;

// One index file as Kafka's checks see it.
struct IndexHealth {
  // ok; preallocated (the active segment's zero tail, as a running broker or
  // a crash leaves it: recovery rebuilds it); preallocated_loaded (a
  // .timeindex so in a log dir shut down cleanly: Kafka loads the zeros as
  // entries); none (an empty segment: Kafka creates its indexes on the first
  // append); missing; untrimmed (a zero tail on an older segment, which Kafka
  // would count as entries); failing (Kafka's sanity check).
  std::string status = "missing";
  int64_t entries = 0, slots = 0;
  std::optional<std::string> sanity;  // "passed" or Kafka's message; none when missing
  bool problem() const {
    return status == "missing" || status == "untrimmed" || status == "failing" || status == "preallocated_loaded";
  }
};

struct SegmentInfo {
  int64_t base = 0, size = 0;
  std::optional<int64_t> first, last;
  int64_t batches = 0, records = 0, max_ts = kNoTimestamp;
  SegmentEnd end = SegmentEnd::clean;
  int64_t valid_end = 0, trailing = 0;
  std::string end_detail;
  IndexHealth index, timeindex;
};

struct OpenTxn {
  int64_t producer_id = 0, first_offset = 0;
  int16_t epoch = 0;
};

struct PartitionInfo {
  std::string dir, name;
  std::optional<std::string> topic;
  std::optional<int32_t> number;
  int64_t log_bytes = 0, bytes = 0, files = 0;
  std::optional<int64_t> first, last, log_start_checkpoint;
  int64_t log_end = 0, batches = 0, records = 0, control = 0, unreadable = 0;
  int64_t min_ts = INT64_MAX, max_ts = kNoTimestamp;
  std::map<std::pair<int, int>, int64_t> codecs;  // (magic, codec id) -> batches
  std::set<int64_t> producer_ids;
  std::vector<OpenTxn> open;
  std::optional<int64_t> snapshot;
  std::string producer_state_error;
  std::vector<SegmentInfo> segments;
  std::map<std::string, int64_t> leftovers;  // kind -> count
  int64_t segments_with_index_problems() const {
    return std::count_if(segments.begin(), segments.end(),
                         [](const SegmentInfo& s) { return s.index.problem() || s.timeindex.problem(); });
  }
};

const char* leftover_kind(Leftover::Kind k) {
  switch (k) {
    case Leftover::tmp: return "tmp";
    case Leftover::kseg_tmp: return "kseg_tmp";
    case Leftover::kraft_deleted: return "kraft_deleted";
    case Leftover::kraft_partial: return "kraft_partial";
    case Leftover::swap: return "swap";
    case Leftover::cleaned: return "cleaned";
    case Leftover::deleted: return "deleted";
    case Leftover::orphan_index: return "orphan_index";
    case Leftover::unknown: return "unknown";
  }
  return "unknown";
}

bool all_zero(Bytes b) { return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; }); }

// Kafka's sanity check of the whole file, then of its live entries alone:
// a failure the zero tail alone explains is a tail, not a corrupt index.
// `width(bytes)`: the file's entry width.
template <typename View, typename Width, typename Check>
IndexHealth check_index(const std::string& path, int64_t base, bool last_segment, Width&& width, Check&& sanity_check) {
  IndexHealth h;
  auto f = MappedFile::open(path);
  if (!f.ok()) {
    h.sanity = f.error().message;
    h.status = "failing";
    return h;
  }
  const View v(f->bytes(), Offset{base}, Position{0}, width(f->bytes()));
  const int64_t entry_size = v.entry_size();
  h.slots = v.slot_count();
  h.entries = v.live_entry_count();
  if (h.entries == 1 && all_zero(f->bytes().first(static_cast<size_t>(entry_size)))) h.entries = 0;
  const Status whole = sanity_check(v, path);
  h.sanity = whole.ok() ? std::string("passed") : whole.error().message;
  const bool tail = h.entries < h.slots &&
                    all_zero(f->bytes().subspan(static_cast<size_t>(h.entries * entry_size),
                                                static_cast<size_t>((h.slots - h.entries) * entry_size)));
  const bool live_ok =
      sanity_check(View(f->bytes().first(static_cast<size_t>(h.entries * entry_size)), Offset{base}, Position{0}, entry_size), path)
          .ok();
  if (tail && live_ok && v.trailing_bytes().bytes == 0) h.status = last_segment ? "preallocated" : "untrimmed";
  else h.status = whole.ok() ? "ok" : "failing";
  return h;
}

IndexHealth index_health(const Segment& seg, FileKind kind, bool last_segment, bool empty_log) {
  if (!seg.has(kind)) {
    IndexHealth h;
    if (empty_log) h.status = "none";
    return h;
  }
  const std::string path = seg.path(kind);
  const int64_t base = seg.base;
  if (kind == FileKind::index)
    return check_index<offset_index::View>(path, base, last_segment,
                                           [&](Bytes b) {  // 8, or KIP-1333's 12 where the log says so
                                             if (b.size() % offset_index::kWideEntrySize != 0) return offset_index::kEntrySize;
                                             auto log = MappedFile::open(seg.path(FileKind::log));
                                             return log.ok() ? offset_index_width(b, Offset{base}, log->bytes()).entry_bytes
                                                             : offset_index::detect_width(b).entry_bytes;
                                           },
                                           [](const offset_index::View& v, const std::string& p) {
                                             return offset_index::sanity_check(v, p);
                                           });
  return check_index<time_index::View>(path, base, last_segment, [](Bytes) { return time_index::kEntrySize; },
                                       [](const time_index::View& v, const std::string& p) {
                                         return time_index::sanity_check(v, p);
                                       });
}

class PartitionReader {
 public:
  PartitionReader(const InfoOptions& o, PartitionInfo& p) : o_(o), p_(p) {}

  Status read() {
    p_.name = fs::path(p_.dir).filename().string();
    auto part = load_partition(p_.dir, LoadOptions{.need_name = false});
    if (!part.ok()) return part.error();
    if (!part->topic.empty()) {
      p_.topic = part->topic;
      p_.number = part->number;
    }
    for (const auto& l : part->layout.leftovers) p_.leftovers[leftover_kind(l.kind)]++;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(p_.dir, ec)) {
      std::error_code fec;
      if (!e.is_regular_file(fec)) continue;
      const auto size = e.file_size(fec);
      if (fec) continue;
      p_.bytes += static_cast<int64_t>(size);
      p_.files++;
    }
    p_.log_start_checkpoint = part->log_start_line;
    if (part->segments.empty()) return {};
    p_.log_end = part->log_end;  // the loader's, as every tool has it (partition/log_end.h)
    KSEG_RETURN_IF_ERROR(start_producer_state(*part));
    for (const auto& seg : part->segments) {
      SegmentInfo s;
      s.base = seg.base;
      KSEG_RETURN_IF_ERROR(scan_segment(seg.path(FileKind::log), s));
      const bool last = &seg == &part->segments.back();
      s.index = index_health(seg, FileKind::index, last, s.size == 0);
      s.timeindex = index_health(seg, FileKind::timeindex, last, s.size == 0);
      // Loaded as it is, a preallocated .timeindex is full (kseg-verify: timeindex.preallocated_loaded).
      if (last && s.timeindex.status == "preallocated" && active_indexes_loaded_as_is(p_.dir))
        s.timeindex.status = "preallocated_loaded";
      p_.segments.push_back(std::move(s));
    }
    for (const auto& e : state_.entries())
      if (e.has_open_txn()) p_.open.push_back({e.producer_id, e.current_txn_first_offset, e.producer_epoch});
    std::sort(p_.open.begin(), p_.open.end(),
              [](const OpenTxn& a, const OpenTxn& b) { return a.first_offset < b.first_offset; });
    return {};
  }

 private:
  // As Kafka's loader (partition/producer_start.h), the batches from there
  // on replayed by the main pass.
  // Expiration is left out: it drops only producers with no open transaction.
  Status start_producer_state(const Partition& part) {
    auto ps = producer_start(p_.dir, part.snapshots, part.log_start(), part.log_end);
    if (!ps.ok()) return ps.error();
    state_ = std::move(ps->state);
    from_ = ps->from;
    p_.snapshot = ps->snapshot;
    return {};
  }

  Status scan_segment(const std::string& path, SegmentInfo& s) {
    auto f = MappedFile::open(path);
    if (!f.ok()) return f.error().in(path);
    f->set_drop_page_cache(true);
    s.size = f->file_size();
    p_.log_bytes += s.size;
    EntryScanner scanner(f->bytes(), Position{0});
    while (auto e = scanner.next()) {
      f->release_before(e->position);
      entry(*e, s);
    }
    s.end = scanner.end();
    s.valid_end = scanner.valid_end().value;
    s.trailing = scanner.trailing().bytes;
    if (s.end != SegmentEnd::clean) s.end_detail = segment_end_detail(scanner);
    return {};
  }

  void entry(const EntryRef& e, SegmentInfo& s) {
    s.batches++;
    p_.batches++;
    int64_t first = 0, last = 0, first_ts = kNoTimestamp, max_ts = kNoTimestamp, records = 0;
    int codec = 0;
    if (e.magic == 2) {
      auto h = v2::decode_header(e);
      if (!h.ok()) {
        p_.unreadable++;
        return;
      }
      codec = h->codec_id();
      first = h->base_offset;
      last = h->last_offset();
      records = std::max(h->records_count, 0);
      max_ts = h->max_timestamp;
      // The base timestamp holds the delete horizon once the cleaner set one;
      // LogAppendTime stamps every record with the max.
      first_ts = h->has_delete_horizon() || h->timestamp_type() == v2::TimestampType::log_append_time
                     ? h->max_timestamp
                     : h->base_timestamp;
      if (h->is_control()) p_.control++;
      if (h->producer_id >= 0) p_.producer_ids.insert(h->producer_id);
      apply_producer_state(e, last);
    } else if (e.magic == 0 || e.magic == 1) {
      auto m = legacy::decode(e);
      if (!m.ok()) {
        p_.unreadable++;
        return;
      }
      codec = m->codec_id();
      first = last = m->offset;
      first_ts = max_ts = m->timestamp;
      records = 1;
      if (codec != 0) {
        records = 0;  // a wrapper's inner messages decode all or none
        const Status st = walker_.message(*m, [&](const EntryRecord& r) {
          if (records++ == 0) first = r.offset;
          return true;
        });
        if (!st.ok()) p_.unreadable++;
      }
    } else {
      p_.unreadable++;  // a magic Kafka cannot read
      return;
    }
    p_.codecs[{e.magic, codec}]++;
    s.records += records;
    p_.records += records;
    if (!s.first) s.first = first;
    if (!p_.first) p_.first = first;
    s.last = last;
    p_.last = last;
    s.max_ts = std::max(s.max_ts, max_ts);
    p_.max_ts = std::max(p_.max_ts, max_ts);
    if (first_ts != kNoTimestamp) p_.min_ts = std::min(p_.min_ts, first_ts);
  }

  void apply_producer_state(const EntryRef& e, int64_t last) {
    if (!p_.producer_state_error.empty() || last < from_) return;
    if (Status st = state_.apply(e); !st.ok())
      p_.producer_state_error = fmt::format("the replay stops at offset {}: {}", e.offset, st.error().message);
  }

  const InfoOptions& o_;
  PartitionInfo& p_;
  ProducerState state_;
  int64_t from_ = 0;
  RecordWalker walker_{o_.max_decompressed_bytes};
};

// ---- output ----

std::string plural(int64_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

std::string time_text(int64_t ms, bool iso) { return iso && ms >= 0 ? iso_ms(ms) : std::to_string(ms); }

json time_json(int64_t ms, bool iso) { return iso && ms >= 0 ? json(iso_ms(ms)) : json(ms); }

json opt_json(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

// Where the first segment that does not end cleanly ends, as the scanner says.
const SegmentInfo* first_unclean(const PartitionInfo& p) {
  for (const auto& s : p.segments)
    if (s.end != SegmentEnd::clean) return &s;
  return nullptr;
}

std::string end_text(const PartitionInfo& p) {
  const SegmentInfo* s = first_unclean(p);
  if (!s) return "clean";
  const char* what = "stop";
  switch (s->end) {
    case SegmentEnd::short_tail:
    case SegmentEnd::partial_tail: what = "torn tail"; break;
    case SegmentEnd::zero_tail: what = "zero tail"; break;
    case SegmentEnd::bad_size: what = "bad size"; break;
    default: break;
  }
  const auto others = std::count_if(p.segments.begin(), p.segments.end(),
                                    [](const SegmentInfo& x) { return x.end != SegmentEnd::clean; }) - 1;
  return fmt::format("{} at byte {} of {} ({} bytes after it){}", what, s->valid_end,
                     file_names::segment_file_name(Offset{s->base}, FileKind::log), s->trailing,
                     others > 0 ? fmt::format("; {} more segments end so", others) : std::string());
}

std::string index_summary(const PartitionInfo& p) {
  const int64_t n = static_cast<int64_t>(p.segments.size());
  const int64_t bad = p.segments_with_index_problems();
  if (bad == 0) return fmt::format("{} of {} segments ok", n, n);
  std::map<std::string, int64_t> counts;  // "missing .index" -> n
  std::string first_failure;
  for (const auto& s : p.segments)
    for (const auto& [h, ext] : {std::pair<const IndexHealth*, const char*>{&s.index, ".index"},
                                 std::pair<const IndexHealth*, const char*>{&s.timeindex, ".timeindex"}}) {
      if (!h->problem()) continue;
      counts[h->status + " " + ext]++;
      if (h->status == "failing" && first_failure.empty() && h->sanity) first_failure = *h->sanity;
    }
  std::string out;
  for (const auto& [what, count] : counts) {
    if (what.starts_with("failing")) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, what);
  }
  int64_t failing = 0;
  for (const auto& [what, count] : counts)
    if (what.starts_with("failing")) failing += count;
  if (failing > 0)
    out += fmt::format("{}{} failing Kafka's sanity check: {}", out.empty() ? "" : ", ", failing, first_failure);
  return out;
}

// "  label      text", wrapped at 80 columns under the text.
void print_field(Sink& out, std::string_view label, std::string_view text) {
  std::string line = fmt::format("  {:<11}", label);
  const size_t indent = line.size();
  size_t at = 0;
  bool first_word = true;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(at, end - at);
    if (!first_word && line.size() + 1 + word.size() > kWidth) {
      out.print("{}\n", line);
      line.assign(indent, ' ');
      first_word = true;
    }
    if (!first_word) line += ' ';
    // A word longer than a line (a path) is cut where the line ends.
    while (line.size() + word.size() > kWidth && line.size() < kWidth) {
      const size_t room = kWidth - line.size();
      line.append(word.substr(0, room));
      out.print("{}\n", line);
      line.assign(indent, ' ');
      word.remove_prefix(room);
    }
    line.append(word);
    first_word = false;
    at = end + 1;
  }
  out.print("{}\n", line);
}

void print_text(const PartitionInfo& p, const InfoOptions& o, Sink& out) {
  std::string head = plural(static_cast<int64_t>(p.segments.size()), "segment", "segments") + ", " +
                     human_bytes(p.log_bytes) + ", ";
  if (p.first)
    head += fmt::format("offsets {}..{} ({} in {})", *p.first, p.log_end - 1,
                        plural(p.records, "record", "records"), plural(p.batches, "batch", "batches"));
  else
    head += fmt::format("no batches, log end {}", p.log_end);
  if (p.dir.size() + 2 + head.size() <= kWidth) out.print("{}  {}\n", p.dir, head);
  else out.print("{}\n  {}\n", p.dir, head);
  if (p.segments.empty()) {
    print_field(out, "files", fmt::format("{}, {}: no segment", plural(p.files, "file", "files"), human_bytes(p.bytes)));
    return;
  }
  if (p.max_ts == kNoTimestamp && p.min_ts == INT64_MAX)
    print_field(out, "time", "no timestamps");
  else
    print_field(out, "time", fmt::format("{} .. {}", time_text(p.min_ts == INT64_MAX ? kNoTimestamp : p.min_ts, o.iso_time),
                                          time_text(p.max_ts, o.iso_time)));
  if (!p.codecs.empty()) {
    // Per magic, newest first, each codec by count.
    std::string text;
    for (int magic = 2; magic >= 0; --magic) {
      std::vector<std::pair<int64_t, int>> by_count;
      for (const auto& [key, n] : p.codecs)
        if (key.first == magic) by_count.emplace_back(n, key.second);
      if (by_count.empty()) continue;
      std::sort(by_count.begin(), by_count.end(), [](auto& a, auto& b) { return a.first > b.first; });
      std::string part;
      for (const auto& [n, codec] : by_count) {
        const char* name = codec_name(codec);
        part += fmt::format("{}{} {}", part.empty() ? "" : ", ", name ? name : fmt::format("codec-{}", codec), n);
      }
      text += fmt::format("{}{} (magic {})", text.empty() ? "" : "; ", part, magic);
    }
    if (p.control > 0) text += fmt::format("; {}", plural(p.control, "control batch", "control batches"));
    if (p.unreadable > 0) text += fmt::format("; {} unreadable", p.unreadable);
    print_field(out, "codecs", text);
  }
  std::string producers =
      p.producer_ids.empty() && p.open.empty()
          ? std::string("none")
          : fmt::format("{}, {}", p.producer_ids.size(),
                        p.open.empty() ? std::string("no open transaction")
                                       : plural(static_cast<int64_t>(p.open.size()), "open transaction",
                                                "open transactions"));
  if (!p.open.empty())
    producers += fmt::format(" (pid {} epoch {} from offset {}{})", p.open[0].producer_id, p.open[0].epoch,
                             p.open[0].first_offset,
                             p.open.size() > 1 ? fmt::format(", and {} more", p.open.size() - 1) : std::string());
  if (!p.producer_state_error.empty()) producers += "; " + p.producer_state_error;
  print_field(out, "producers", producers);
  print_field(out, "indexes", index_summary(p));
  print_field(out, "end", end_text(p));
  std::string files = fmt::format("{}, {}", plural(p.files, "file", "files"), human_bytes(p.bytes));
  if (p.log_start_checkpoint) files += fmt::format(", log start {} (checkpoint)", *p.log_start_checkpoint);
  int64_t leftovers = 0;
  for (const auto& [kind, n] : p.leftovers) leftovers += n;
  if (leftovers > 0) files += ", " + plural(leftovers, "leftover", "leftovers");
  print_field(out, "files", files);
}

json index_json(const IndexHealth& h) {
  json j = {{"status", h.status}, {"entries", h.entries}, {"slots", h.slots}};
  j["kafka_sanity_check"] = h.sanity ? json(*h.sanity) : json(nullptr);
  return j;
}

json partition_json(const PartitionInfo& p, const InfoOptions& o) {
  json j;
  j["path"] = p.dir;
  j["topic"] = p.topic ? json(*p.topic) : json(nullptr);
  j["partition"] = p.number ? json(*p.number) : json(nullptr);
  j["segment_count"] = p.segments.size();
  j["log_bytes"] = p.log_bytes;
  j["bytes"] = p.bytes;
  j["files"] = p.files;
  j["first_offset"] = opt_json(p.first);
  j["last_offset"] = opt_json(p.last);
  j["log_end_offset"] = p.log_end;
  j["log_start_offset"] = opt_json(p.log_start_checkpoint);
  j["batches"] = p.batches;
  j["records"] = p.records;
  j["control_batches"] = p.control;
  j["unreadable_batches"] = p.unreadable;
  j["min_timestamp"] = time_json(p.min_ts == INT64_MAX ? kNoTimestamp : p.min_ts, o.iso_time);
  j["max_timestamp"] = time_json(p.max_ts, o.iso_time);
  j["codecs"] = json::array();
  for (const auto& [key, n] : p.codecs) {
    const char* name = codec_name(key.second);
    j["codecs"].push_back({{"magic", key.first},
                           {"codec", name ? std::string(name) : fmt::format("codec-{}", key.second)},
                           {"batches", n}});
  }
  j["producers"] = p.producer_ids.size();
  j["open_transactions"] = json::array();
  for (const auto& t : p.open)
    j["open_transactions"].push_back({{"producer_id", t.producer_id}, {"epoch", t.epoch}, {"first_offset", t.first_offset}});
  j["producer_state"] = {{"snapshot_offset", opt_json(p.snapshot)},
                         {"error", p.producer_state_error.empty() ? json(nullptr) : json(p.producer_state_error)}};
  j["indexes"] = {{"segments_ok", static_cast<int64_t>(p.segments.size()) - p.segments_with_index_problems()},
                  {"summary", index_summary(p)}};
  const SegmentInfo* bad = first_unclean(p);
  j["end"] = {{"state", bad ? segment_end_name(bad->end) : "clean"},
              {"segment", bad ? json(bad->base) : json(nullptr)},
              {"position", bad ? json(bad->valid_end) : json(nullptr)},
              {"text", end_text(p)},
              {"detail", bad ? json(bad->end_detail) : json(nullptr)}};
  j["leftovers"] = json::array();
  for (const auto& [kind, n] : p.leftovers) j["leftovers"].push_back({{"kind", kind}, {"count", n}});
  j["segments"] = json::array();
  for (const auto& s : p.segments)
    j["segments"].push_back({{"base_offset", s.base},
                             {"size_bytes", s.size},
                             {"first_offset", opt_json(s.first)},
                             {"last_offset", opt_json(s.last)},
                             {"batches", s.batches},
                             {"records", s.records},
                             {"max_timestamp", time_json(s.max_ts, o.iso_time)},
                             {"end", segment_end_name(s.end)},
                             {"valid_end", s.valid_end},
                             {"index", index_json(s.index)},
                             {"timeindex", index_json(s.timeindex)}});
  return j;
}

struct Totals {
  std::string path;
  int64_t partitions = 0, segments = 0, log_bytes = 0, bytes = 0, batches = 0, records = 0, open = 0,
          index_problems = 0, unreadable = 0;
  void add(const PartitionInfo& p) {
    partitions++;
    segments += static_cast<int64_t>(p.segments.size());
    log_bytes += p.log_bytes;
    bytes += p.bytes;
    batches += p.batches;
    records += p.records;
    open += static_cast<int64_t>(p.open.size());
    index_problems += p.segments_with_index_problems() > 0;
  }
};

json totals_json(const Totals& t) {
  return {{"path", t.path},           {"partitions", t.partitions},
          {"segments", t.segments},   {"log_bytes", t.log_bytes},
          {"bytes", t.bytes},         {"batches", t.batches},
          {"records", t.records},     {"open_transactions", t.open},
          {"partitions_with_index_problems", t.index_problems},
          {"unreadable_partitions", t.unreadable}};
}

void print_totals(const Totals& t, Sink& out) {
  out.print("{}\n", t.path);
  print_field(out, "total",
              fmt::format("{}, {}, {} ({} in all), {}, {}, {} with index problems{}",
                          plural(t.partitions, "partition", "partitions"), plural(t.segments, "segment", "segments"),
                          human_bytes(t.log_bytes), human_bytes(t.bytes), plural(t.records, "record", "records"),
                          plural(t.open, "open transaction", "open transactions"),
                          plural(t.index_problems, "partition", "partitions"),
                          t.unreadable > 0 ? fmt::format(", {} unreadable", t.unreadable) : std::string()));
}

}  // namespace

int run_info(const InfoOptions& o, Sink& out, Sink& err) {
  // The same rules as every tool that takes partitions: a missing path or
  // one holding no partition is exit 3, a file exit 2.
  auto jobs = partition_jobs(o);
  if (!jobs.ok()) return report_failure("kseg-info", jobs.error(), err);
  int rc = kExitOk;
  Progress progress("kseg-info", Progress::Unit::partitions, static_cast<int64_t>(jobs->size()),
                    o.progress && jobs->size() > 1);
  std::vector<Totals> log_dirs;
  Totals current;  // of the log dir whose partitions are being read ("" path: partitions named themselves)
  // jsonl: each partition, then each log dir's totals, a document of its
  // own on one line, as it is read.
  auto line = [&](const char* key, const json& item) {
    json doc = json_envelope("kseg-info");
    doc["partitions"] = json::array();
    doc["log_dirs"] = json::array();
    doc[key].push_back(item);
    out.print("{}\n", doc.dump(-1, ' ', false, json::error_handler_t::replace));
    out.flush();
  };
  auto close_log_dir = [&] {
    if (current.path.empty()) return;
    log_dirs.push_back(current);
    if (o.json_lines) line("log_dirs", totals_json(current));
    else if (!o.json) print_totals(current, out);
  };
  bool first = true;
  if (o.json && !o.json_lines) out.print("{}\"partitions\":[", json_envelope_open("kseg-info"));
  for (size_t i = 0; i < jobs->size(); ++i) {
    const PartitionJob& job = (*jobs)[i];
    if (i == 0 || job.log_dir != (*jobs)[i - 1].log_dir) {
      close_log_dir();
      current = Totals{};
      current.path = job.log_dir;
    }
    PartitionInfo p;
    p.dir = job.dir;
    Status st = PartitionReader(o, p).read();
    progress.add(1);
    if (!st.ok()) {
      err.print("kseg-info: {}\n", st.error().message);
      rc = kExitIo;
      current.unreadable++;
      continue;
    }
    current.add(p);
    if (o.json_lines) {
      line("partitions", partition_json(p, o));
    } else if (o.json) {
      out.print("{}\n{}", first ? "" : ",", partition_json(p, o).dump(-1, ' ', false, json::error_handler_t::replace));
      first = false;
    } else {
      print_text(p, o, out);
    }
  }
  close_log_dir();
  if (o.json && !o.json_lines) {
    out.print("\n],\"log_dirs\":[");
    for (size_t i = 0; i < log_dirs.size(); ++i) out.print("{}\n{}", i ? "," : "", totals_json(log_dirs[i]).dump());
    out.print("\n]}}\n");
  }
  return rc;
}

}  // namespace kseg
