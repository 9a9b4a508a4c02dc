// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/excise/excise.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/file_names.h"
#include "formats/kept_records.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"
#include "formats/producer_snapshot.h"
#include "formats/segment_recover.h"
#include "lib/mapped_file.h"
#include "lib/md5.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/java_text.h"
#include "tools/ops/common/exit_codes.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/topic_settings.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

std::string_view text_of(Bytes b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace

ExcisePattern::ExcisePattern(const std::string& regex) {
  std::string_view r = regex;
  const bool head = r.starts_with('^');
  if (head) r.remove_prefix(1);
  // A trailing $ anchors unless escaped (an odd run of backslashes before it).
  size_t slashes = 0;
  while (r.size() > 1 + slashes && r[r.size() - 2 - slashes] == '\\') ++slashes;
  const bool tail = r.ends_with('$') && slashes % 2 == 0;
  if (tail) r.remove_suffix(1);
  static constexpr std::string_view kSyntax = "^$\\.*+?()[]{}|/";
  std::string text;
  bool plain = true;
  for (size_t i = 0; i < r.size() && plain; ++i) {
    if (r[i] == '\\') {  // an escaped syntax character is itself; any other escape (\d, \b...) is not text
      plain = i + 1 < r.size() && kSyntax.find(r[i + 1]) != std::string_view::npos;
      if (plain) text += r[++i];
    } else {
      plain = kSyntax.find(r[i]) == std::string_view::npos;
      text += r[i];
    }
  }
  if (plain) {
    text_ = std::move(text), head_ = head, tail_ = tail;
    return;
  }
  re_.emplace(regex, std::regex::ECMAScript | std::regex::optimize);  // (not nosubs: it breaks back-references)
}

bool ExcisePattern::search(std::string_view t) const {
  if (re_) return std::regex_search(t.begin(), t.end(), *re_);
  if (head_ && tail_) return t == text_;
  if (head_) return t.starts_with(text_);
  if (tail_) return t.ends_with(text_);
  return t.find(text_) != std::string_view::npos;
}

namespace {

// The selectors, compiled once a run.
class Matcher {
 public:
  explicit Matcher(const ExciseSelectors& s) : s_(s) {
    if (s.key_regex) key_re_.emplace(*s.key_regex);
    if (s.header_regex) header_re_.emplace(*s.header_regex);
  }

  // False when no record of the entry can be chosen (its header says so):
  // it is copied without decoding its records.
  bool may_match(const kept::Batch& b) const {
    if (b.control) return false;  // never removed: markers end transactions
    // (A compressed v0/v1 wrapper's header carries its last inner offset only.)
    const int64_t first = b.check.v2() || b.codec == 0 ? b.base : 0;
    if (!s_.offsets.empty() &&
        std::none_of(s_.offsets.begin(), s_.offsets.end(), [&](const auto& r) { return r.first <= b.last && r.second >= first; }))
      return false;
    if (s_.producer_id && (!b.check.v2() || b.pid != *s_.producer_id)) return false;
    if (s_.from_time && b.max_ts < *s_.from_time) return false;  // the max bounds every record's timestamp
    return true;
  }

  bool record(const kept::Rec& r) const {
    if (!s_.offsets.empty() &&
        std::none_of(s_.offsets.begin(), s_.offsets.end(), [&](const auto& g) { return g.first <= r.offset && r.offset <= g.second; }))
      return false;
    // A record without a timestamp (v0; -1) matches no time selector.
    if ((s_.from_time || s_.to_time) && r.timestamp < 0) return false;
    if (s_.from_time && r.timestamp < *s_.from_time) return false;
    if (s_.to_time && r.timestamp > *s_.to_time) return false;
    if (s_.key && (r.key.null || text_of(r.key.bytes) != *s_.key)) return false;
    if (key_re_) {
      if (r.key.null) return false;
      if (!key_re_->search(text_of(r.key.bytes))) return false;
    }
    if (s_.value_contains && (r.value.null || text_of(r.value.bytes).find(*s_.value_contains) == std::string_view::npos))
      return false;
    if (s_.header_name && !header_matches(r)) return false;
    return true;
  }

 private:
  bool header_matches(const kept::Rec& r) const {
    v2::Record raw;
    raw.headers = r.headers;
    raw.headers_count = r.headers_count;
    v2::HeaderReader hr(raw);
    v2::Header h;
    while (hr.next(h)) {
      if (h.key != *s_.header_name) continue;
      if (!header_re_) return true;
      if (h.value.null) continue;
      if (header_re_->search(text_of(h.value.bytes))) return true;
    }
    return false;
  }

  const ExciseSelectors& s_;
  std::optional<ExcisePattern> key_re_, header_re_;
};

constexpr size_t kListedKeyBytes = 256;

struct Chosen {
  int64_t offset = 0, timestamp = -1;
  bool key_null = true;
  std::string key;
  int64_t size = 0;  // key, value and headers bytes
};

// What the excise finds in one segment.
struct SegmentFind {
  Offset base;
  std::string log_name;
  bool last_segment = false;
  int64_t chosen = 0, chosen_bytes = 0;
  bool damaged = false;  // a segment end or entry Kafka's recovery stops at
  std::string damage = {};
};

int64_t record_size(const kept::Rec& r) {
  return static_cast<int64_t>(r.key.bytes.size() + r.value.bytes.size() + r.headers.size());
}

// What to do with one entry: copy it, rebuild it from the records left
// (`left`), or drop it (an uncompressed v0/v1 message chosen); a compressed
// v0/v1 wrapper is rebuilt in its own format (rebuild_wrapper).
enum class Fate { copy, rebuild, wrapper, drop };

// An empty v2 batch over [first, last] (no producer, no leader epoch): what
// stands for a v0/v1 entry whose every message goes when it ends the log, so
// that the log end offset stays (Kafka 4.4 writes v2 batches into v0/v1 logs
// itself: its cleaner rewrites what it keeps as v2).
Status empty_batch(int64_t first, int64_t last, int64_t max_ts, std::vector<uint8_t>& out) {
  out.clear();
  v2::BatchHeader h;
  h.base_offset = first;
  h.last_offset_delta = static_cast<int32_t>(last - first);
  h.partition_leader_epoch = -1;
  h.magic = 2;
  h.base_timestamp = -1;
  h.max_timestamp = max_ts;
  h.producer_id = -1;
  h.producer_epoch = -1;
  h.base_sequence = -1;
  return v2::append_batch(h, Codec::none, {}, out);
}

// A compressed v0/v1 wrapper without the inner messages at `chosen`
// (absolute offsets), in its own format, as Kafka's cleaner of the v0/v1 era
// wrote what it kept: each kept inner message as it was (its stored offset:
// absolute in v0, relative in v1, so every absolute offset stays), the
// wrapper's offset the last kept one's, and its timestamp (v1 CreateTime) the
// largest kept. `out` is left empty when nothing is kept: the entry goes.
// Returns the last offset kept.
Result<std::optional<int64_t>> rebuild_wrapper(const kept::Batch& b, const std::vector<int64_t>& chosen,
                                               std::vector<uint8_t>& out) {
  out.clear();
  auto w = legacy::decode(b.ref);
  if (!w.ok()) return w.error();
  std::vector<uint8_t> scratch, set;
  std::vector<legacy::InnerMessage> inner;
  KSEG_RETURN_IF_ERROR(legacy::inner_messages(*w, scratch, v2::kDefaultMaxDecompressed, inner));
  std::vector<int64_t> gone(chosen);
  std::sort(gone.begin(), gone.end());
  std::optional<int64_t> last;
  int64_t max_ts = -1;
  for (const auto& m : inner) {
    if (std::binary_search(gone.begin(), gone.end(), m.absolute_offset)) continue;
    legacy::append_message(m.message, set);
    last = m.absolute_offset;
    max_ts = std::max(max_ts, m.message.timestamp);
  }
  if (!last) return last;
  legacy::Message wrapper = *w;
  wrapper.offset = *last;
  if (wrapper.timestamp_type() == v2::TimestampType::create_time) wrapper.timestamp = max_ts;
  KSEG_RETURN_IF_ERROR(legacy::append_wrapper(wrapper, static_cast<Codec>(w->codec_id()), set, out));
  return last;
}

// Walks the entries of `log` in order; for each decides its fate and
// tells `chosen` of each record chosen. Fails on a damaged entry only
// through `find.damaged`.
Status walk_segment(MappedFile& log, const Matcher& m, SegmentFind& find,
                    const std::function<void(const kept::Batch&, const kept::Rec&)>& chosen,
                    const std::function<Status(const EntryRef&, const kept::Batch&, Fate, const std::vector<kept::Rec>&,
                                               const std::vector<int64_t>&)>& each) {
  EntryScanner scan(log.bytes(), Position{0});
  std::vector<uint8_t> scratch;
  std::vector<kept::Rec> recs, left;
  std::vector<int64_t> gone;
  while (auto e = scan.next()) {
    log.release_before(e->position);  // resident memory flat in the segment's size
    const kept::Batch b = kept::batch_of(*e);
    if (b.check.fault() != SegmentEnd::clean) {
      find.damaged = true;
      find.damage = fmt::format("an entry Kafka's recovery stops at, at byte {}", e->position.value);
      return {};
    }
    Fate fate = Fate::copy;
    left.clear();
    gone.clear();
    if (m.may_match(b)) {
      if (Status st = kept::records_of(b, scratch, recs); !st.ok()) {
        find.damaged = true;
        find.damage = fmt::format("records that do not decode at byte {}: {}", e->position.value, st.error().message);
        return {};
      }
      for (const auto& r : recs) {
        if (m.record(r)) {
          gone.push_back(r.offset);
          if (chosen) chosen(b, r);
        } else {
          left.push_back(r);
        }
      }
      if (!gone.empty()) fate = b.check.v2() ? Fate::rebuild : b.codec != 0 ? Fate::wrapper : Fate::drop;
    }
    if (each) KSEG_RETURN_IF_ERROR(each(*e, b, fate, left, gone));
  }
  if (scan.end() != SegmentEnd::clean) {
    find.damaged = true;
    find.damage = fmt::format("its end ({}) at byte {}", segment_end_name(scan.end()), scan.valid_end().value);
  }
  return {};
}

// A batch rebuilt whose max timestamp moved: the snapshots after it that hold
// it as its producer's last batch carry the old one.
struct Moved {
  int64_t pid = 0, last = 0, max_ts = 0;
};

struct PartitionResult {
  std::vector<SegmentFind> segments;  // those with a chosen record
  std::vector<Chosen> listed;
  int64_t chosen = 0, chosen_bytes = 0;
  std::optional<int64_t> first, last;
  uint64_t offsets_mix = 0;  // of every chosen offset, in order (FNV-1a over their values)
  std::string fingerprint() const {
    return fmt::format("{} {} {} {} {:x}", chosen, chosen_bytes, first.value_or(-1), last.value_or(-1), offsets_mix);
  }
};

std::string hex(std::string_view bytes) {
  std::string out;
  append_hex(out, Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return out;
}

std::string key_text(const Chosen& c) {
  if (c.key_null) return "null";
  bool printable = std::all_of(c.key.begin(), c.key.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f; });
  return printable ? fmt::format("'{}'", c.key) : "0x" + hex(c.key);
}

nlohmann::json chosen_json(const Chosen& c) {
  nlohmann::json j{{"offset", c.offset}, {"timestamp", c.timestamp}, {"size", c.size}};
  j["key_hex"] = c.key_null ? nlohmann::json(nullptr) : nlohmann::json(hex(c.key));
  return j;
}

// The digest of the partition's .log files, in order: MD5 over each file's
// name and MD5.
Result<std::string> logs_digest(const std::string& dir) {
  auto layout = read_partition_layout(dir);
  if (!layout.ok()) return layout.error();
  std::string lines;
  for (const auto& [base, files] : layout->segments) {
    const std::string name = files.names.at(FileKind::log);
    auto f = MappedFile::open(dir + "/" + name);
    if (!f.ok()) return f.error().in(dir + "/" + name);
    // A window at a time, each released: resident memory flat in the segment's size.
    constexpr size_t kWindow = size_t{8} << 20;
    const Bytes all = f->bytes();
    Md5 m;
    for (size_t at = 0; at < all.size(); at += kWindow) {
      m.update(all.subspan(at, std::min(kWindow, all.size() - at)));
      f->release_before(Position{static_cast<int64_t>(std::min(at + kWindow, all.size()))});
    }
    const Md5Digest d = m.finish();
    lines += name + " ";
    append_hex(lines, Bytes(d));
    lines += "\n";
  }
  const Md5Digest all = md5(Bytes(reinterpret_cast<const uint8_t*>(lines.data()), lines.size()));
  std::string out;
  append_hex(out, Bytes(all));
  return out;
}

class Excise {
 public:
  Excise(const ExciseOptions& o, const TopicSettings& settings, const Matcher& m)
      : o_(o), settings_(settings), m_(m) {}

  int partition(const std::string& dir, const safe::DirLock* lock, Sink& out, Sink& err, nlohmann::json* report,
                RunTally& tally) {
    const bool text = report == nullptr;
    auto fail = [&](const Error& e) {
      err.print("kseg-excise: {}\n", error_text(e));
      if (report) report->push_back(error_json(dir, e));
      return exit_code_for(e.code);
    };
    auto layout = read_partition_layout(dir);
    if (!layout.ok()) return fail(layout.error());
    for (const auto& l : layout->leftovers)
      if (l.name.ends_with(".swap") || l.name.find(".swap.") != std::string::npos || l.name.ends_with(".cleaned"))
        return fail(refusal(Code::refuse_interrupted_clean, std::nullopt, fmt::format("{}/{}: left by an interrupted log cleaning", dir, l.name)));
    PartitionResult r;
    std::vector<std::pair<Offset, std::string>> segments;
    for (const auto& [base, files] : layout->segments) segments.emplace_back(base, files.names.at(FileKind::log));
    // Which segments hold a chosen record (by offsets alone, those outside every range are not read).
    for (size_t i = 0; i < segments.size(); ++i) {
      const Offset base = segments[i].first;
      const std::string& name = segments[i].second;
      if (!o_.select.offsets.empty()) {
        const int64_t next = i + 1 < segments.size() ? segments[i + 1].first.value : INT64_MAX;
        if (std::none_of(o_.select.offsets.begin(), o_.select.offsets.end(),
                         [&](const auto& g) { return g.second >= base.value && g.first < next; }))
          continue;
      }
      auto log = MappedFile::open(dir + "/" + name);
      if (!log.ok()) return fail(log.error().in(dir + "/" + name));
      SegmentFind find{base, name, i + 1 == segments.size()};
      Status st = walk_segment(*log, m_, find, [&](const kept::Batch&, const kept::Rec& rec) {
        ++find.chosen;
        find.chosen_bytes += record_size(rec);
        r.offsets_mix = (r.offsets_mix ^ static_cast<uint64_t>(rec.offset)) * 0x100000001b3u;
        r.first = r.first ? std::min(*r.first, rec.offset) : rec.offset;
        r.last = r.last ? std::max(*r.last, rec.offset) : rec.offset;
        if (r.listed.size() < o_.max_listed)  // (a key's first kListedKeyBytes: the list stays bounded)
          r.listed.push_back({rec.offset, rec.timestamp, rec.key.null,
                              std::string(text_of(rec.key.bytes.first(std::min(rec.key.bytes.size(), kListedKeyBytes)))),
                              record_size(rec)});
      }, {});
      if (!st.ok()) return fail(st.error().in(dir + "/" + name));
      // A segment whose scan stopped short may hold chosen records past the stop: refused too.
      if (find.chosen == 0 && !find.damaged) continue;
      if (find.damaged)
        return fail(refusal(Code::refuse_excise_damaged, std::nullopt,
                            fmt::format("{}/{}: {}: a rewrite would keep or drop what Kafka's recovery drops, and "
                                        "records after it are not read",
                                        dir, name, find.damage)));
      r.chosen += find.chosen;
      r.chosen_bytes += find.chosen_bytes;
      r.segments.push_back(std::move(find));
    }
    if (text && (o_.dry_run || o_.verbose))
      for (const auto& c : r.listed)
        out.print("{}: offset {} timestamp {} key {} size {}\n", dir, c.offset, c.timestamp, key_text(c), human_bytes(c.size));
    if (text && (o_.dry_run || o_.verbose) && r.chosen > static_cast<int64_t>(r.listed.size()))
      out.print("{}: ({} more records not listed)\n", dir, r.chosen - static_cast<int64_t>(r.listed.size()));
    if (o_.shown) {  // (partitions run on several threads)
      static std::mutex shown_mutex;
      std::lock_guard<std::mutex> hold(shown_mutex);
      if (o_.dry_run) {
        (*o_.shown)[dir] = r.fingerprint();
      } else if (const auto was = o_.shown->find(dir); was == o_.shown->end() || was->second != r.fingerprint()) {
        return fail(Error{Errc::io, std::nullopt,
                          fmt::format("{}: the records chosen are not those listed before the question ({} then, {} "
                                      "now): changed since; nothing written, run it again",
                                      dir, was == o_.shown->end() ? "none" : was->second.substr(0, was->second.find(' ')),
                                      r.chosen)});
      }
    }
    if (r.chosen == 0) {
      if (text) out.print("{}: no record selected; nothing to change\n", dir);
      else report->push_back(to_json(dir, r, "unchanged"));
      return digest(dir, out, err, report, text) ? kExitOk : kExitIo;
    }
    if (o_.dry_run) {
      tally.add(r.chosen, r.chosen_bytes);
      if (text)
        out.print("{}: dry run: would remove {} record{} ({} of keys, values and headers), offsets {}..{}, in {} "
                  "segment{}; nothing written\n",
                  dir, r.chosen, r.chosen == 1 ? "" : "s", human_bytes(r.chosen_bytes), *r.first, *r.last,
                  r.segments.size(), r.segments.size() == 1 ? "" : "s");
      else report->push_back(to_json(dir, r, "planned"));
      return kExitProblems;
    }
    if (lock == nullptr) {
      err.print("kseg-excise: {}: no lock held on its log dir\n", dir);
      return kExitIo;
    }
    recover::Config config;
    if (Status st = index_settings(settings_, dir, config); !st.ok()) return fail(st.error());
    safe::Space space;
    std::string backup;
    for (const auto& s : r.segments) {
      auto plan = rewrite(dir, s, config, *layout);
      if (!plan.ok()) return fail(plan.error());
      auto applied = safe::apply(*plan, {false, o_.backup, o_.backup_dir, backup, &space}, *lock);
      if (!applied.ok()) return fail(applied.error());
      if (!applied->empty()) backup = *applied;
    }
    tally.add(r.chosen, r.chosen_bytes);
    if (text) {
      out.print("{}: removed {} record{} ({} of keys, values and headers), offsets {}..{}, from {} segment{}; {}\n", dir,
                r.chosen, r.chosen == 1 ? "" : "s", human_bytes(r.chosen_bytes), *r.first, *r.last, r.segments.size(),
                r.segments.size() == 1 ? "" : "s", space_text(space, backup));
    } else {
      auto j = to_json(dir, r, "applied");
      if (!backup.empty()) j["backup"] = backup;
      j["space"] = space_json(space);
      report->push_back(std::move(j));
    }
    return digest(dir, out, err, report, text) ? kExitOk : kExitIo;
  }

 private:
  nlohmann::json to_json(const std::string& dir, const PartitionResult& r, const char* status) const {
    nlohmann::json j{{"partition", dir}, {"status", status}};
    j["removed"] = {{"records", r.chosen}, {"bytes", r.chosen_bytes}};
    j["removed"]["first_offset"] = r.first ? nlohmann::json(*r.first) : nlohmann::json(nullptr);
    j["removed"]["last_offset"] = r.last ? nlohmann::json(*r.last) : nlohmann::json(nullptr);
    auto& segs = j["segments"] = nlohmann::json::array();
    for (const auto& s : r.segments) segs.push_back({{"file", s.log_name}, {"records", s.chosen}});
    auto& recs = j["records"] = nlohmann::json::array();
    for (const auto& c : r.listed) recs.push_back(chosen_json(c));
    j["records_listed_all"] = r.chosen == static_cast<int64_t>(r.listed.size());
    return j;
  }

  bool digest(const std::string& dir, Sink& out, Sink& err, nlohmann::json* report, bool text) const {
    if (!o_.digest) return true;
    auto d = logs_digest(dir);
    if (!d.ok()) {
      err.print("kseg-excise: {}: digest: {}\n", dir, error_text(d.error()));
      return false;
    }
    if (text) out.print("{}: digest {} (MD5 of its .log files' names and MD5s; equal on replicas excised alike)\n", dir, *d);
    else if (!report->empty()) (*report)[report->size() - 1]["digest"] = *d;
    return true;
  }

  // The segment rewritten into <base>.log.kseg-tmp, its indexes rebuilt as
  // Kafka's recovery writes them, and the snapshots that held a rebuilt
  // batch's old largest timestamp; the plan that puts them in place (the
  // .index unlinked first and renamed last, so that a crash between makes
  // Kafka recover the segment, whichever .log it finds).
  Result<safe::Plan> rewrite(const std::string& dir, const SegmentFind& s, const recover::Config& config,
                             const PartitionLayout& layout) const {
    std::vector<Moved> moved;
    safe::Plan plan{dir, {}};
    const std::string index = file_names::segment_file_name(s.base, FileKind::index);
    const std::string timeindex = file_names::segment_file_name(s.base, FileKind::timeindex);
    plan.actions.push_back(safe::Action::hide(index, "so that a crash while the segment changes makes Kafka recover it"));
    plan.actions.push_back(safe::Action::adopt(
        s.log_name, fmt::format("{} record{} removed; every other batch as it was", s.chosen, s.chosen == 1 ? "" : "s")));
    auto tmp = safe::TmpFile::create(plan, plan.actions.back());
    if (!tmp.ok()) return tmp.error();
    auto log = MappedFile::open(dir + "/" + s.log_name);
    if (!log.ok()) return log.error().in(dir + "/" + s.log_name);
    std::vector<uint8_t> buf, rebuilt;
    // Offsets a v0/v1 entry gave up at its end (all of them, when it is dropped whole), until a
    // later entry is written: at the log's end an empty v2 batch stands for them, so that the log
    // end offset does not move.
    std::optional<std::tuple<int64_t, int64_t, int64_t>> dropped;
    SegmentFind again{s.base, s.log_name, s.last_segment};
    Status st = walk_segment(*log, m_, again, {}, [&](const EntryRef& e, const kept::Batch& b, Fate fate,
                                                      const std::vector<kept::Rec>& left,
                                                      const std::vector<int64_t>& gone) -> Status {
      const size_t before = buf.size();
      std::optional<std::pair<int64_t, int64_t>> gave_up;  // offsets this entry no longer ends with
      if (fate == Fate::copy) {
        buf.insert(buf.end(), e.bytes.begin(), e.bytes.end());
      } else if (fate == Fate::drop) {
        gave_up = std::pair{gone.front(), gone.back()};
      } else if (fate == Fate::wrapper) {
        auto last = rebuild_wrapper(b, gone, rebuilt);
        if (!last.ok()) return last.error();
        if (!*last) gave_up = std::pair{gone.front(), gone.back()};
        else if (**last < b.last) gave_up = std::pair{**last + 1, b.last};
        buf.insert(buf.end(), rebuilt.begin(), rebuilt.end());
      } else if (fate == Fate::rebuild) {
        // (Emptied, it is the header Kafka's cleaner writes: no delete horizon.)
        auto h = kept::rebuild_batch(b, left, left.empty() ? std::nullopt : b.horizon, rebuilt);
        if (!h.ok()) return h.error();
        if (b.has_pid && h->max_timestamp != b.check.header.max_timestamp)
          moved.push_back({b.pid, h->last_offset(), h->max_timestamp});
        buf.insert(buf.end(), rebuilt.begin(), rebuilt.end());
      }
      const bool wrote = buf.size() > before;
      if (wrote) dropped.reset();
      if (gave_up)
        dropped = std::tuple{dropped ? std::get<0>(*dropped) : gave_up->first, gave_up->second,
                             std::max(dropped ? std::get<2>(*dropped) : int64_t{-1}, b.max_ts)};
      if (buf.size() >= (1u << 20)) {
        KSEG_RETURN_IF_ERROR(tmp->write(buf));
        buf.clear();
      }
      return {};
    });
    if (!st.ok()) return st.error();
    if (dropped && s.last_segment) {
      KSEG_RETURN_IF_ERROR(empty_batch(std::get<0>(*dropped), std::get<1>(*dropped), std::get<2>(*dropped), rebuilt));
      buf.insert(buf.end(), rebuilt.begin(), rebuilt.end());
    }
    if (again.damaged)  // read again as it was read first
      return Error{Errc::io, std::nullopt, fmt::format("{}/{}: changed while read", dir, s.log_name)};
    KSEG_RETURN_IF_ERROR(tmp->write(buf));
    KSEG_RETURN_IF_ERROR(tmp->finish());
    // Finished, the tmp file is no longer removed with the TmpFile: on a failure from here, here.
    const std::string tmp_path = tmp->path();
    auto drop_tmp = [&](Error e) {
      std::error_code ec;
      fs::remove(tmp_path, ec);
      return e;
    };
    auto written = MappedFile::open(tmp_path);
    if (!written.ok()) return drop_tmp(written.error());
    if (written->size() > INT32_MAX)  // a batch recompressed larger: Kafka loads no .log over 2 GiB
      return drop_tmp(refusal(Code::refuse_segment_overflow, std::nullopt,
                              fmt::format("{}/{}: rewritten, it would exceed 2 GiB", dir, s.log_name)));
    auto rec = recover::recover_segment(written->bytes(), s.base, config,
                                        [&](Position p) { written->release_before(p); });
    if (!rec.ok()) return drop_tmp(rec.error().in(tmp_path));
    if (rec->truncates())
      return drop_tmp(Error{Errc::internal, rec->valid_end,
                            fmt::format("{}: Kafka's recovery would cut the rewritten segment: {}", tmp_path,
                                        rec->stop_detail)});
    plan.actions.push_back(safe::Action::write(timeindex, rec->time_index, "rebuilt as Kafka's recovery writes it"));
    auto snaps = patch_snapshots(layout, moved, plan);
    if (!snaps.ok()) return drop_tmp(snaps.error());
    plan.actions.push_back(safe::Action::write(index, rec->offset_index, "rebuilt as Kafka's recovery writes it (renamed last)"));
    return plan;
  }

  // Each producer snapshot after a rebuilt batch whose max timestamp moved,
  // that holds it as its producer's last batch, with the new timestamp (as
  // Kafka's recovery would take it from the batch).
  // Into `plan` (read as it is now: an earlier segment's plan may have patched it).
  Status patch_snapshots(const PartitionLayout& layout, const std::vector<Moved>& moved, safe::Plan& plan) const {
    const std::string& dir = plan.partition_dir;
    if (moved.empty()) return {};
    for (const auto& [offset, name] : layout.snapshots) {
      auto f = MappedFile::open(dir + "/" + name);
      if (!f.ok()) return f.error().in(dir + "/" + name);
      auto snap = producer_snapshot::read(f->bytes());
      if (!snap.ok()) continue;  // Kafka's load deletes or rebuilds it; kseg verify reports it
      bool changed = false;
      for (auto& e : snap->entries)
        for (const auto& m : moved)
          if (m.last < offset.value && e.producer_id == m.pid && e.last_offset == m.last && e.timestamp_ms != m.max_ts) {
            e.timestamp_ms = m.max_ts;
            changed = true;
          }
      if (changed)
        plan.actions.push_back(safe::Action::write(name, producer_snapshot::encode(snap->entries),
                                                   "a producer's last batch rebuilt: its max timestamp as it is now"));
    }
    return {};
  }

  const ExciseOptions& o_;
  const TopicSettings& settings_;
  const Matcher& m_;
};

}  // namespace

int run_excise(const ExciseOptions& options, Sink& out, Sink& err) {
  auto settings = TopicSettings::open(SettingsFiles{options.topic_config, options.broker_config, {}});
  if (!settings.ok()) return report_failure("kseg-excise", settings.error(), err);
  std::optional<Matcher> m;
  try {
    m.emplace(options.select);
  } catch (const std::regex_error& e) {
    err.print("kseg-excise: a regular expression does not compile: {}\n", e.what());
    return kExitUsage;
  }
  Excise x(options, **settings, *m);
  RunTally tally;
  const int rc = run_partitions("kseg-excise", options, out, err,
                                [&](const PartitionJob& job, const safe::DirLock* lock, Sink& job_out, Sink& job_err,
                                    nlohmann::json* report) {
                                  return x.partition(job.dir, lock, job_out, job_err, report, tally);
                                });
  tally.print(options, out, options.dry_run ? "would be excised" : "excised", "records",
              options.dry_run ? " of keys, values and headers; nothing written" : " of keys, values and headers");
  return rc;
}

}  // namespace kseg
