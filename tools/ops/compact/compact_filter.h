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
  bool redecode = false;  // records too large to hold while waiting: decoded again when consumed
  // The cleaning pass's work done ahead on the examining thread
  // (compact_round.cc, Round::speculate): a verdict per record (its Verdict)
  // and, where the batch is rewritten, the batch rebuilt from the kept ones.
  bool speculated = false;
  std::vector<Verdict> verdicts;
  std::vector<uint8_t> rebuilt;
  int64_t rebuilt_last = 0, rebuilt_max_ts = -1;
};

// Decodes `e` into `x`; hashes the keys `wanted(rec)` selects: the map
// pass keeps only (offset, digest) of each; the cleaning pass looks them up
// in `lookup`, or (none: the spill answers, in order) keeps the digests.
enum class Pass { map, clean };
template <class Wanted>
void examine(const EntryRef& e, Examined& x, Wanted&& wanted, Pass pass, const OffsetMap* lookup) {
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
  std::vector<KeyDigest> d(keys.size());
  for (size_t j = 0; j < keys.size(); ++j) d[j] = key_digest(keys[j]);
  x.digests.resize(x.recs.size());
  for (size_t j = 0; j < which.size(); ++j) x.digests[which[j]] = d[j];
  if (pass == Pass::map) {  // only what a put needs
    for (size_t j = 0; j < which.size(); ++j) x.keyed.emplace_back(x.recs[which[j]].offset, d[j]);
    std::vector<Rec>().swap(x.recs);
    std::vector<uint8_t>().swap(x.buf);
    std::vector<KeyDigest>().swap(x.digests);
    std::vector<char>().swap(x.hashed);
    return;
  }
  if (lookup) {
    x.found.assign(x.recs.size(), -2);
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
