// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the non-log state files of a partition directory. The
// first byte selects the decoder; the rest is the file. Every decoder must
// return (never crash, never read out of bounds), and what decodes must
// re-encode to bytes that decode to the same thing.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "formats/meta_properties.h"
#include "formats/offset_index.h"
#include "formats/partition_metadata.h"
#include "formats/producer_snapshot.h"
#include "formats/time_index.h"
#include "formats/txn_index.h"

using namespace kseg;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_offset_index(Bytes b) {
  offset_index::View v(b, Offset{1000}, Position{0});
  (void)offset_index::sanity_check(v, "f");
  (void)offset_index::validate_entries(v, v.live_entry_count());
  check(v.dump_entry_count() <= v.slot_count() && v.live_entry_count() <= v.dump_entry_count() + v.slot_count());
  const int64_t n = v.slot_count();
  for (int64_t t : {int64_t{0}, int64_t{1000}, int64_t{5000}, INT64_MAX}) (void)offset_index::lookup(v, n, Offset{t});
}

void fuzz_time_index(Bytes b) {
  time_index::View v(b, Offset{0}, Position{0});
  (void)time_index::sanity_check(v, "f");
  (void)time_index::validate_entries(v, v.live_entry_count());
  for (int64_t t : {INT64_MIN, int64_t{0}, int64_t{1700000000000}, INT64_MAX})
    (void)time_index::lookup(v, v.slot_count(), t);
}

void fuzz_txn_index(Bytes b) {
  txn_index::View v(b);
  auto r = txn_index::decode(v, "f");
  (void)txn_index::sanity_check(v, Offset{0}, "f");
  (void)txn_index::validate_entries(v);
  if (r.ok()) {
    const auto again = txn_index::encode(r.value());
    check(again.size() == static_cast<size_t>(v.entry_count()) * txn_index::kEntrySize);
  }
}

void fuzz_snapshot(Bytes b) {
  auto d = producer_snapshot::decode(b);
  auto r = producer_snapshot::read(b);
  if (r.ok()) {
    check(d.ok());
    const auto again = producer_snapshot::encode(r->entries);
    auto back = producer_snapshot::read(Bytes(again.data(), again.size()));
    check(back.ok() && back->entries == r->entries);
  }
}

void fuzz_text(uint8_t which, std::string_view text) {
  switch (which % 5) {
    case 0: {
      auto r = checkpoint::parse_offset_checkpoint(text, "f");
      if (r.ok()) check(checkpoint::parse_offset_checkpoint(checkpoint::serialize_offset_checkpoint(r.value()), "f")
                            .value() == r.value());
      break;
    }
    case 1: {
      auto r = checkpoint::parse_leader_epoch_checkpoint(text, "f");
      if (r.ok()) {
        (void)checkpoint::validate_epoch_entries(r.value());
        check(checkpoint::parse_leader_epoch_checkpoint(checkpoint::serialize_leader_epoch_checkpoint(r.value()), "f")
                  .value() == r.value());
      }
      break;
    }
    case 2: {
      auto r = partition_metadata::parse(text, "f");
      if (r.ok()) {
        (void)partition_metadata::validate(r.value());
        auto back = partition_metadata::parse(partition_metadata::serialize(r->version, r->topic_id), "f");
        check(back.ok() && back->topic_id == r->topic_id && back->version == r->version);
      }
      break;
    }
    case 3: (void)meta_properties::parse(text); break;
    case 4:
      (void)file_names::parse_segment_file_name(text);
      (void)file_names::parse_partition_dir_name(text);
      (void)file_names::parse_kraft_snapshot_name(text);
      (void)parse_kafka_uuid(text);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Bytes b(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 9) {
    case 0: fuzz_offset_index(b); break;
    case 1: fuzz_time_index(b); break;
    case 2: fuzz_txn_index(b); break;
    case 3: fuzz_snapshot(b); break;
    default: fuzz_text(static_cast<uint8_t>(data[0] % 9 - 4), text); break;
  }
  return 0;
}
