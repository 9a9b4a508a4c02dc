// One round of Kafka 4.4.0's Cleaner.doClean, offline. The steps and every
// rule are in formats/log-cleaning.md ("One round" steps 1-6 and the parts
// named below).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "formats/batch_check.h"
#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"
#include "formats/offset_index.h"
#include "formats/offset_map.h"
#include "formats/time_index.h"
#include "lib/cpus.h"
#include "lib/mapped_file.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/partition/log_dir.h"

namespace kseg::compact {

namespace {

// A compressed batch's records are read up to this much (kseg-dump's and
// kseg-verify's default --max-decompressed-bytes).
constexpr size_t kMaxDecompressed = 256u << 20;

// The parallel walks' chunks: an examined entry holds its records (about as
// many bytes again as the batch): 2 MiB chunks keep that, and the mapped
// pages of three chunks, to a few MiB beside the offset map.
constexpr int64_t kChunkBytes = 2 << 20;

Error fail(Errc c, std::string m) { return Error{c, std::nullopt, std::move(m)}; }

Error at(const std::string& file, Position pos, const std::string& what) {
  return Error{Errc::refused, pos,
               fmt::format("{}: position {}: {}; Kafka's cleaner stops here too. Nothing was changed by this round "
                           "from here on; `kseg reindex --salvage` removes the damaged batch",
                           file, pos.value, what)};
}

// One entry as the cleaner's filter sees it (a v2 batch or a legacy entry).
struct Batch {
  EntryRef ref;
  EntryCheck check;
  int8_t magic = 0;
  int64_t base = 0, last = 0, max_ts = -1;
  bool control = false, txn = false, has_pid = false, log_append_time = false;
  int64_t pid = -1;
  int16_t epoch = -1;
  std::optional<int64_t> horizon;
  int codec = 0;
};

Batch batch_of(const EntryRef& e) {
  Batch b;
  b.ref = e;
  b.check = check_entry(e);
  b.magic = e.magic;
  b.base = b.check.base_offset;
  b.last = b.check.last_offset;
  b.max_ts = b.check.max_timestamp;
  b.codec = b.check.codec_id;
  if (b.check.v2()) {
    const auto& h = b.check.header;
    b.control = h.is_control();
    b.txn = h.is_transactional();
    b.pid = h.producer_id;
    b.epoch = h.producer_epoch;
    b.has_pid = h.producer_id >= 0;
    b.log_append_time = h.timestamp_type() == v2::TimestampType::log_append_time;
    if (h.has_delete_horizon()) b.horizon = h.base_timestamp;
  } else {
    b.log_append_time = b.check.message && b.check.message->timestamp_type() == v2::TimestampType::log_append_time;
  }
  return b;
}

struct Rec {
  int64_t offset = 0, timestamp = -1;
  int8_t magic = 0;
  v2::Blob key, value;
  Bytes headers;
  int32_t headers_count = 0;
};

// The records of a batch in order (Kafka's deep iteration).
Status records_of(const Batch& b, std::vector<uint8_t>& scratch, std::vector<Rec>& out) {
  out.clear();
  if (b.check.v2()) {
    const auto& h = b.check.header;
    auto bytes = v2::records_bytes(b.ref, h, scratch, kMaxDecompressed);
    if (!bytes.ok()) return bytes.error();
    v2::RecordReader reader(*bytes, Position{0}, h.records_count);
    out.reserve(static_cast<size_t>(std::clamp(h.records_count, 0, 1 << 16)));
    v2::Record r;
    while (reader.next(r))
      out.push_back({h.record_offset(r.offset_delta), h.record_timestamp(r.timestamp_delta), 2, r.key, r.value,
                     r.headers, r.headers_count});
    if (!reader.status().ok()) return reader.status();
    return reader.finish();
  }
  if (!b.check.message) return legacy::decode(b.ref).status();
  const legacy::Message& m = *b.check.message;
  if (m.codec_id() == 0) {
    out.push_back({m.offset, m.timestamp, m.magic, m.key, m.value, {}, 0});
    return {};
  }
  std::vector<legacy::InnerMessage> inner;
  KSEG_RETURN_IF_ERROR(legacy::inner_messages(m, scratch, kMaxDecompressed, inner));
  for (const auto& i : inner)
    out.push_back({i.absolute_offset, i.timestamp, i.message.magic, i.message.key, i.message.value, {}, 0});
  return {};
}

// The control type of a control batch's first record; none when it has none.
Result<std::optional<int16_t>> control_type(const Batch& b, std::vector<uint8_t>& scratch) {
  std::vector<Rec> recs;
  KSEG_RETURN_IF_ERROR(records_of(b, scratch, recs));
  if (recs.empty()) return std::optional<int16_t>{};
  auto k = control::decode_key(recs[0].key);
  if (!k.ok()) return k.error();
  return std::optional<int16_t>{k->type};
}

// What the parallel walk's examining threads make of one entry before the
// calling thread consumes it in order: the batch decoded, its records (their
// bytes owned here when decompressed), and for each record the key's offset
// in the map where asked (-1: absent; -2: not looked up). The map is only
// read while entries are examined; puts happen in consume, in file order.
struct Examined {
  Batch b;
  Status status;
  std::optional<int16_t> control_type;
  std::vector<uint8_t> buf;
  std::vector<Rec> recs;
  std::vector<Md5Digest> digests;  // of recs[k]'s key where hashed[k]
  std::vector<char> hashed;
  std::vector<int64_t> found;
  std::vector<std::pair<int64_t, Md5Digest>> keyed;  // the map pass: (offset, key digest), in order
  bool redecode = false;  // records too large to hold while waiting: decoded again when consumed
};

// Decodes `e` into `x`; hashes the keys `wanted(rec)` selects, and looks
// them up in `lookup` when given.
template <class Wanted>
void examine(const EntryRef& e, Examined& x, Wanted&& wanted, const OffsetMap* lookup) {
  x.b = batch_of(e);
  if (x.b.control) {
    auto t = control_type(x.b, x.buf);
    if (!t.ok()) x.status = t.error();
    else x.control_type = *t;
    return;
  }
  if (Status r = records_of(x.b, x.buf, x.recs); !r.ok()) {
    x.status = r;
    return;
  }
  std::vector<Bytes> keys;
  std::vector<size_t> which;
  x.hashed.assign(x.recs.size(), 0);
  for (size_t k = 0; k < x.recs.size(); ++k)
    if (!x.recs[k].key.null && wanted(x.recs[k])) {
      keys.push_back(x.recs[k].key.bytes);
      which.push_back(k);
      x.hashed[k] = 1;
    }
  std::vector<Md5Digest> d(keys.size());
  md5_many(keys, d.data());
  x.digests.resize(x.recs.size());
  for (size_t j = 0; j < which.size(); ++j) x.digests[which[j]] = d[j];
  if (!lookup) {  // the map pass keeps only what a put needs
    for (size_t j = 0; j < which.size(); ++j) x.keyed.emplace_back(x.recs[which[j]].offset, d[j]);
    std::vector<Rec>().swap(x.recs);
    std::vector<uint8_t>().swap(x.buf);
    std::vector<Md5Digest>().swap(x.digests);
    std::vector<char>().swap(x.hashed);
    return;
  }
  for (const auto& h : d) lookup->prefetch(h);
  x.found.assign(x.recs.size(), -2);
  for (size_t j = 0; j < which.size(); ++j) x.found[which[j]] = lookup->get(d[j]);
  // Two chunks of entries wait to be consumed: keep each small. Records that
  // decompressed to much more than the batch (a hostile ratio) are dropped
  // and decoded again in order, so a chunk holds a few times its bytes.
  std::vector<Md5Digest>().swap(x.digests);
  std::vector<char>().swap(x.hashed);
  if (x.buf.size() > 4 * e.bytes.size() + (64u << 10)) {
    std::vector<Rec>().swap(x.recs);
    std::vector<uint8_t>().swap(x.buf);
    x.redecode = true;
  }
}

// Kafka's CleanedTransactionMetadata (log-cleaning.md, per batch: the
// tracker).
class Tracker {
 public:
  void add(const std::vector<txn_index::AbortedTxn>& txns) {
    for (const auto& t : txns) heap_.push(t);
  }
  // Whether a data batch belongs to an aborted transaction.
  bool on_batch(const Batch& b) {
    consume_up_to(b.last);
    if (!b.txn) return false;
    if (auto it = aborted_.find(b.pid); it != aborted_.end()) {
      it->second.observed = true;
      return true;
    }
    committed_.insert(b.pid);
    return false;
  }
  // Whether a control batch may be discarded; an ABORT whose transaction
  // was seen in this round is kept and its entry goes to `cleaned_index`.
  bool on_control(const Batch& b, std::optional<int16_t> type) {
    consume_up_to(b.last);
    if (!type) return true;  // an empty control batch was cleaned already
    if (*type == static_cast<int16_t>(control::Type::abort)) {
      auto it = aborted_.find(b.pid);
      if (it == aborted_.end()) return true;
      const Ongoing o = it->second;
      aborted_.erase(it);
      if (!o.observed) return true;
      if (cleaned_index) cleaned_index->push_back(o.txn);
      return false;
    }
    if (*type == static_cast<int16_t>(control::Type::commit)) return committed_.erase(b.pid) == 0;
    return false;
  }
  std::vector<txn_index::AbortedTxn>* cleaned_index = nullptr;

 private:
  void consume_up_to(int64_t offset) {
    while (!heap_.empty() && heap_.top().first_offset <= offset) {
      aborted_.try_emplace(heap_.top().producer_id, Ongoing{heap_.top(), false});
      heap_.pop();
    }
  }
  struct Later {
    bool operator()(const txn_index::AbortedTxn& a, const txn_index::AbortedTxn& b) const {
      return a.first_offset > b.first_offset;
    }
  };
  struct Ongoing {
    txn_index::AbortedTxn txn;
    bool observed = false;
  };
  std::priority_queue<txn_index::AbortedTxn, std::vector<txn_index::AbortedTxn>, Later> heap_;
  std::map<int64_t, Ongoing> aborted_;
  std::set<int64_t> committed_;
};

// LocalLog.collectAbortedTransactions(logStartOffset, base, upper): from
// the segment holding `base`, every entry with lastOffset >= the log start
// and firstOffset < upper, up to the first segment holding an entry whose
// last stable offset is >= upper.
std::vector<txn_index::AbortedTxn> collect_aborted(const Input& p, int64_t base, int64_t upper) {
  std::vector<txn_index::AbortedTxn> out;
  size_t i = 0;
  while (i + 1 < p.segments.size() && p.segments[i + 1].base <= base) ++i;
  for (; i < p.segments.size(); ++i) {
    bool complete = false;
    for (const auto& t : p.aborted[i]) {
      if (t.last_offset >= p.log_start() && t.first_offset < upper) out.push_back(t);
      if (t.last_stable_offset >= upper) {
        complete = true;
        break;
      }
    }
    if (complete) break;
  }
  return out;
}

// The cleaned segment being written: LogSegment.append's index rule per
// batch (log-cleaning.md, the new segment's indexes: 4.4.0 indexes each
// appended batch as recovery does), then onBecomeInactiveSegment's final
// time entry. With fd < 0 (a dry run) only sizes are counted.
class Dest {
 public:
  Dest(const Input& p, int64_t base, const Settings& s, bool write)
      : p_(p), base_(base), interval_(s.index_interval_bytes), max_entries_(s.segment_index_bytes),
        index_(Offset{base}), tix_(Offset{base}), write_(write) {}
  // A segment never swapped in is deleted, as Kafka's cleaner deletes its
  // .cleaned segment when a round aborts.
  ~Dest() {
    if (fd_ >= 0) ::close(fd_);
    if (write_ && !committed)
      for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
        ::unlink(p_.path(base_, suffix).c_str());
  }
  bool committed = false;  // renamed to .swap: the loader finishes it from here
  Status open() {
    if (!write_) return {};
    auto dir = safe::Dir::open(p_.dir);
    if (!dir.ok()) return dir.error();
    dir_.emplace(std::move(*dir));
    std::vector<std::string> cleaned;
    for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
      cleaned.push_back(p_.path(base_, suffix));
    on_interrupt_.emplace(cleaned);  // an interrupted round leaves no .cleaned file, as its end says
    for (const char* suffix : {".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
      ::unlinkat(dir_->fd(), name(suffix).c_str(), 0);  // a stale one (createNewCleanedSegment deletes them too)
    auto fd = dir_->create(name(".log.cleaned"));  // never through a link planted at the name
    if (!fd.ok()) return fd.error();
    fd_ = *fd;
    return {};
  }
  Status append(Bytes batch, int64_t last_offset, int64_t max_ts) {
    if (last_offset - base_ < 0 || last_offset - base_ > INT32_MAX)
      return fail(Errc::refused, fmt::format("{}: offset {} does not fit a segment based at {} (Kafka splits the "
                                             "segment first; the broker does this at its next cleaning)",
                                             p_.dir, last_offset, base_));
    if (max_ts > max_ts_) {
      max_ts_ = max_ts;
      offset_of_max_ = last_offset;
    }
    if (since_ > interval_) {
      if ((index_.entries() + 1) * 8 > max_entries_ || (tix_.entries() + 1) * 12 > max_entries_)
        return fail(Errc::refused, fmt::format("{}: the cleaned segment at {} would overflow segment.index.bytes",
                                               p_.dir, base_));
      KSEG_RETURN_IF_ERROR(index_.append(Offset{last_offset}, static_cast<int32_t>(position_)));
      if (auto r = tix_.maybe_append(max_ts_, Offset{offset_of_max_}); !r.ok()) return r.error();
      since_ = 0;
    }
    since_ += static_cast<int64_t>(batch.size());
    position_ += static_cast<int64_t>(batch.size());
    if (position_ > INT32_MAX) return fail(Errc::refused, fmt::format("{}: a cleaned segment over 2 GiB", p_.dir));
    if (write_) {
      buf_.insert(buf_.end(), batch.begin(), batch.end());
      if (buf_.size() >= (1u << 20)) KSEG_RETURN_IF_ERROR(flush());
    }
    return {};
  }
  // The final time entry, the index files, fsync, and the last source
  // segment's mtime on .log, .index and .timeindex (LogSegment.setLastModified).
  Status finish(int64_t mtime_ms) {
    if (auto r = tix_.maybe_append(max_ts_, Offset{offset_of_max_}); !r.ok()) return r.error();
    if (!write_) return {};
    KSEG_RETURN_IF_ERROR(flush());
    if (::fsync(fd_) != 0) return io(p_.path(base_, ".log.cleaned"), "cannot fsync");
    safe::crash_point("cleaned-partial");
    KSEG_RETURN_IF_ERROR(write_file(".index.cleaned", index_.bytes()));
    KSEG_RETURN_IF_ERROR(write_file(".timeindex.cleaned", tix_.bytes()));
    if (!txns.empty()) KSEG_RETURN_IF_ERROR(write_file(".txnindex.cleaned", txn_index::encode(txns)));
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = mtime_ms / 1000;
    times[0].tv_nsec = times[1].tv_nsec = (mtime_ms % 1000) * 1000000;
    for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned"})
      if (::utimensat(dir_->fd(), name(suffix).c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
        return io(p_.path(base_, suffix), "cannot set the modification time of");
    return {};
  }
  int64_t size() const { return position_; }
  std::vector<txn_index::AbortedTxn> txns;

 private:
  Error io(const std::string& path, const char* what) {
    return fail(Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  }
  Status flush() {
    size_t done = 0;
    while (done < buf_.size()) {
      const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return io(p_.path(base_, ".log.cleaned"), "cannot write");
      done += static_cast<size_t>(n);
    }
    buf_.clear();
    return {};
  }
  Status write_file(const char* suffix, const std::vector<uint8_t>& bytes) {
    const std::string path = p_.path(base_, suffix);
    auto created = dir_->create(name(suffix));
    if (!created.ok()) return created.error();
    const int fd = *created;
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        return io(path, "cannot write");
      }
      done += static_cast<size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return io(path, "cannot fsync");
    return {};
  }

  // A file of this segment by name, relative to dir_.
  std::string name(const char* suffix) const { return fmt::format("{:020d}{}", base_, suffix); }

  const Input& p_;
  std::optional<safe::Dir> dir_;  // the partition directory, held open while writing
  std::optional<safe::InterruptCleanup> on_interrupt_;
  int64_t base_;
  int64_t interval_, max_entries_;
  offset_index::Writer index_;
  time_index::Writer tix_;
  bool write_;
  int fd_ = -1;
  int64_t position_ = 0, since_ = 0, max_ts_ = -1, offset_of_max_ = 0;
  std::vector<uint8_t> buf_;
};

struct LastRecord {
  std::optional<int64_t> last_data_offset;
  int16_t epoch = 0;
};

class Round {
 public:
  Round(const Input& p, const Settings& s, const RoundOptions& o) : p_(p), s_(s), o_(o), map_(s.offset_map_bytes) {}
  Result<RoundStats> run();

 private:
  // Steps 1-2: the round's bounds into st_; the first uncleanable segment's base.
  int64_t bounds();
  // Step 5: groups of the segments below st_.end_offset.
  std::vector<std::vector<size_t>> groups(int64_t first_uncleanable) const;
  Status validate(size_t seg);
  Status build_map(int64_t start, int64_t end);
  Status clean_group(const std::vector<size_t>& group, Tracker& tracker);
  Status clean_segment(size_t seg, Dest& dest, Tracker& tracker);
  Status emit(const Batch& b, const std::vector<Rec>& kept, std::optional<int64_t> horizon, Dest& dest);
  // The records of `b` in kept_ into dest: its bytes as they are when none
  // went (`original`) and no delete horizon is to be stamped, else rebuilt.
  Status write_kept(const EntryRef& e, const Batch& b, bool original, bool stamp, Dest& dest);
  Status swap_in(const std::vector<size_t>& group, Dest& dest);
  Result<MappedFile> open_log(size_t seg) const {
    auto f = MappedFile::open(p_.path(p_.segments[seg].base, ".log"));
    if (!f.ok()) return fail(Errc::io, fmt::format("{}: {}", p_.path(p_.segments[seg].base, ".log"), f.error().message));
    return f;
  }
  bool retain_record(const Batch& b, const Rec& r, int64_t found, bool retain_legacy_deletes);


  const Input& p_;
  const Settings& s_;
  const RoundOptions& o_;
  OffsetMap map_;
  RoundStats st_;
  int64_t legacy_horizon_ = 0;
  std::map<int64_t, LastRecord> last_records_;
  std::vector<uint8_t> scratch_, out_;
  std::vector<Rec> kept_;
  unsigned threads_ = std::min(2u, usable_cpus());  // decode, hash and look up beside the caller
};

// Every batch of a segment the round reads must be one Kafka's reader
// accepts: checked before anything is written, so a damaged segment
// changes nothing.
Status Round::validate(size_t seg) {
  auto f = open_log(seg);
  if (!f.ok()) return f.error();
  const std::string file = p_.path(p_.segments[seg].base, ".log");
  EntryScanner scanner(f->bytes(), Position{0});
  while (auto e = scanner.next()) {
    f->release_before(e->position);  // in 2 MiB steps: resident memory stays flat
    const EntryCheck c = check_entry(*e);
    if (c.fault() == SegmentEnd::too_small) return at(file, e->position, too_small_text(*e));
    if (c.fault() == SegmentEnd::bad_crc) return at(file, e->position, crc_mismatch_text(c));
    if (!c.decoded) return at(file, e->position, "a message whose key or value runs past its end");
    if (!c.codec_known) return at(file, e->position, unknown_codec_text(c));
    if (needs_marker_check(c))
      if (Status m = check_control_marker(*e, c.header, kMaxDecompressed); !m.ok())
        return at(file, e->position, m.error().message);
  }
  if (scanner.end() != SegmentEnd::clean) return at(file, scanner.valid_end(), segment_end_detail(scanner));
  return {};
}

// Step 4: the map over [start, end), from the offset index's entry for start.
Status Round::build_map(int64_t start, int64_t end) {
  Tracker tracker;
  tracker.add(collect_aborted(p_, start, end));
  const int64_t max_entries = map_.max_entries(s_.load_factor);
  st_.map_capacity = max_entries;
  size_t i = 0;
  while (i + 1 < p_.segments.size() && p_.segments[i + 1].base <= start) ++i;
  const size_t first = i;
  // --until-clean refuses a map that fills inside the round's first segment
  // (a round would clean less than a segment: the run takes a round per map
  // of keys): the rest of that segment is read to count the keys it lacks.
  int64_t lacking = 0;
  for (; i < p_.segments.size() && p_.segments[i].base < end; ++i) {
    const int64_t next = i + 1 < p_.segments.size() && p_.segments[i + 1].base < end ? p_.segments[i + 1].base : end;
    auto f = open_log(i);
    if (!f.ok()) return f.error();
    int64_t from = 0;
    if (p_.segments[i].base < start) {
      auto idx = MappedFile::open(p_.path(p_.segments[i].base, ".index"));
      if (!idx.ok()) return fail(Errc::io, fmt::format("{}: {}", p_.path(p_.segments[i].base, ".index"), idx.error().message));
      offset_index::View v(idx->bytes(), Offset{p_.segments[i].base});
      from = offset_index::lookup(v, v.slot_count(), Offset{start}).position;
      if (from < 0 || from > f->size()) from = 0;
    }
    EntryScanner scanner(f->bytes().subspan(static_cast<size_t>(from)), Position{from});
    Status failed;
    bool full = false;
    const std::string file = p_.path(p_.segments[i].base, ".log");
    walk_entries<Examined>(
        scanner, threads_,
        [&](const WalkEntry& w, unsigned) {
          Examined x;
          examine(w.ref(), x, [&](const Rec& r) { return r.offset >= start; }, nullptr);
          return x;
        },
        [&](const EntryRef& e, Examined& x) {
          const Batch& b = x.b;
          if (!x.status.ok()) {
            failed = at(file, e.position, x.status.error().message);
            return Step::stop;
          }
          if (b.control) {
            tracker.on_control(b, x.control_type);
          } else if (!tracker.on_batch(b)) {
            for (const auto& [offset, digest] : x.keyed) {
              if (full) {  // counting only
                if (map_.get(digest) < 0) ++lacking;
                continue;
              }
              if (map_.size() >= max_entries) {
                full = true;
                if (!o_.refuse_small_map || i != first) return Step::stop;
                if (map_.get(digest) < 0) ++lacking;
                continue;
              }
              map_.put(digest, offset);
              ++st_.map_records;
            }
          }
          if (b.last >= start) map_.update_latest_offset(b.last);
          x = Examined{};
          return Step::accept;
        },
        [&](Position consumed) { f->release_before(consumed); }, kChunkBytes);
    if (!failed.ok()) return failed;
    if (full && o_.refuse_small_map && i == first) {
      // Room for every key the segment adds (an upper bound: keys that did
      // not fit are counted once per record) and one more: the map stops
      // when it is full, before a put that would not grow it.
      const int64_t keys = map_.size() + lacking + 1;
      int64_t slots = static_cast<int64_t>(std::ceil(static_cast<double>(keys) / s_.load_factor));
      while (static_cast<int64_t>(static_cast<double>(slots) * s_.load_factor) < keys) ++slots;
      return fail(Errc::usage,
                  fmt::format("{}: an offset map of {} bytes holds {} keys (load factor {}), and {} has up to {} from "
                              "offset {}: --until-clean would run a round per map of keys, each cleaning less than a "
                              "segment; give --offset-map-bytes {} or more, or a number of --rounds",
                              p_.dir, s_.offset_map_bytes, max_entries, s_.load_factor, file, keys - 1,
                              std::max(start, p_.segments[i].base), slots * OffsetMap::kBytesPerEntry));
    }
    if (full) {
      st_.map_full = true;
      return {};
    }
    map_.update_latest_offset(next - 1);
  }
  return {};
}

bool Round::retain_record(const Batch& b, const Rec& r, int64_t found, bool retain_legacy_deletes) {
  if (r.offset > map_.latest_offset()) return true;
  if (r.key.null) {
    ++st_.records_unkeyed;
    return false;
  }
  const bool latest = r.offset >= found;
  const bool retain_deletes = b.magic >= 2 ? (!b.horizon || o_.now_ms < *b.horizon) : retain_legacy_deletes;
  if (latest && (!r.value.null || retain_deletes)) return true;
  if (!latest) ++st_.records_superseded;
  else ++st_.tombstones_removed;
  return false;
}

// Writes what survives of one batch (log-cleaning.md, what is written per
// batch): the original bytes, a rebuilt batch, or (kept empty) a 61-byte
// header. Kafka 4.4.0 writes v2 only: a
// v0/v1 entry is never copied, what it keeps becomes a v2 batch from its
// first kept offset to its last, with the entry's codec, no producer and
// CreateTime for v0 (MemoryRecords.buildRetainedRecordsInto).
Status Round::emit(const Batch& b, const std::vector<Rec>& kept, std::optional<int64_t> horizon, Dest& dest) {
  out_.clear();
  v2::BatchHeader h;
  if (b.check.v2()) {
    h = b.check.header;
  } else {
    h.base_offset = kept.front().offset;
    h.last_offset_delta = static_cast<int32_t>(kept.back().offset - kept.front().offset);
    h.partition_leader_epoch = -1;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    h.max_timestamp = b.max_ts;
  }
  h.magic = 2;
  h.attributes = static_cast<int16_t>((b.log_append_time ? 0x08 : 0) | (b.txn ? 0x10 : 0) | (b.control ? 0x20 : 0) |
                                      (horizon ? 0x40 : 0));
  h.records_count = static_cast<int32_t>(kept.size());
  std::vector<uint8_t> records;
  ByteWriter w(records);
  if (kept.empty()) {
    h.base_timestamp = -1;
  } else {
    h.base_timestamp = horizon ? *horizon : kept[0].timestamp;
    if (!b.log_append_time) {
      h.max_timestamp = -1;
      for (const Rec& r : kept) h.max_timestamp = std::max(h.max_timestamp, r.timestamp);
    }
    std::vector<v2::Header> headers;
    for (const Rec& r : kept) {
      headers.clear();
      v2::Record raw;
      raw.headers = r.headers;
      raw.headers_count = r.headers_count;
      v2::HeaderReader hr(raw);
      v2::Header hd;
      while (hr.next(hd)) headers.push_back(hd);
      v2::RecordFields f;
      f.timestamp_delta = static_cast<int64_t>(static_cast<uint64_t>(r.timestamp) - static_cast<uint64_t>(h.base_timestamp));
      f.offset_delta = static_cast<int32_t>(r.offset - h.base_offset);
      f.key = r.key;
      f.value = r.value;
      f.headers = headers;
      v2::append_record(f, w);
    }
  }
  const Codec codec = kept.empty() ? Codec::none : static_cast<Codec>(b.codec);
  KSEG_RETURN_IF_ERROR(v2::append_batch(h, codec, records, out_));
  return dest.append(out_, h.last_offset(), h.max_timestamp);
}

Status Round::write_kept(const EntryRef& e, const Batch& b, bool original, bool stamp, Dest& dest) {
  std::optional<int64_t> horizon = b.horizon;
  if (stamp) horizon = o_.now_ms > INT64_MAX - s_.delete_retention_ms ? INT64_MAX : o_.now_ms + s_.delete_retention_ms;
  if (b.control) ++st_.markers_kept, st_.markers_stamped += stamp;
  for (const Rec& r : kept_)
    if (r.value.null && !b.control) ++st_.tombstones_kept, st_.tombstones_stamped += stamp;
  if (horizon && *horizon > o_.now_ms) st_.next_horizon = std::min(st_.next_horizon.value_or(INT64_MAX), *horizon);
  ++st_.kept.batches;
  st_.kept.records += static_cast<int64_t>(kept_.size());
  if (original && !stamp) return dest.append(e.bytes, b.last, b.max_ts);
  ++st_.batches_rebuilt;
  return emit(b, kept_, horizon, dest);
}

Status Round::clean_segment(size_t seg, Dest& dest, Tracker& tracker) {
  const Segment& s = p_.segments[seg];
  const std::string file = p_.path(s.base, ".log");
  auto f = open_log(seg);
  if (!f.ok()) return f.error();
  // Kafka bounds the aborted transactions it adds by the next segment of the
  // group, else this segment's next offset; the next segment's base (there
  // is one: the active segment is never cleaned) selects the same entries,
  // as no batch lies between the two.
  const int64_t upper = seg + 1 < p_.segments.size() ? p_.segments[seg + 1].base : INT64_MAX;
  tracker.add(collect_aborted(p_, s.base, upper));
  const bool retain_legacy = s.mtime_ms > legacy_horizon_;
  EntryScanner scanner(f->bytes(), Position{0});
  const int64_t latest = map_.latest_offset();
  Status failed;
  auto consume = [&](const EntryRef* e, Examined& x) -> Status {
    const Batch& b = x.b;
    ++st_.read.batches;
    st_.read.bytes += e->total().bytes;
    if (!x.status.ok()) return at(file, e->position, x.status.error().message);
    const std::optional<int16_t> type = x.control_type;
    const bool can_discard = b.control ? tracker.on_control(b, type) : tracker.on_batch(b);
    const bool discard_records =
        b.control ? can_discard && b.horizon && *b.horizon <= o_.now_ms : can_discard;
    bool last_of_producer = false;
    if (auto it = last_records_.find(b.pid); b.has_pid && it != last_records_.end())
      last_of_producer = it->second.last_data_offset ? b.last == *it->second.last_data_offset
                                                     : b.control && b.epoch == it->second.epoch;
    enum { retain_empty, remove, remove_empty } retention =
        b.has_pid && last_of_producer ? retain_empty
        : b.last + 1 == p_.hw         ? retain_empty  // 4.4.0: the batch ending at the high watermark
        : discard_records             ? remove
                                      : remove_empty;
    const bool marker_for_empty_txn = can_discard && b.control;
    if (retention == remove) {
      if (b.control) ++st_.markers_removed;
      else {
        if (b.txn && can_discard) st_.records_aborted += b.check.v2() ? b.check.header.records_count : 1;
      }
      return {};
    }
    if (b.control || x.redecode) {  // read for the marker type only, or too large to hold
      x.recs.clear();
      if (Status r = records_of(b, x.buf, x.recs); !r.ok()) return at(file, e->position, r.error().message);
    }
    const std::vector<Rec>& recs = x.recs;
    st_.read.records += static_cast<int64_t>(recs.size());
    kept_.clear();
    bool original = b.magic >= 2, tombstones = false;
    for (size_t k = 0; k < recs.size(); ++k) {
      const Rec& r = recs[k];
      const bool keep = discard_records ? false : b.control ? true : retain_record(b, r, x.found.empty() ? -1 : x.found[k], retain_legacy);
      if (keep) {
        kept_.push_back(r);
        if (r.value.null && !b.control) tombstones = true;
      } else {
        original = false;
        if (discard_records && !b.control) ++st_.records_aborted;
      }
    }
    if (!kept_.empty()) {
      KSEG_RETURN_IF_ERROR(write_kept(*e, b, original, (tombstones || marker_for_empty_txn) && !b.horizon, dest));
    } else if (retention == retain_empty) {
      if (b.magic < 2)
        return fail(Errc::refused, fmt::format("{}: position {}: the last batch below the high watermark is a v{} "
                                               "message the round empties; Kafka's cleaner throws here (\"Empty "
                                               "batches are only supported for magic v2\") and stops cleaning the "
                                               "partition", file, e->position.value, b.magic));
      if (b.control) ++st_.markers_kept;
      ++st_.batches_emptied;
      ++st_.kept.batches;
      KSEG_RETURN_IF_ERROR(emit(b, {}, std::nullopt, dest));
    }
    return {};
  };
  walk_entries<Examined>(
      scanner, threads_,
      [&](const WalkEntry& w, unsigned) {
        Examined x;
        examine(w.ref(), x, [&](const Rec& r) { return r.offset <= latest; }, &map_);
        return x;
      },
      [&](const EntryRef& e, Examined& x) {
        failed = consume(&e, x);
        x = Examined{};  // freed as consumed, not when the chunk goes
        return failed.ok() ? Step::accept : Step::stop;
      },
      [&](Position consumed) { f->release_before(consumed); }, kChunkBytes);
  return failed;
}

Status Round::clean_group(const std::vector<size_t>& group, Tracker& tracker) {
  Group g;
  Dest dest(p_, p_.segments[group.front()].base, s_, !o_.dry_run);
  KSEG_RETURN_IF_ERROR(dest.open());
  tracker.cleaned_index = &dest.txns;
  for (size_t k = 0; k < group.size(); ++k) {
    g.bases.push_back(p_.segments[group[k]].base);
    g.bytes_in += p_.segments[group[k]].size;
    KSEG_RETURN_IF_ERROR(clean_segment(group[k], dest, tracker));
  }
  tracker.cleaned_index = nullptr;
  KSEG_RETURN_IF_ERROR(dest.finish(p_.segments[group.back()].mtime_ms));
  g.bytes_out = dest.size();
  st_.kept.bytes += dest.size();
  st_.groups.push_back(g);
  if (o_.dry_run) return {};
  return swap_in(group, dest);
}

// Files in flight (log-cleaning.md): .cleaned -> .swap (the commit point:
// from here LogLoader finishes the replacement), the old segments into the
// backup, .swap stripped.
Status Round::swap_in(const std::vector<size_t>& group, Dest& dest) {
  const int64_t base = p_.segments[group.front()].base;
  std::vector<const char*> kinds = {".log", ".index", ".timeindex"};
  if (!dest.txns.empty()) kinds.push_back(".txnindex");
  safe::crash_point("cleaned-written");
  dest.committed = true;
  auto dir = safe::Dir::open(p_.dir);
  if (!dir.ok()) return dir.error();
  auto rename = [&](const std::string& from, const std::string& to) -> Status {
    if (::renameat(dir->fd(), from.c_str(), dir->fd(), to.c_str()) == 0) return {};
    return fail(Errc::io, fmt::format("cannot rename {} to {}: {}", dir->path(from), to, std::strerror(errno)));
  };
  const std::string stem = fmt::format("{:020d}", base);
  for (const char* k : kinds) {
    KSEG_RETURN_IF_ERROR(rename(stem + k + ".cleaned", stem + k + ".swap"));
    safe::crash_point("swap-partial");
  }
  KSEG_RETURN_IF_ERROR(dir->fsync());
  safe::crash_point("swapped");
  safe::Plan old{p_.dir, {}};
  for (size_t seg : group) {
    const int64_t b = p_.segments[seg].base;
    for (const char* k : {".log", ".index", ".timeindex", ".txnindex"}) {
      struct stat sb {};
      if (::stat(p_.path(b, k).c_str(), &sb) == 0)
        old.actions.push_back(safe::Action::remove(fmt::format("{:020d}{}", b, k), fmt::format("cleaned into {:020d}.log", base)));
    }
    if (b != base)
      for (const auto& [offset, name] : p_.snapshots)
        if (offset == b) old.actions.push_back(safe::Action::remove(name, "its segment was cleaned into another"));
  }
  safe::ApplyOptions ao;
  ao.backup = o_.backup;
  ao.backup_dir = o_.backup_dir;
  if (o_.backup_into) ao.backup_into = *o_.backup_into;
  auto used = safe::apply(old, ao, *o_.held);
  if (!used.ok()) return used.error();
  if (o_.backup_into && !used->empty()) *o_.backup_into = *used;
  for (const char* k : kinds) KSEG_RETURN_IF_ERROR(rename(stem + k + ".swap", stem + k));
  KSEG_RETURN_IF_ERROR(dir->fsync());
  safe::crash_point("group-done");
  return {};
}

int64_t Round::bounds() {
  const auto& segs = p_.segments;
  const int64_t active = segs.back().base;
  st_.active_base = active;
  // Step 1: the first dirty offset.
  int64_t first_dirty = p_.cleaner_line.value_or(p_.log_start());
  if (first_dirty < p_.log_start() || first_dirty > p_.log_end) {
    st_.reset_checkpoint = p_.cleaner_line.has_value();
    first_dirty = p_.log_start();
  }
  st_.first_dirty = first_dirty;
  // The last stable offset: the high watermark, or the first offset of an
  // open transaction below it.
  int64_t lso = p_.hw;
  for (const auto& [pid, e] : p_.producers)
    if (e.has_open_txn() && e.current_txn_first_offset < lso) lso = e.current_txn_first_offset;
  for (const auto& [pid, e] : p_.producers)
    if (e.has_open_txn() && e.current_txn_first_offset < p_.hw)
      st_.open_txns.push_back(fmt::format("producer {} (epoch {}) from offset {}", pid, e.producer_epoch,
                                          e.current_txn_first_offset));
  st_.lso = lso;
  int64_t bound = std::min(lso, active);
  st_.stopped_by = lso < active ? (lso < p_.hw ? "the last stable offset (an open transaction)" : "the high watermark")
                                : "the active segment";
  if (s_.min_compaction_lag_ms > 0) {
    size_t i = 0;
    while (i + 1 < segs.size() && segs[i + 1].base <= first_dirty) ++i;
    for (; i + 1 < segs.size(); ++i)
      if (p_.largest_timestamps[i] > (o_.now_ms < INT64_MIN + s_.min_compaction_lag_ms ? INT64_MIN : o_.now_ms - s_.min_compaction_lag_ms)) {
        if (segs[i].base < bound) {
          bound = segs[i].base;
          st_.stopped_by = fmt::format("min.compaction.lag.ms: segment {} has a record newer than now - {} ms", segs[i].base,
                                       s_.min_compaction_lag_ms);
        }
        break;
      }
  }
  const int64_t uncleanable = std::max(first_dirty, bound);
  st_.uncleanable = uncleanable;
  // The segment holding it: cleaning stops at a segment boundary.
  int64_t first_uncleanable = active;
  if (uncleanable < active) {
    first_uncleanable = segs.front().base;
    for (const auto& s : segs)
      if (s.base <= uncleanable) first_uncleanable = s.base;
  }
  st_.first_uncleanable = first_uncleanable;
  int64_t dirty_seg = segs.front().base;
  for (const auto& s : segs)
    if (s.base <= first_dirty) dirty_seg = s.base;
  for (const auto& s : segs) {
    if (s.base < dirty_seg) st_.clean_bytes += s.size;
    else if (s.base < first_uncleanable) st_.cleanable_bytes += s.size;
  }
  return first_uncleanable;
}

std::vector<std::vector<size_t>> Round::groups(int64_t first_uncleanable) const {
  const auto& segs = p_.segments;
  std::vector<size_t> below;
  for (size_t i = 0; i < segs.size() && segs[i].base < st_.end_offset; ++i) below.push_back(i);
  std::vector<std::vector<size_t>> out;
  for (size_t k = 0; k < below.size();) {
    std::vector<size_t> g{below[k]};
    int64_t log = segs[below[k]].size, idx = segs[below[k]].index_bytes, tix = segs[below[k]].timeindex_bytes;
    ++k;
    while (k < below.size()) {
      const Segment& c = segs[below[k]];
      const int64_t estimate = (k + 1 < below.size() ? segs[below[k + 1]].base : first_uncleanable) - 1;
      if (log + c.size > s_.segment_bytes || idx + c.index_bytes > s_.segment_index_bytes ||
          tix + c.timeindex_bytes > s_.segment_index_bytes ||
          (c.size != 0 && estimate - segs[g.front()].base > INT32_MAX))
        break;
      log += c.size;
      idx += c.index_bytes;
      tix += c.timeindex_bytes;
      g.push_back(below[k]);
      ++k;
    }
    out.push_back(std::move(g));
  }
  return out;
}

Result<RoundStats> Round::run() {
  const auto& segs = p_.segments;
  const int64_t first_uncleanable = bounds();
  const int64_t first_dirty = st_.first_dirty;
  st_.end_offset = first_dirty;
  if (first_dirty >= first_uncleanable) return st_;
  // Nothing is written before every batch the round reads is known good:
  // checked on a second thread while this one builds the offset map (both
  // only read), joined before the first write.
  Status valid;
  std::thread checker([&] {
    for (size_t i = 0; i < segs.size() && segs[i].base < first_uncleanable && valid.ok(); ++i) valid = validate(i);
  });
  // The legacy (v0/v1) tombstone horizon (log-cleaning.md: per batch).
  for (const auto& s : segs)
    if (s.base < first_dirty) legacy_horizon_ = s.mtime_ms - s_.delete_retention_ms;
  Status built = build_map(first_dirty, first_uncleanable);
  checker.join();
  KSEG_RETURN_IF_ERROR(valid);  // a damaged batch is named before whatever the map met
  KSEG_RETURN_IF_ERROR(built);
  st_.map_keys = map_.size();
  // The map's latest offset + 1; a batch reaching past its segment (offsets
  // overlapping the next one) must not carry the round into the segments it
  // may not touch.
  st_.end_offset = std::min(map_.latest_offset() + 1, first_uncleanable);
  for (const auto& [pid, e] : p_.producers)
    last_records_[pid] = {e.has_batch_metadata() ? std::optional<int64_t>(e.last_offset) : std::nullopt, e.producer_epoch};
  Tracker tracker;  // one for the whole round, across groups
  for (const auto& g : groups(first_uncleanable)) KSEG_RETURN_IF_ERROR(clean_group(g, tracker));
  return st_;
}

}  // namespace

Result<RoundStats> clean_round(const Input& p, const Settings& s, const RoundOptions& o) {
  Round r(p, s, o);
  return r.run();
}

}  // namespace kseg::compact
