// SPDX-License-Identifier: Apache-2.0
// Fuzz target for segment-file entries: the input is a .log file image.
// EntryScanner walks it; every entry is decoded as far as it goes (v2:
// header, CRC, every record and header, control records, each value as a
// __remote_log_metadata record, each record as a group, transaction and
// share coordinator record; legacy: message,
// CRC, inner messages) with a 1 MiB decompression budget, and replayed into
// producer state. Nothing may
// crash, read out of bounds or overflow; the scanner's accounting must add
// up to the input size.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/coordinator_records.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/producer_state.h"
#include "formats/remote_log_metadata.h"

using namespace kseg;

namespace {

constexpr size_t kMaxDecompressed = 1u << 20;

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_v2(const EntryRef& e, std::vector<uint8_t>& scratch) {
  auto h = v2::decode_header(e);
  if (!h.ok()) {
    check(e.bytes.size() < static_cast<size_t>(v2::kRecordBatchOverhead));
    return;
  }
  (void)(v2::compute_crc(e.bytes) == h->crc);
  (void)h->last_sequence();
  (void)h->last_offset();
  auto records = v2::records_bytes(e, *h, scratch, kMaxDecompressed);
  if (!records.ok()) return;
  check(records->size() <= kMaxDecompressed || h->codec_id() == 0);
  v2::RecordReader rr(*records, Position{0}, h->records_count);
  v2::Record rec;
  while (rr.next(rec)) {
    v2::HeaderReader hr(rec);
    v2::Header hdr;
    int32_t n = 0;
    while (hr.next(hdr)) ++n;
    check(hr.ok() && n == rec.headers_count);  // next() already walked them
    if (h->is_control()) (void)control::describe(rec.key, rec.value);
    if (!rec.value.null) (void)remote_log_metadata::describe(rec.value.bytes);  // any value, as the decoder reads it
    // Any record, as --offsets-decoder and --transaction-log-decoder read it.
    if (!rec.key.null)
      for (auto topic : {coordinator::Topic::group, coordinator::Topic::transaction, coordinator::Topic::share}) {
        const auto text = coordinator::parse(topic, rec.offset_delta, rec.key.bytes,
                                             rec.value.null ? std::nullopt : std::optional<Bytes>(rec.value.bytes));
        check(text.ok() ? !text->key.empty() : !text.error().message.empty());
      }
  }
  (void)rr.finish();
}

void fuzz_legacy(const EntryRef& e, std::vector<uint8_t>& scratch) {
  auto m = legacy::decode(e);
  if (!m.ok()) return;
  (void)(legacy::compute_crc(e.bytes) == m->crc);
  if (m->codec_id() == 0) return;
  std::vector<legacy::InnerMessage> inner;
  if (!legacy::inner_messages(*m, scratch, kMaxDecompressed, inner).ok()) return;
  check(scratch.size() <= kMaxDecompressed && !inner.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Bytes file(data, size);
  EntryScanner scan(file, Position{0});
  std::vector<uint8_t> scratch;
  RecordWalker walker(kMaxDecompressed);
  ProducerState producers;  // the replay kseg-truncate writes a snapshot from
  int64_t covered = 0;
  while (auto e = scan.next()) {
    check(e->position.value == covered && e->bytes.size() == static_cast<size_t>(kLogOverhead) + e->size);
    covered += static_cast<int64_t>(e->bytes.size());
    if (e->magic >= 2) fuzz_v2(*e, scratch);
    else fuzz_legacy(*e, scratch);
    (void)entry_last_offset(*e);
    (void)walker.walk(*e, [](const EntryRecord&) { return true; });
    (void)producers.apply(*e);
  }
  check(scan.end() != SegmentEnd::none && scan.valid_end().value == covered);
  check(covered + scan.trailing().bytes == static_cast<int64_t>(size));
  check((scan.end() == SegmentEnd::clean) == (scan.trailing().bytes == 0));
  return 0;
}
