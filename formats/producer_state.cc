#include "formats/producer_state.h"

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/control.h"

namespace kseg {

void ProducerState::load(std::span<const producer_snapshot::ProducerEntry> entries) {
  producers_.clear();
  for (const auto& e : entries) producers_[e.producer_id] = e;
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

Result<control::EndTxnMarker> first_marker(const EntryRef& e, const v2::BatchHeader& h) {
  std::vector<uint8_t> scratch;
  auto records = v2::records_bytes(e, h, scratch, size_t{1} << 20);
  if (!records.ok()) return records.error();
  const Position base = h.codec_id() == 0 ? e.position + Length{v2::kRecordBatchOverhead} : Position{0};
  v2::RecordReader reader(*records, base, h.records_count);
  v2::Record rec;
  if (!reader.next(rec))
    return reader.status().ok() ? Error{Errc::truncated, e.position, "control batch without a record"}
                                : reader.status().error();
  auto key = control::decode_key(rec.key);
  if (!key.ok()) return key.error();
  if (key->type != static_cast<int16_t>(control::Type::abort) && key->type != static_cast<int16_t>(control::Type::commit))
    return Error{Errc::refused, e.position,
                 fmt::format("control batch of producer {} holds a {} record, not a transaction marker", h.producer_id,
                             control::type_name(key->type))};
  return control::decode_end_txn_marker(rec.value);
}

}  // namespace

Status ProducerState::apply(const EntryRef& e) {
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
  }
  if (h->is_control()) {
    if (h->records_count < 1) return {};
    auto marker = first_marker(e, *h);
    if (!marker.ok()) return marker.status();
    set_epoch(p, h->producer_epoch);
    p.coordinator_epoch = marker->coordinator_epoch;
    p.timestamp_ms = h->max_timestamp;
    p.current_txn_first_offset = -1;
    return {};
  }
  set_epoch(p, h->producer_epoch);
  p.last_sequence = h->last_sequence();
  p.last_offset = h->last_offset();
  p.offset_delta = h->last_offset_delta;
  p.timestamp_ms = h->max_timestamp;
  if (h->is_transactional() && p.current_txn_first_offset < 0) p.current_txn_first_offset = h->base_offset;
  return {};
}

std::vector<producer_snapshot::ProducerEntry> ProducerState::entries() const {
  std::vector<producer_snapshot::ProducerEntry> out;
  out.reserve(producers_.size());
  for (const auto& [id, p] : producers_) out.push_back(p);
  return out;
}

}  // namespace kseg
