// SPDX-License-Identifier: Apache-2.0
#include "formats/producer_state.h"

#include <algorithm>

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/control.h"

namespace kseg {

void ProducerState::load(std::span<const producer_snapshot::ProducerEntry> entries) {
  producers_.clear();
  inserted_.clear();
  open_.clear();
  for (auto e : entries) {
    // ProducerStateManager.readSnapshot keeps batch metadata only for a
    // lastOffset >= 0 and an open transaction only for a first offset >= 0;
    // a snapshot written from it says -1, -1, 0 and -1 for the rest.
    if (e.last_offset < 0) {
      e.last_sequence = -1;
      e.last_offset = -1;
      e.offset_delta = 0;
    }
    if (e.current_txn_first_offset < 0) e.current_txn_first_offset = -1;
    if (producers_.insert_or_assign(e.producer_id, e).second) inserted_.push_back(e.producer_id);
    if (e.has_open_txn()) open_[e.current_txn_first_offset] = e.producer_id;
  }
}

void ProducerState::load(std::span<const producer_snapshot::ProducerEntry> entries, int64_t now_ms,
                         int64_t expiration_ms) {
  std::vector<producer_snapshot::ProducerEntry> live;
  for (const auto& e : entries)
    // Java's long subtraction wraps.
    if (e.has_open_txn() ||
        static_cast<int64_t>(static_cast<uint64_t>(now_ms) - static_cast<uint64_t>(e.timestamp_ms)) < expiration_ms)
      live.push_back(e);
  load(live);
}

std::vector<size_t> java_hash_order(std::span<const int64_t> keys) {
  uint32_t cap = 16;
  while (keys.size() > cap / 4 * 3) cap *= 2;
  std::vector<uint32_t> bucket(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto v = static_cast<uint64_t>(keys[i]);
    const auto h = static_cast<uint32_t>(v ^ (v >> 32));  // Long.hashCode
    bucket[i] = (h ^ (h >> 16)) & (cap - 1);              // HashMap.hash, then the index
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bucket[a] < bucket[b]; });
  return order;
}

void ProducerState::begin_read() {
  reading_ = true;
  read_first_new_ = inserted_.size();
  read_seen_.clear();
  read_seen_set_.clear();
}

void ProducerState::end_read() {
  reading_ = false;
  std::vector<int64_t> fresh(inserted_.begin() + static_cast<std::ptrdiff_t>(read_first_new_), inserted_.end());
  std::sort(fresh.begin(), fresh.end());
  inserted_.resize(read_first_new_);
  for (size_t i : java_hash_order(read_seen_))
    if (std::binary_search(fresh.begin(), fresh.end(), read_seen_[i])) inserted_.push_back(read_seen_[i]);
  read_seen_.clear();
  read_seen_set_.clear();
}

namespace {

// ProducerStateEntry.maybeUpdateProducerEpoch: another epoch forgets the
// batches of the last one.
void set_epoch(producer_snapshot::ProducerEntry& p, int16_t epoch) {
  if (p.producer_epoch == epoch) return;
  p.producer_epoch = epoch;
  p.last_sequence = -1;
  p.last_offset = -1;
  p.offset_delta = 0;
}

struct Marker {
  control::EndTxnMarker marker;
  bool abort = false;
  int64_t timestamp = 0;  // the record's: Kafka's appendEndTxnMarker takes it
};

Result<Marker> first_marker(const EntryRef& e, const v2::BatchHeader& h) {
  std::vector<uint8_t> scratch;
  auto first = control::first_record(e, h, scratch);
  if (!first.ok()) return first.error();
  const int16_t type = first->key.type;
  if (type != static_cast<int16_t>(control::Type::abort) && type != static_cast<int16_t>(control::Type::commit))
    return Error{Errc::refused, e.position,
                 fmt::format("control batch of producer {} holds a {} record, not a transaction marker", h.producer_id,
                             control::type_name(type))};
  auto marker = control::decode_end_txn_marker(first->value);
  if (!marker.ok()) return marker.error();
  return Marker{*marker, type == static_cast<int16_t>(control::Type::abort), first->timestamp};
}

}  // namespace

Status ProducerState::apply(const EntryRef& e, Applied* applied) {
  if (applied) *applied = {};
  if (e.magic < 2) return {};
  auto h = v2::decode_header(e);
  if (!h.ok()) return h.status();
  if (h->producer_id < 0) return {};
  // A snapshot of more producers is one Kafka cannot read back (its
  // generated reader's collection limit): memory stays bounded too.
  if (producers_.size() >= static_cast<size_t>(producer_snapshot::kMaxCollectionSize) &&
      !producers_.count(h->producer_id))
    return Status::fail(Errc::refused, e.position,
                        fmt::format("more than {} producers: Kafka could not read a snapshot of them back",
                                    producer_snapshot::kMaxCollectionSize));
  auto [it, fresh] = producers_.try_emplace(h->producer_id);
  auto& p = it->second;
  if (fresh) {
    p.producer_id = h->producer_id;
    p.producer_epoch = -1;
    inserted_.push_back(h->producer_id);
  }
  if (reading_ && read_seen_set_.insert(h->producer_id).second) read_seen_.push_back(h->producer_id);
  if (h->is_control()) {
    if (h->records_count < 1) return {};
    auto marker = first_marker(e, *h);
    if (!marker.ok()) return marker.status();
    set_epoch(p, h->producer_epoch);
    p.coordinator_epoch = marker->marker.coordinator_epoch;
    p.timestamp_ms = marker->timestamp;
    if (p.current_txn_first_offset >= 0) {
      if (applied && marker->abort) {
        // ProducerStateManager.lastStableOffset: ongoingTxns by first offset.
        int64_t lso = h->base_offset + 1;
        for (const auto& [first, pid] : open_)
          if (pid != h->producer_id) {
            lso = first;
            break;
          }
        applied->aborted = txn_index::AbortedTxn{txn_index::kCurrentVersion, h->producer_id,
                                                 p.current_txn_first_offset, h->base_offset, lso};
      }
      open_.erase(p.current_txn_first_offset);
    }
    p.current_txn_first_offset = -1;
    return {};
  }
  // ProducerAppendInfo.appendDataBatch throws, for replicated data too, and
  // LogSegment.recover does not catch it: Kafka cannot load such a log.
  if (!h->is_transactional() && p.current_txn_first_offset >= 0)
    return Status::fail(Errc::refused, e.position,
                        fmt::format("non-transactional batch of producer {} inside its transaction from offset {} "
                                    "(Kafka's loader fails with InvalidTxnStateException)",
                                    h->producer_id, p.current_txn_first_offset));
  set_epoch(p, h->producer_epoch);
  p.last_sequence = h->last_sequence();
  p.last_offset = h->last_offset();
  p.offset_delta = h->last_offset_delta;
  p.timestamp_ms = h->max_timestamp;
  if (h->is_transactional() && p.current_txn_first_offset < 0) {
    p.current_txn_first_offset = h->base_offset;
    open_[h->base_offset] = h->producer_id;
  }
  return {};
}

std::vector<producer_snapshot::ProducerEntry> ProducerState::entries() const {
  std::vector<producer_snapshot::ProducerEntry> out;
  out.reserve(producers_.size());
  for (const auto& [id, p] : producers_) out.push_back(p);
  return out;
}

std::vector<producer_snapshot::ProducerEntry> ProducerState::kafka_order() const {
  std::vector<producer_snapshot::ProducerEntry> out;
  out.reserve(inserted_.size());
  for (size_t i : java_hash_order(inserted_)) out.push_back(producers_.at(inserted_[i]));
  return out;
}

}  // namespace kseg
