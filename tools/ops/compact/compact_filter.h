// SPDX-License-Identifier: Apache-2.0
// The parallel walk's examined entry (what the cleaner's filter reads of it:
// formats/kept_records.h) and Kafka's CleanedTransactionMetadata. Internal to
// tools/ops/compact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <vector>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/kept_records.h"
#include "formats/log_entry.h"
#include "formats/offset_map.h"
#include "formats/txn_index.h"
#include "lib/status.h"

namespace kseg::compact {

// What the filter reads of an entry: formats/kept_records.h.
using kept::Batch;
using kept::batch_of;
using kept::control_type;
using kept::Rec;
using kept::records_of;

// What the cleaner makes of one record of a data batch (Cleaner.shouldRetainRecord).
enum class Verdict : uint8_t { keep, unkeyed, superseded, tombstone };
// A batch's records all kept or all superseded, told without decoding them (PutOffsets::whole).
enum class Whole : uint8_t { none, kept, superseded };

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
  std::vector<KeyDigest> digests;  // of recs[k]'s key where hashed[k]
  std::vector<char> hashed;
  std::vector<int64_t> found;
  std::vector<std::pair<int64_t, KeyDigest>> keyed;  // the map pass: (offset, key digest), in order
  std::vector<int64_t> tombstones;  // the map pass: offsets of the keyed records whose value is null
  bool offsets_inside = true;       // the map pass: every record's offset within [base, last]
  // The cleaning pass: every record's verdict from PutOffsets::whole, the
  // records not decoded (`recs` empty).
  Whole whole = Whole::none;
  bool redecode = false;  // records too large to hold while waiting: decoded again when consumed
  // The cleaning pass's work done ahead on the examining thread
  // (compact_round.cc, Round::speculate): a verdict per record (its Verdict)
  // and, where the batch is rewritten, the batch rebuilt from the kept ones.
  bool speculated = false;
  std::vector<Verdict> verdicts;
  std::vector<uint8_t> rebuilt;
  int64_t rebuilt_last = 0, rebuilt_max_ts = -1;
};

// What the map pass learnt by offset: for each offset of its section, a bit
// for a record put in the map, one for a record a later put of the same key
// replaced, and one for a put record whose value is null. The map's answer
// for a record put there is its own offset unless replaced, and a later one
// (all the filter compares) if it was: the cleaning pass decides those
// without hashing the key or probing the map, a cache miss per record in a
// table of hundreds of MiB, and a batch whose records were all put and all
// replaced, or none replaced and none a tombstone, without decoding it
// (whole). Off (every record asks the map) where offsets do not increase,
// where a batch has a record outside its [base, last] (bits over a batch's
// range would not be its records'), or the section is wider than
// `max_offsets`.
class PutOffsets {
 public:
  static constexpr int64_t kBitsPerOffset = 3;
  void reset(int64_t start, int64_t end, int64_t max_offsets) {
    on_ = end > start && end - start <= max_offsets;
    start_ = start, last_ = -1;
    const size_t words = on_ ? static_cast<size_t>((end - start + 63) / 64) : 0;
    end_ = end;
    put_.assign(words, 0);
    replaced_.assign(words, 0);
    tombstone_.assign(words, 0);
  }
  void off() {
    on_ = false;
    std::vector<uint64_t>().swap(put_);
    std::vector<uint64_t>().swap(replaced_);
    std::vector<uint64_t>().swap(tombstone_);
  }
  // A put of `offset` whose key had `previous` (-1: none).
  void put(int64_t offset, int64_t previous) {
    if (!on_) return;
    if (offset < start_ || offset >= end_ || offset <= last_) return off();  // (a damaged log: ask the map)
    last_ = offset;
    set(put_, offset);
    if (previous >= 0) set(replaced_, previous);  // put here before, so within the section
  }
  // The record put last has a null value.
  void tombstone(int64_t offset) {
    if (on_ && offset == last_) set(tombstone_, offset);
  }
  // The map filled at a record of `offset`, not put: where an earlier put
  // had that offset (a crafted batch), its answer would be taken for it.
  void filled_at(int64_t offset) {
    if (on_ && offset <= last_) off();
  }
  // The map's offset for the key of the record at `offset`, if it was put.
  std::optional<int64_t> found(int64_t offset) const {
    if (!on_ || offset < start_ || offset > last_ || !get(put_, offset)) return std::nullopt;
    return get(replaced_, offset) ? INT64_MAX : offset;
  }
  // For a v2 data batch of `count` records over [base, last]: kept when
  // each offset of it put is one of its records (as many as `count`), none
  // replaced and none a tombstone (no delete horizon to weigh or stamp);
  // superseded when every one was replaced; else none (decode and ask each).
  Whole whole(int64_t base, int64_t last, int64_t count) const {
    if (!on_ || count <= 0 || base < start_ || last > last_ || base > last) return Whole::none;
    if (bits(put_, base, last) != count) return Whole::none;
    const int64_t replaced = bits(replaced_, base, last);
    if (replaced == count) return Whole::superseded;
    return replaced == 0 && bits(tombstone_, base, last) == 0 ? Whole::kept : Whole::none;
  }
  bool on() const { return on_; }

 private:
  void set(std::vector<uint64_t>& v, int64_t offset) {
    const auto i = static_cast<uint64_t>(offset - start_);
    v[i / 64] |= uint64_t{1} << (i % 64);
  }
  bool get(const std::vector<uint64_t>& v, int64_t offset) const {
    const auto i = static_cast<uint64_t>(offset - start_);
    return v[i / 64] >> (i % 64) & 1;
  }
  // Set bits at offsets [from, to], both within the section.
  int64_t bits(const std::vector<uint64_t>& v, int64_t from, int64_t to) const {
    const auto a = static_cast<uint64_t>(from - start_), b = static_cast<uint64_t>(to - start_);
    int64_t n = 0;
    for (uint64_t w = a / 64; w <= b / 64; ++w) {
      uint64_t word = v[w];
      if (w == a / 64) word &= ~uint64_t{0} << (a % 64);
      if (w == b / 64 && b % 64 != 63) word &= (uint64_t{1} << (b % 64 + 1)) - 1;
      n += __builtin_popcountll(word);
    }
    return n;
  }
  bool on_ = false;
  int64_t start_ = 0, end_ = 0, last_ = -1;
  std::vector<uint64_t> put_, replaced_, tombstone_;
};

// What the map pass keeps of a record: whether its offset is inside its
// batch and, for a key `wanted` selects, (offset, digest) and a null value.
template <class Wanted>
void map_record(Examined& x, const Rec& r, Wanted& wanted) {
  x.offsets_inside &= r.offset >= x.b.base && r.offset <= x.b.last;
  if (r.key.null || !wanted(r)) return;
  x.keyed.emplace_back(r.offset, key_digest(r.key.bytes));
  if (r.value.null) x.tombstones.push_back(r.offset);
}

// The map pass over a v2 batch: offsets, keys and null values read from the
// records' bytes in place (v2::for_each_record), without a Rec per record
// (half of the map pass on small records). False where the walk refuses the
// records (nothing kept): records_of then says why.
template <class Wanted>
bool map_keys_v2(Examined& x, Wanted& wanted) {
  if (x.b.check.header.records_count < 0) return false;  // (for_each_record would read none: records_of refuses it)
  auto records = v2::records_bytes(x.b.ref, x.b.check.header, x.buf, v2::kDefaultMaxDecompressed);
  if (!records.ok()) return false;
  Rec r;
  r.magic = 2;
  const bool ok = v2::for_each_record(*records, x.b.check.header.records_count, [&](const v2::WalkedRecord& w) {
    r.offset = v2::wrapping_add(x.b.base, w.offset_delta);  // (`wanted` sees its offset, key and value)
    r.key = w.key;
    r.value = w.value;
    map_record(x, r, wanted);
    return true;
  });
  std::vector<uint8_t>().swap(x.buf);
  if (ok) return true;
  x.keyed.clear();
  x.tombstones.clear();
  x.offsets_inside = true;
  return false;
}

// Decodes `e` into `x`; hashes the keys `wanted(rec)` selects: the map
// pass keeps only (offset, digest) of each; the cleaning pass takes the
// answer from `known` where it has one and looks the others up in `lookup`,
// or (none: the spill answers, in order) keeps the digests.
enum class Pass { map, clean };
template <class Wanted>
void examine(const EntryRef& e, Examined& x, Wanted&& wanted, Pass pass, const OffsetMap* lookup,
             const PutOffsets* known = nullptr) {
  x.b = batch_of(e);
  if (x.b.control) {
    auto t = control_type(x.b, x.buf);
    if (!t.ok()) x.status = t.error();
    else x.control_type = *t;
    return;
  }
  if (pass == Pass::map) {
    if (x.b.check.v2() && map_keys_v2(x, wanted)) return;
    // v0/v1, or the error of a v2 batch the walk refused.
    x.status = records_of(x.b, x.buf, x.recs);
    if (x.status.ok())
      for (const Rec& r : x.recs) map_record(x, r, wanted);
    std::vector<Rec>().swap(x.recs);
    std::vector<uint8_t>().swap(x.buf);
    return;
  }
  if (lookup && known && x.b.magic >= 2) {
    x.whole = known->whole(x.b.base, x.b.last, x.b.check.header.records_count);
    if (x.whole != Whole::none) return;
  }
  if (Status r = records_of(x.b, x.buf, x.recs); !r.ok()) {
    x.status = r;
    return;
  }
  std::vector<Bytes> keys;
  std::vector<size_t> which;
  x.hashed.assign(x.recs.size(), 0);
  if (lookup) x.found.assign(x.recs.size(), -2);
  for (size_t k = 0; k < x.recs.size(); ++k)
    if (!x.recs[k].key.null && wanted(x.recs[k])) {
      if (lookup && known)
        if (auto f = known->found(x.recs[k].offset)) {
          x.found[k] = *f;
          continue;
        }
      keys.push_back(x.recs[k].key.bytes);
      which.push_back(k);
      x.hashed[k] = 1;
    }
  std::vector<KeyDigest> d(keys.size());
  for (size_t j = 0; j < keys.size(); ++j) d[j] = key_digest(keys[j]);
  x.digests.resize(x.recs.size());
  for (size_t j = 0; j < which.size(); ++j) x.digests[which[j]] = d[j];
  if (lookup) {
    // The slot of the key a few ahead loads while this one is looked up: a
    // whole batch's prefetches at once overflow the core's miss buffers, and
    // most were dropped (the map's lookups missed the cache as without any).
    for (size_t j = 0; j < std::min(which.size(), OffsetMap::kPrefetchAhead); ++j) lookup->prefetch(d[j]);
    for (size_t j = 0; j < which.size(); ++j) {
      if (j + OffsetMap::kPrefetchAhead < which.size()) lookup->prefetch(d[j + OffsetMap::kPrefetchAhead]);
      x.found[which[j]] = lookup->get(d[j]);
    }
    std::vector<KeyDigest>().swap(x.digests);
    std::vector<char>().swap(x.hashed);
  }
  // Two chunks of entries wait to be consumed: keep each small. Records that
  // decompressed to much more than the batch (a hostile ratio) are dropped
  // and decoded again in order, so a chunk holds a few times its bytes.
  if (x.buf.size() > 4 * e.bytes.size() + (64u << 10)) {
    std::vector<Rec>().swap(x.recs);
    std::vector<uint8_t>().swap(x.buf);
    std::vector<KeyDigest>().swap(x.digests);
    std::vector<char>().swap(x.hashed);
    x.redecode = true;  // (found, by record, stays)
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

}  // namespace kseg::compact
