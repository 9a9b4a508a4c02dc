// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_log.h"

#include <climits>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "formats/batch_check.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/batch_walk.h"
#include "formats/legacy.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/segment_end_code.h"

namespace kseg {

namespace {

std::string hex32(uint32_t v) { return fmt::format("0x{:08x}", v); }

// The control type of a control batch's first record, as Kafka's producer
// state code reads it (only ABORT/COMMIT matter there).
int16_t control_type(const EntryRef& e, const v2::BatchHeader& h, std::vector<uint8_t>& scratch) {
  if (h.records_count < 1) return -1;
  auto first = control::first_record(e, h, scratch);
  return first.ok() ? first->key.type : int16_t{-1};
}

// Header, CRC and producer fields of a v2 batch. Returns false when the
// header itself cannot be read. The stored and computed CRCs go in the
// finding's expected and found.
bool examine_v2(const EntryRef& e, const EntryCheck& c, BatchInfo& b, const std::string& file,
                std::vector<uint8_t>& scratch, Findings& f) {
  if (!c.decoded) {
    f.add(Code::log_bad_size, file, e.position, too_small_text(e), fmt::format(">= {}", v2::kRecordBatchOverhead),
          std::to_string(e.bytes.size()));
    return false;
  }
  const v2::BatchHeader& h = c.header;
  if (!c.crc_ok()) {
    b.crc_ok = false;
    f.add(Code::log_crc_mismatch, file, e.position,
          fmt::format("batch at offset {} ({} bytes): {} mismatch", h.base_offset, e.bytes.size(), crc_name(c)),
          hex32(c.crc_stored), hex32(c.crc_computed));
  }
  b.first_offset = h.base_offset;
  b.last_offset = h.last_offset();
  b.max_timestamp = h.max_timestamp;
  b.leader_epoch = h.partition_leader_epoch;
  b.producer_id = h.producer_id;
  b.producer_epoch = h.producer_epoch;
  b.last_sequence = h.last_sequence();
  b.last_offset_delta = h.last_offset_delta;
  b.records_count = h.records_count;
  b.transactional = h.is_transactional();
  b.control = h.is_control();
  if (!c.codec_known)
    f.add(Code::log_bad_codec, file, e.position + Length{v2::kAttributesOffset}, unknown_codec_text(c), "0..4",
          std::to_string(c.codec_id));
  if (h.last_offset_delta < 0)
    f.add(Code::log_offset_order, file, e.position + Length{v2::kAttributesOffset + 2}, "negative lastOffsetDelta",
          ">= 0", std::to_string(h.last_offset_delta));
  if (h.records_count < 0)
    f.add(Code::log_record_count, file, e.position + Length{v2::kRecordsCountOffset}, "negative recordsCount", ">= 0",
          std::to_string(h.records_count));
  // Kafka writes pid and epoch -1 together for non-idempotent batches, and
  // transactional (or marker) batches always carry a producer id. Without a
  // producer id the sequence is never read: clients write -1, the 4.4 group
  // coordinator 0 (corpus case live-broker, __consumer_offsets).
  if (h.producer_id < 0 &&
      (h.producer_epoch != -1 || (h.base_sequence != -1 && h.base_sequence != 0) || h.is_transactional()))
    f.add(Code::log_producer_fields, file, e.position + Length{43},
          "no producer id, but an epoch, a sequence or the transactional flag is set", "epoch -1, sequence -1 or 0",
          fmt::format("epoch {}, sequence {}, transactional {}", h.producer_epoch, h.base_sequence,
                      h.is_transactional()));
  if (b.control && b.crc_ok) b.control_type = control_type(e, h, scratch);
  return true;
}

bool examine_legacy(const EntryRef& e, const EntryCheck& c, BatchInfo& b, const std::string& file, Findings& f) {
  if (!c.decoded) {
    f.add(Code::log_bad_size, file, e.position,
          fmt::format("v{} message: {}", e.magic, legacy::decode(e).error().message));
    return false;
  }
  if (!c.crc_ok()) {
    b.crc_ok = false;
    f.add(Code::log_crc_mismatch, file, e.position,
          fmt::format("v{} message at offset {} ({} bytes): {} mismatch", e.magic, c.message->offset, e.bytes.size(),
                      crc_name(c)),
          hex32(c.crc_stored), hex32(c.crc_computed));
  }
  if (!c.codec_known)
    f.add(Code::log_bad_codec, file, e.position + Length{legacy::kAttributesOffset}, unknown_codec_text(c), "0..3",
          std::to_string(c.codec_id));
  b.first_offset = b.last_offset = c.message->offset;
  b.max_timestamp = c.message->timestamp;
  return true;
}

// Offsets against the previous batch and the segment's base offset.
void check_offsets(const BatchInfo& b, int64_t prev_last, const SegmentScan& s, Findings& f) {
  if (b.first_offset <= prev_last)
    f.add(Code::log_offset_order, s.file, Position{b.position},
          "batch offset not above the previous batch's last offset", fmt::format("> {}", prev_last),
          std::to_string(b.first_offset));
  if (b.first_offset < s.base_offset.value)
    f.add(Code::log_below_base_offset, s.file, Position{b.position}, "batch offset below the segment's base offset",
          fmt::format(">= {}", s.base_offset.value), std::to_string(b.first_offset));
  else if (b.last_offset - s.base_offset.value > INT32_MAX)
    f.add(Code::log_offset_overflow, s.file, Position{b.position},
          "batch last offset does not fit the segment's 32-bit relative offsets",
          fmt::format("<= {}", s.base_offset.value + INT32_MAX), std::to_string(b.last_offset));
}

// Why the walk stopped, judged like Kafka's recovery would.
void check_end(const EntryScanner& sc, const SegmentScan& s, Length mapped, Length file_size, Findings& f) {
  const Position at = sc.valid_end();
  const int64_t left = sc.trailing().bytes;
  switch (sc.end()) {
    case SegmentEnd::clean:
    case SegmentEnd::none:
    case SegmentEnd::too_small:  // entry faults: the scanner never ends on these
    case SegmentEnd::bad_crc:
    case SegmentEnd::bad_control: return;
    case SegmentEnd::short_tail:
    case SegmentEnd::partial_tail:
      if (mapped < file_size) {  // --max-bytes cut the file: not the file's end
        f.add(Code::log_max_bytes, s.file, at, fmt::format("checked the first {} of {} bytes", mapped, file_size));
      } else if (s.last_segment && sc.end() == SegmentEnd::short_tail) {
        f.add(Code::log_torn_tail, s.file, at, segment_end_detail(sc) + ": a torn batch header",
              "a batch header (>= 18 bytes) or end of file", fmt::format("{} bytes", left));
      } else if (s.last_segment) {
        f.add(Code::log_torn_tail, s.file, at, segment_end_detail(sc) + " (a torn write)",
              fmt::format("{} bytes", kLogOverhead + sc.stop_size()), fmt::format("{} bytes", left));
      } else {
        f.add(*segment_end_code(sc.end(), false), s.file, at,
              fmt::format("batch at offset {} declares {} bytes, more than the {} left, in a segment that is not "
                          "the active one",
                          sc.stop_offset(), kLogOverhead + int64_t{sc.stop_size()}, left),
              fmt::format("<= {} bytes", left), fmt::format("{} bytes", kLogOverhead + int64_t{sc.stop_size()}));
      }
      return;
    case SegmentEnd::zero_tail:
      // preallocate=true creates the active segment at segment.bytes (page
      // multiples in practice) and Kafka recovery trims the zeros silently.
      if (s.last_segment && file_size.bytes % 4096 == 0)
        f.add(Code::log_preallocated_tail, s.file, at, fmt::format("{} zero bytes of preallocated space", left));
      else
        f.add(Code::log_zero_tail, s.file, at, fmt::format("{} zero bytes where a batch should start", left),
              "a batch or end of file", fmt::format("{} zero bytes", left));
      return;
    case SegmentEnd::bad_size:
      f.add(*segment_end_code(sc.end(), s.last_segment), s.file, at, segment_end_detail(sc) + ", and non-zero data follows",
            ">= 14", std::to_string(sc.stop_size()));
      return;
  }
}

// Kafka's producer state reads a transactional control batch's first record
// as an end-transaction marker: another control type fails loading the log,
// a marker that does not decode makes recovery stop after this batch.
void check_marker(const EntryRef& e, const EntryCheck& c, const LogCheckOptions& opts, const std::string& file,
                  Findings& f) {
  const Status m = check_control_marker(e, c.header, opts.max_decompressed_bytes);
  if (m.ok()) return;
  if (m.error().code == Errc::refused)
    f.add(Code::log_unrecoverable, file, e.position, m.error().message);
  else
    f.add(Code::log_bad_control, file, e.position,
          fmt::format("control batch at offset {} of producer {}: end-transaction marker does not decode: {}",
                      c.base_offset, c.header.producer_id, m.error().message));
}

// One entry examined (header, CRC, records) on any thread.
struct EntryWork {
  BatchInfo b;
  bool ok = false;
  // Its own, as the next chunk is examined while this one is consumed; null
  // when there is none, which is nearly always: building and moving an empty
  // Findings per batch showed in profiles of small batches.
  std::unique_ptr<Findings> found;
};

// What one thread needs to examine entries.
struct Scratch {
  std::vector<uint8_t> bytes;
  Findings found;
};

EntryWork examine_entry(const LogCheckOptions& opts, const std::string& file, const WalkEntry& entry,
                        Scratch& scratch) {
  const EntryRef& e = entry.ref();
  EntryWork w;
  BatchInfo& b = w.b;
  Findings& f = scratch.found;
  b.position = e.position;
  b.size = e.total();
  b.magic = e.magic;
  if (e.magic < 0 || e.magic > 2) {
    f.add(Code::log_bad_magic, file, e.position + Length{kMagicOffset}, "unknown magic", "0, 1 or 2",
          std::to_string(e.magic));
  } else {
    const EntryCheck& c = entry.check();
    w.ok = e.magic == 2 ? examine_v2(e, c, b, file, scratch.bytes, f) : examine_legacy(e, c, b, file, f);
    if (w.ok && b.crc_ok && needs_marker_check(c)) check_marker(e, c, opts, file, f);
    if (w.ok && b.crc_ok) check_records(e, c, b, opts, file, scratch.bytes, f);
  }
  if (!f.empty()) w.found = std::make_unique<Findings>(std::exchange(f, Findings{}));
  return w;
}

}  // namespace

bool scan_segment(const LogCheckOptions& opts, SegmentScan& s, Findings& f, const BatchVisitor& visit) {
  auto mf = MappedFile::open(s.file, opts.max_bytes);
  if (!mf.ok()) {
    f.io_error(s.file, mf.error().message);
    return false;
  }
  mf->set_drop_page_cache(true);  // safe on a live broker: leave its page cache alone
  s.file_size = Length{mf->file_size()};
  const size_t before = f.problems.size();
  auto suppressed_errors = [&] {
    const auto it = f.suppressed.find(s.file);
    return it == f.suppressed.end() ? int64_t{0} : it->second[static_cast<size_t>(Severity::error)];
  };
  const int64_t errors_before = suppressed_errors();
  // Quick checks are CRCs only, memory-bound: extra threads do not pay.
  const unsigned threads = opts.depth == VerifyDepth::quick ? 1u : std::max(1u, opts.segment_threads);
  std::vector<Scratch> scratch(threads);
  EntryScanner sc(mf->bytes(), Position{0});
  int64_t prev_last = INT64_MIN;
  // Entries are examined on any thread; the offset checks, which need the
  // previous batch, and the visitors run in file order.
  // A faulty entry is reported and read past, as Kafka's readers do until
  // the scanner cannot go on.
  walk_entries<EntryWork>(
      sc, threads, [&](const WalkEntry& e, unsigned t) { return examine_entry(opts, s.file, e, scratch[t]); },
      [&](const EntryRef&, EntryWork& w) {
        if (w.found) f.take_all(*w.found);
        if (!w.ok) return Step::skip;
        check_offsets(w.b, prev_last, s, f);
        prev_last = std::max(prev_last, w.b.last_offset);
        ++s.batch_count;
        s.last_batch = w.b;
        if (visit) visit(w.b);
        return Step::accept;
      },
      [&](Position end) { mf->release_before(end); });
  s.valid_end = sc.valid_end();
  s.checked_bytes = Length{mf->size()};
  // How the scan ended decides what later checks report: never suppressed.
  f.capped = false;
  check_end(sc, s, s.checked_bytes, s.file_size, f);
  f.capped = true;
  for (size_t i = before; i < f.problems.size(); ++i)
    if (f.problems[i].code != Code::log_preallocated_tail && f.problems[i].code != Code::log_max_bytes &&
        f.problems[i].position && *f.problems[i].position >= s.valid_end)
      s.tail_damaged = true;
  mf->release_before(Position{mf->size()});
  for (size_t i = before; i < f.problems.size(); ++i)
    if (f.problems[i].severity == Severity::error) s.damaged = true;
  if (suppressed_errors() > errors_before) s.damaged = true;
  auto& fr = f.file(s.file, "log");
  fr.size_bytes = s.file_size.bytes;
  fr.checked_bytes = mf->size();
  fr.entries = s.batch_count;
  return true;
}

}  // namespace kseg
