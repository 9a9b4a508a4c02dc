// SPDX-License-Identifier: Apache-2.0
// Magic-independent questions about one entry of a segment file: its last
// offset, and its records (Kafka's deep iteration). A legacy entry is a
// "batch" of one message, or of a compressed wrapper's inner messages; a v2
// entry is a record batch. Every tool that reads records walks them here,
// with one decompression cap.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"

namespace kseg {

// Kafka's RecordBatch.lastOffset(): base + lastOffsetDelta (v2), the
// message offset (legacy; for a wrapper, the offset of its last inner message).
Result<int64_t> entry_last_offset(const EntryRef& e);

// One record as Kafka's deep iteration gives it: absolute offset and
// timestamp (a LogAppendTime batch's for each record), key and value, and
// what only one format has.
struct EntryRecord {
  int64_t offset = 0;
  int64_t timestamp = -1;
  v2::Blob key, value;
  const v2::Record* v2 = nullptr;            // v2: deltas, headers, position (file, or decompressed stream)
  const legacy::Message* message = nullptr;  // legacy: the message, or a wrapper's inner message
  bool crc_valid = true;                     // legacy: an inner message's own CRC
};

// Walks the records of entries, keeping its decompression buffers from one
// entry to the next. fn(const EntryRecord&) returns false to stop (the walk
// then succeeds). On failure, stage() says where, for the callers that
// report each differently.
class RecordWalker {
 public:
  enum class Stage { none, count, records, decode };

  // `scratch`: where decompressed records go (and the records' views
  // point) when the caller keeps them past the next walk; the walker's own
  // buffer otherwise.
  explicit RecordWalker(size_t max_decompressed = v2::kDefaultMaxDecompressed, std::vector<uint8_t>* scratch = nullptr)
      : max_(max_decompressed), scratch_(scratch ? scratch : &own_) {}
  RecordWalker(const RecordWalker&) = delete;
  RecordWalker& operator=(const RecordWalker&) = delete;

  // Any entry: its header or message decoded first (Stage::count also for
  // an undecodable one).
  template <class Fn>
  Status walk(const EntryRef& e, Fn&& fn) {
    stage_ = Stage::count;
    if (e.magic < 2) {
      auto m = legacy::decode(e);
      if (!m.ok()) return m.status();
      return message(*m, fn);
    }
    auto h = v2::decode_header(e);
    if (!h.ok()) return h.status();
    return batch(e, *h, fn);
  }

  // The records of v2 batch `e` with header `h`.
  template <class Fn>
  Status batch(const EntryRef& e, const v2::BatchHeader& h, Fn&& fn) {
    stage_ = Stage::count;
    if (h.records_count < 0)
      return Status::fail(Errc::bad_length, e.position + Length{v2::kRecordsCountOffset}, invalid_count_text(h));
    stage_ = Stage::records;
    auto records = v2::records_bytes(e, h, *scratch_, max_);
    if (!records.ok()) return records.status();
    stage_ = Stage::decode;
    const Position base = h.codec_id() == 0 ? e.position + Length{v2::kRecordBatchOverhead} : Position{0};
    v2::RecordReader rr(*records, base, h.records_count);
    v2::Record rec;
    EntryRecord r;
    r.v2 = &rec;
    while (rr.next(rec)) {
      r.offset = h.record_offset(rec.offset_delta);
      r.timestamp = h.record_timestamp(rec.timestamp_delta);
      r.key = rec.key;
      r.value = rec.value;
      if (!fn(static_cast<const EntryRecord&>(r))) return done();
    }
    records_left_ = rr.left();
    KSEG_RETURN_IF_ERROR(rr.finish());
    return done();
  }

  // Legacy message `m`: itself, or a wrapper's inner messages.
  template <class Fn>
  Status message(const legacy::Message& m, Fn&& fn) {
    EntryRecord r;
    if (m.codec_id() == 0) {
      r = EntryRecord{m.offset, m.timestamp, m.key, m.value, nullptr, &m, true};
      fn(static_cast<const EntryRecord&>(r));
      return done();
    }
    stage_ = Stage::records;
    KSEG_RETURN_IF_ERROR(legacy::inner_messages(m, *scratch_, max_, inner_));
    for (const auto& im : inner_) {
      r = EntryRecord{im.absolute_offset, im.timestamp, im.message.key, im.message.value, nullptr, &im.message,
                      im.crc_valid};
      if (!fn(static_cast<const EntryRecord&>(r))) break;
    }
    return done();
  }

  // Legacy message `m`'s first offset, as Kafka's legacy batch reports its
  // base offset: the message's own offset, or its wrapper's first inner
  // message's (nullopt when the set is empty). A wrapper is decompressed
  // into buffers of its own (the records a walk handed out stay valid).
  Result<std::optional<int64_t>> legacy_base_offset(const legacy::Message& m) {
    if (m.codec_id() == 0) return std::optional<int64_t>{m.offset};
    KSEG_RETURN_IF_ERROR(legacy::inner_messages(m, base_scratch_, max_, base_inner_));
    if (base_inner_.empty()) return std::optional<int64_t>{};
    const int64_t first = base_inner_.front().absolute_offset;
    base_inner_.clear();
    if (base_scratch_.capacity() > (64u << 20)) std::vector<uint8_t>().swap(base_scratch_);  // a huge wrapper's memory goes
    return std::optional<int64_t>{first};
  }

  Stage stage() const { return stage_; }
  // After a v2 batch's records failed to decode: how many of those its
  // header counts were not read.
  int32_t records_left() const { return records_left_; }

 private:
  static std::string invalid_count_text(const v2::BatchHeader& h);
  Status done() {
    stage_ = Stage::none;
    return {};
  }

  size_t max_;
  Stage stage_ = Stage::none;
  int32_t records_left_ = 0;
  std::vector<uint8_t> own_;
  std::vector<uint8_t>* scratch_;
  std::vector<legacy::InnerMessage> inner_;
  std::vector<uint8_t> base_scratch_;  // legacy_base_offset's own
  std::vector<legacy::InnerMessage> base_inner_;
};

}  // namespace kseg
