// SPDX-License-Identifier: Apache-2.0
// Text dump of producer .snapshot and .txnindex files.
#include <fmt/format.h>

#include "formats/producer_snapshot.h"
#include "formats/txn_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/dump/dumper.h"

namespace kseg {

namespace {
std::string optional_long(int64_t v) { return v >= 0 ? fmt::format("OptionalLong[{}]", v) : "OptionalLong.empty"; }
}  // namespace

void Dumper::snapshot_text(const std::string& path) {
  const auto f = mapped(path);
  if (!f) return;
  auto snap = producer_snapshot::read(f->bytes());
  if (!snap.ok()) {
    // Kafka prints the CorruptSnapshotException message and goes on.
    err_.print("{}\n", snap.error().message);
    problem(path, snapshot_code(snap.error()), snap.error());
    return;
  }
  for (const auto& e : snap->entries) {
    out_.print("producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {}",
               e.producer_id, e.producer_epoch, e.coordinator_epoch, optional_long(e.current_txn_first_offset),
               e.timestamp_ms);
    // An entry without batch metadata (a transactional producer whose last append was a
    // transaction.version 2 marker, which bumps its epoch) ends the line there.
    if (e.has_batch_metadata())
      out_.print(" firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}", e.first_sequence(),
                 e.last_sequence, e.last_offset, e.offset_delta, e.timestamp_ms);
    out_.put('\n');
  }
}

void Dumper::txn_index_text(const std::string& path) {
  const auto f = mapped(path);
  if (!f) return;
  const txn_index::View view(f->bytes());
  for (int64_t i = 0; i < view.entry_count(); ++i) {
    if (Status st = txn_index::check_version(view, i, absolute_path(path)); !st.ok()) return problem(path, Code::txnindex_bad_version, st.error());
    const auto t = view.entry(i);
    out_.print("version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}\n", t.version,
               t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset);
  }
}

}  // namespace kseg
