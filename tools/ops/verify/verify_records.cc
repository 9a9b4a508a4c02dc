// SPDX-License-Identifier: Apache-2.0
// Record-level checks of one batch: every record decodes, and the header's
// count, last offset delta and max timestamp agree with the records.
#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "tools/ops/verify/verify_log.h"

namespace kseg {

namespace {

bool wanted(const LogCheckOptions& opts, int codec_id) {
  if (opts.depth == VerifyDepth::quick) return false;
  return codec_id == 0 || opts.depth == VerifyDepth::deep;
}

void check_v2(const EntryRef& e, const EntryCheck& c, const LogCheckOptions& opts, const std::string& file,
              std::vector<uint8_t>& scratch, Findings& f) {
  if (!c.decoded) return;
  const v2::BatchHeader* h = &c.header;
  if (h->records_count < 0 || !wanted(opts, h->codec_id()) || codec_name(h->codec_id()) == nullptr)
    return;
  auto records = v2::records_bytes(e, *h, scratch, opts.max_decompressed_bytes);
  if (!records.ok()) {
    f.add(Code::log_record_decode, file, e.position,
          fmt::format("batch at offset {}: {}", h->base_offset, records.error().message));
    return;
  }
  // The common case, all well: a tight walk. Anything else is walked again
  // below (RecordWalker) for the finding's detail.
  {
    int32_t prev = -1;
    int64_t max_ts = -1;
    const bool ok = v2::for_each_record(*records, h->records_count, [&](const v2::WalkedRecord& r) {
      if (r.offset_delta <= prev || r.offset_delta > h->last_offset_delta) return false;
      prev = r.offset_delta;
      max_ts = std::max(max_ts, v2::wrapping_add(h->base_timestamp, r.timestamp_delta));
      return true;
    });
    const bool max_ok = prev < 0 || h->timestamp_type() != v2::TimestampType::create_time || max_ts == h->max_timestamp;
    if (ok && max_ok) return;
  }
  // Uncompressed records carry file positions; decompressed ones only the batch's.
  const bool raw = h->codec_id() == 0;
  RecordWalker walker(opts.max_decompressed_bytes, &scratch);
  int32_t n = 0, prev_delta = -1;
  int64_t max_ts = -1;
  bool bad_delta = false;
  const Status st = walker.batch(e, *h, [&](const EntryRecord& r) {
    const v2::Record& rec = *r.v2;
    if (rec.offset_delta <= prev_delta || rec.offset_delta > h->last_offset_delta) {
      f.add(Code::log_offset_delta, file, raw ? rec.position : e.position,
            fmt::format("batch at offset {}: record {} has offset delta {}", h->base_offset, n, rec.offset_delta),
            fmt::format("{}..{}", prev_delta + 1, h->last_offset_delta), std::to_string(rec.offset_delta));
      bad_delta = true;
      return false;
    }
    prev_delta = rec.offset_delta;
    max_ts = std::max(max_ts, r.timestamp);  // compared below for CreateTime batches only
    ++n;
    return true;
  });
  if (bad_delta) return;
  if (!st.ok()) {
    // Records that end before recordsCount is reached are a count problem;
    // anything else is a record that does not decode.
    const bool short_count = st.error().code == Errc::truncated && walker.records_left() > 0 && n > 0;
    const std::optional<Position> at = short_count ? e.position + Length{v2::kRecordsCountOffset}
                                       : raw ? st.error().position : e.position;
    f.add(short_count ? Code::log_record_count : Code::log_record_decode, file, at,
          fmt::format("batch at offset {}, record {}: {}", h->base_offset, n, st.error().message),
          short_count ? std::to_string(h->records_count) : std::string(),
          short_count ? std::to_string(n) : std::string());
    return;
  }
  // Compaction keeps lastOffsetDelta but may drop the last records, so only
  // "not beyond" is checked above; the max timestamp is recomputed by the
  // cleaner over what it keeps, so it must match for CreateTime batches.
  if (n > 0 && h->timestamp_type() == v2::TimestampType::create_time && max_ts != h->max_timestamp)
    f.add(Code::log_max_timestamp, file, e.position + Length{35},
          fmt::format("batch at offset {}: maxTimestamp is not the largest record timestamp", h->base_offset),
          std::to_string(max_ts), std::to_string(h->max_timestamp));
}

void check_legacy(const EntryRef& e, BatchInfo& b, const LogCheckOptions& opts, const std::string& file,
                  std::vector<uint8_t>& scratch, Findings& f) {
  auto m = legacy::decode(e);
  if (!m.ok() || m->codec_id() == 0 || m->codec_id() > 3 || !wanted(opts, m->codec_id())) return;
  RecordWalker walker(opts.max_decompressed_bytes, &scratch);
  int64_t prev = INT64_MIN, max_ts = -1, first = 0, i = 0;
  const Status st = walker.message(*m, [&](const EntryRecord& r) {
    if (!r.crc_valid)
      f.add(Code::log_crc_mismatch, file, e.position,
            fmt::format("wrapper at offset {}: inner message {} fails its CRC-32", m->offset, i));
    if (r.offset <= prev)
      f.add(Code::log_offset_order, file, e.position,
            fmt::format("wrapper at offset {}: inner message {} offset not increasing", m->offset, i),
            fmt::format("> {}", prev), std::to_string(r.offset));
    if (i++ == 0) first = r.offset;
    prev = r.offset;
    max_ts = std::max(max_ts, r.message->timestamp);
    return true;
  });
  if (!st.ok()) {
    f.add(Code::log_record_decode, file, e.position, fmt::format("wrapper at offset {}: {}", m->offset, st.error().message));
    return;
  }
  if (i == 0) return;
  if (prev != m->offset)
    f.add(Code::log_offset_order, file, e.position, "wrapper offset is not the offset of its last inner message",
          std::to_string(prev), std::to_string(m->offset));
  if (m->magic == 1 && m->timestamp_type() == v2::TimestampType::create_time && max_ts != m->timestamp)
    f.add(Code::log_max_timestamp, file, e.position + Length{legacy::kTimestampOffsetV1},
          fmt::format("wrapper at offset {}: timestamp is not the largest inner timestamp", m->offset),
          std::to_string(max_ts), std::to_string(m->timestamp));
  b.first_offset = first;
}

}  // namespace

void check_records(const EntryRef& e, const EntryCheck& c, BatchInfo& b, const LogCheckOptions& opts,
                   const std::string& file, std::vector<uint8_t>& scratch, Findings& f) {
  if (e.magic == 2)
    check_v2(e, c, opts, file, scratch, f);
  else
    check_legacy(e, b, opts, file, scratch, f);
}

}  // namespace kseg
