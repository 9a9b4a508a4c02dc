// SPDX-License-Identifier: Apache-2.0
// Corruption sweep over real Kafka-written entries (STYLE.md point 14):
// every truncation length, every single-byte flip of a small entry, and
// CRC-fixed faults that isolate the record and codec layers. Expected
// outcomes come from the format rules (log_entry.h, batch_v2.h, legacy.h),
// never from Kafka-like output written by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/unit/support/dirs.h"
#include "corrupt.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"

namespace {

using namespace kseg;
using corrupt::Buf;

constexpr size_t kMaxDecompressed = 1u << 20;
constexpr Position kBase{4096};  // entries are scanned as if at this file position

const char* const kInputs[] = {"v2-none", "v2-gzip", "v2-snappy", "v2-lz4",    "v2-zstd",   "v1-none",  "v1-gzip",
                               "v1-snappy", "v1-lz4", "v0-none",  "v0-gzip", "v0-snappy", "v0-lz4", "transactions"};

// The first `n` entries of the directory's first segment.
Buf first_entries(const std::string& dir, size_t n) {
  const auto root = std::filesystem::path(KSEG_SOURCE_DIR) / "testdata/kafka" / dir;
  for (const auto& sub : std::filesystem::directory_iterator(root)) {
    const auto log = sub.path() / "00000000000000000000.log";
    if (std::filesystem::exists(log)) {
      const Buf file = test::read_bytes(log);
      return corrupt::first_entries(corrupt::view(file), n);
    }
  }
  throw std::runtime_error("no first segment under " + root.string());
}

// Decodes everything an entry holds, as a reader would: v2 header, records
// (decompressed), headers, control records; legacy message and inner set;
// then the magic-independent walk. Returns the walk's status.
Status decode_everything(const EntryRef& e) {
  std::vector<uint8_t> scratch;
  if (e.magic >= 2) {
    auto h = v2::decode_header(e);
    if (h.ok()) {
      (void)h->last_sequence();
      auto records = v2::records_bytes(e, *h, scratch, kMaxDecompressed);
      if (records.ok()) {
        v2::RecordReader rr(*records, Position{0}, h->records_count);
        v2::Record rec;
        while (rr.next(rec)) {
          v2::HeaderReader hr(rec);
          v2::Header hdr;
          while (hr.next(hdr)) {}
          if (h->is_control()) (void)control::describe(rec.key, rec.value);
        }
        (void)rr.finish();
      }
    }
  } else {
    auto m = legacy::decode(e);
    std::vector<legacy::InnerMessage> inner;
    if (m.ok() && m->codec_id() != 0) (void)legacy::inner_messages(*m, scratch, kMaxDecompressed, inner);
  }
  (void)entry_last_offset(e);
  RecordWalker walker(kMaxDecompressed);
  return walker.walk(e, [](const EntryRecord&) { return true; });
}

struct Scan {
  std::vector<EntryRef> entries;
  SegmentEnd end = SegmentEnd::none;
  Position valid_end;
  int32_t stop_size = 0;
};

Scan scan_and_decode(Bytes data) {
  Scan s;
  EntryScanner scanner(data, kBase);
  while (auto e = scanner.next()) {
    (void)decode_everything(*e);
    s.entries.push_back(*e);
  }
  s.end = scanner.end();
  s.valid_end = scanner.valid_end();
  s.stop_size = scanner.stop_size();
  return s;
}

// CRC as stored and as computed, by the entry's original magic.
bool crc_matches(Bytes entry, int8_t magic) {
  if (magic >= 2) return load_be32(entry.data() + v2::kCrcOffset) == v2::compute_crc(entry);
  return load_be32(entry.data() + legacy::kCrcOffset) == legacy::compute_crc(entry);
}

}  // namespace

TEST_CASE("every truncation length ends at the last whole entry", "[sweep]") {
  for (const char* dir : kInputs) {
    const Buf data = first_entries(dir, 3);
    const auto bounds = corrupt::entry_bounds(corrupt::view(data));
    REQUIRE(bounds.size() == 4);
    REQUIRE(bounds.back() == data.size());
    for (size_t len = 0; len <= data.size(); ++len) {
      INFO(dir << " cut at " << len << " of " << data.size());
      const Scan s = scan_and_decode(Bytes(data.data(), len));
      size_t whole = 0;
      while (whole + 1 < bounds.size() && bounds[whole + 1] <= len) ++whole;
      const size_t last_end = bounds[whole];
      REQUIRE(s.entries.size() == whole);
      for (size_t i = 0; i < whole; ++i)
        CHECK((s.entries[i].position == kBase + Length{static_cast<int64_t>(bounds[i])} &&
               s.entries[i].bytes.size() == bounds[i + 1] - bounds[i]));
      CHECK(s.valid_end == kBase + Length{static_cast<int64_t>(last_end)});
      // Kafka needs 18 bytes to read an entry header (log_entry.h).
      const size_t left = len - last_end;
      const SegmentEnd expect = left == 0 ? SegmentEnd::clean
                             : left <= static_cast<size_t>(kHeaderSizeUpToMagic) ? SegmentEnd::short_tail
                                                                                 : SegmentEnd::partial_tail;
      CHECK(segment_end_name(s.end) == std::string(segment_end_name(expect)));
      if (expect == SegmentEnd::partial_tail)
        CHECK(s.stop_size == static_cast<int32_t>(bounds[whole + 1] - bounds[whole] - kLogOverhead));
    }
  }
}

TEST_CASE("every single-byte flip of a small entry is classified by its field", "[sweep]") {
  for (const char* dir : kInputs) {
    const Buf data = first_entries(dir, 3);
    const auto bounds = corrupt::entry_bounds(corrupt::view(data));
    // The smallest of the three entries is the one attacked.
    size_t t = 0;
    for (size_t i = 1; i + 1 < bounds.size(); ++i)
      if (bounds[i + 1] - bounds[i] < bounds[t + 1] - bounds[t]) t = i;
    const size_t start = bounds[t], total = bounds[t + 1] - bounds[t];
    const Position at = kBase + Length{static_cast<int64_t>(start)};
    const auto magic = static_cast<int8_t>(data[start + kMagicOffset]);
    REQUIRE(crc_matches(Bytes(data.data() + start, total), magic));

    for (uint8_t mask : {uint8_t{0xFF}, uint8_t{0x01}}) {
      for (size_t i = 0; i < total; ++i) {
        INFO(dir << " entry " << t << " byte " << i << " xor " << int{mask});
        const Buf m = corrupt::flip(corrupt::view(data), start + i, mask);
        const Scan s = scan_and_decode(corrupt::view(m));  // must not crash
        REQUIRE(s.entries.size() >= t);
        for (size_t k = 0; k < t; ++k) CHECK(s.entries[k].bytes.size() == bounds[k + 1] - bounds[k]);

        if (i >= static_cast<size_t>(kOffsetFieldBytes) && i < static_cast<size_t>(kLogOverhead)) {
          // Size field: a new extent, judged by the scanner.
          const auto size = static_cast<int32_t>(load_be32(m.data() + start + kOffsetFieldBytes));
          if (size < kMinRecordOverhead) {
            CHECK(s.entries.size() == t);
            CHECK(s.end == SegmentEnd::bad_size);
            CHECK(s.valid_end == at);
          } else if (static_cast<uint64_t>(size) + kLogOverhead > m.size() - start) {
            CHECK(s.entries.size() == t);
            CHECK(s.end == SegmentEnd::partial_tail);
            CHECK(s.valid_end == at);
            CHECK(s.stop_size == size);
          } else {
            // Another boundary: the CRC was computed over a different extent.
            REQUIRE(s.entries.size() > t);
            CHECK(s.entries[t].position == at);
            CHECK(s.entries[t].size == size);
            CHECK_FALSE(crc_matches(s.entries[t].bytes, magic));
          }
          continue;
        }

        // Any other field: the boundaries are unchanged.
        REQUIRE(s.entries.size() == bounds.size() - 1);
        CHECK(s.end == SegmentEnd::clean);
        const EntryRef& e = s.entries[t];
        CHECK(e.position == at);
        CHECK(e.bytes.size() == total);
        for (size_t k = 0; k < s.entries.size(); ++k)
          if (k != t) CHECK(crc_matches(s.entries[k].bytes, static_cast<int8_t>(s.entries[k].magic)));

        if (i < static_cast<size_t>(kOffsetFieldBytes)) {
          // Offset: not covered by any CRC; decodes with another offset.
          const auto offset = static_cast<int64_t>(load_be64(data.data() + start)) ^
                              static_cast<int64_t>(uint64_t{mask} << (8 * (7 - i)));
          CHECK(e.offset == offset);
          CHECK(crc_matches(e.bytes, magic));
          if (magic >= 2) {
            auto h = v2::decode_header(e);
            REQUIRE(h.ok());
            CHECK(h->base_offset == offset);
          } else {
            auto msg = legacy::decode(e);
            REQUIRE(msg.ok());
            CHECK(msg->offset == offset);
          }
        } else if (magic >= 2 && i < static_cast<size_t>(kMagicOffset)) {
          // v2 partitionLeaderEpoch: not covered by the CRC.
          CHECK(crc_matches(e.bytes, magic));
          auto h = v2::decode_header(e);
          REQUIRE(h.ok());
          CHECK(h->partition_leader_epoch != static_cast<int32_t>(load_be32(data.data() + start + 12)));
        } else if (magic >= 2 && i == static_cast<size_t>(kMagicOffset)) {
          // v2 magic: outside the CRC, but no longer a known magic (2^0xFF, 2^1).
          CHECK(crc_matches(e.bytes, magic));
          CHECK((e.magic < 0 || e.magic > 2));
        } else {
          // The CRC field itself (v2 17..20, legacy 12..15) or a covered byte
          // (v2 21.., legacy 16..): one changed byte always changes a CRC.
          CHECK(i >= static_cast<size_t>(magic >= 2 ? v2::kCrcOffset : legacy::kCrcOffset));
          CHECK_FALSE(crc_matches(e.bytes, magic));
        }
      }
    }
  }
}

namespace {

// The first entry of a v2 input, with the positions of its records (from a
// clean walk of Kafka's bytes, which must end exactly at the entry's end).
struct V2Entry {
  Buf bytes;
  std::vector<int64_t> record_starts;  // entry-relative, codec none only
};

V2Entry first_v2_entry(const std::string& dir) {
  V2Entry out{first_entries(dir, 1), {}};
  EntryRef e{kBase, corrupt::view(out.bytes), 0, 0, 2};
  auto h = v2::decode_header(e);
  REQUIRE(h.ok());
  if (h->codec_id() == 0) {
    v2::RecordReader rr(e.bytes.subspan(v2::kRecordBatchOverhead), Position{v2::kRecordBatchOverhead},
                        h->records_count);
    v2::Record rec;
    while (rr.next(rec)) out.record_starts.push_back(rec.position.value);
    REQUIRE(rr.finish().ok());
    REQUIRE(static_cast<int32_t>(out.record_starts.size()) == h->records_count);
  }
  return out;
}

EntryRef entry_of(const Buf& b) {
  EntryScanner s(corrupt::view(b), kBase);
  auto e = s.next();
  REQUIRE(e);
  return *e;
}

// Records of a (CRC-valid) v2 entry read as RecordReader positions them:
// file positions for codec none.
Status read_records(const EntryRef& e) {
  REQUIRE(crc_matches(e.bytes, 2));
  auto h = v2::decode_header(e);
  REQUIRE(h.ok());
  std::vector<uint8_t> scratch;
  auto records = v2::records_bytes(e, *h, scratch, kMaxDecompressed);
  if (!records.ok()) return records.status();
  const Position base = h->codec_id() == 0 ? e.position + Length{v2::kRecordBatchOverhead} : Position{0};
  v2::RecordReader rr(*records, base, h->records_count);
  v2::Record rec;
  while (rr.next(rec)) {}
  return rr.finish();
}

}  // namespace

TEST_CASE("fix_crc isolates record-layer faults in an uncompressed batch", "[sweep]") {
  const V2Entry v = first_v2_entry("v2-none");
  REQUIRE(v.record_starts.size() >= 2);
  REQUIRE(read_records(entry_of(v.bytes)).ok());
  const Position entry_end = kBase + Length{static_cast<int64_t>(v.bytes.size())};

  SECTION("a record length varint turned negative (zigzag sign bit) is a bad length at that record") {
    for (size_t r = 0; r < v.record_starts.size(); ++r) {
      INFO("record " << r);
      const auto rel = static_cast<size_t>(v.record_starts[r]);
      Buf m = corrupt::flip(corrupt::view(v.bytes), rel, 0x01);
      CHECK_FALSE(crc_matches(corrupt::view(m), 2));
      corrupt::fix_crc(m);
      const Status st = read_records(entry_of(m));
      REQUIRE_FALSE(st.ok());
      CHECK(st.error().code == Errc::bad_length);
      CHECK(st.error().position == kBase + Length{static_cast<int64_t>(rel)});
    }
  }
  SECTION("the last record's length one more than what is left is a bad length at that record") {
    const auto rel = static_cast<size_t>(v.record_starts.back());
    // Adding 2 to the zigzag value adds 1 to the length; no carry out of the first varint byte.
    REQUIRE((v.bytes[rel] & 0x7f) <= 0x7d);
    Buf m = v.bytes;
    m[rel] = static_cast<uint8_t>(m[rel] + 2);
    corrupt::fix_crc(m);
    const Status st = read_records(entry_of(m));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::bad_length);
    CHECK(st.error().position == kBase + Length{static_cast<int64_t>(rel)});
    CHECK_THAT(st.error().message, Catch::Contains("bytes remain in the batch"));
  }
  SECTION("recordsCount + 1: premature end of the batch, at its end") {
    Buf m = v.bytes;
    corrupt::set_be32(m, v2::kRecordsCountOffset,
                      load_be32(m.data() + v2::kRecordsCountOffset) + 1);
    corrupt::fix_crc(m);
    const Status st = read_records(entry_of(m));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::truncated);
    CHECK(st.error().position == entry_end);
    CHECK_THAT(st.error().message, Catch::Contains("premature end"));
  }
  SECTION("recordsCount - 1: bytes remain, at the last record") {
    Buf m = v.bytes;
    corrupt::set_be32(m, v2::kRecordsCountOffset,
                      load_be32(m.data() + v2::kRecordsCountOffset) - 1);
    corrupt::fix_crc(m);
    const Status st = read_records(entry_of(m));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::trailing_bytes);
    CHECK(st.error().position == kBase + Length{v.record_starts.back()});
    CHECK_THAT(st.error().message, Catch::Contains("remain after the last record"));
  }
  SECTION("a negative recordsCount is refused by the walker at the field") {
    Buf m = v.bytes;
    corrupt::set_be32(m, v2::kRecordsCountOffset, 0xffffffffu);
    corrupt::fix_crc(m);
    RecordWalker w(kMaxDecompressed);
    const Status st = w.walk(entry_of(m), [](const EntryRecord&) { return true; });
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::bad_length);
    CHECK(st.error().position == kBase + Length{v2::kRecordsCountOffset});
  }
  SECTION("every byte of the records flipped, CRC fixed: an error or records, never a crash") {
    for (size_t i = v2::kRecordBatchOverhead; i < v.bytes.size(); ++i) {
      Buf m = corrupt::flip(corrupt::view(v.bytes), i, 0xFF);
      corrupt::fix_crc(m);
      const EntryRef e = entry_of(m);
      const Status st = read_records(e);
      if (!st.ok()) {
        INFO("byte " << i << ": " << st.error().message);
        CHECK(st.error().position >= kBase + Length{v2::kRecordBatchOverhead});
        CHECK(st.error().position <= entry_end);
      }
      (void)decode_everything(e);
    }
  }
}

TEST_CASE("fix_crc isolates codec faults in compressed batches", "[sweep]") {
  for (const char* dir : {"v2-gzip", "v2-snappy", "v2-lz4", "v2-zstd"}) {
    INFO(dir);
    const V2Entry v = first_v2_entry(dir);
    REQUIRE(read_records(entry_of(v.bytes)).ok());
    const size_t payload = v2::kRecordBatchOverhead;
    const Position payload_at = kBase + Length{static_cast<int64_t>(payload)};
    const Position entry_end = kBase + Length{static_cast<int64_t>(v.bytes.size())};

    // Every payload byte flipped, CRC fixed: the codec or record layer says
    // what is wrong, or the stream still decodes; nothing crashes.
    int errors = 0;
    for (size_t i = payload; i < v.bytes.size(); ++i) {
      Buf m = corrupt::flip(corrupt::view(v.bytes), i, 0xFF);
      corrupt::fix_crc(m);
      const EntryRef e = entry_of(m);
      const Status st = read_records(e);
      (void)decode_everything(e);
      if (st.ok()) continue;
      ++errors;
      if (st.error().code == Errc::decompress) {
        CHECK(st.error().position >= payload_at);
        CHECK(st.error().position <= entry_end);
      }
    }
    CHECK(errors > 0);

    // The payload cut to half its length (batchLength and CRC fixed): a
    // compressed stream that ends early is a codec error, inside the payload.
    const size_t keep = (v.bytes.size() - payload) / 2;
    Buf m = corrupt::cut(corrupt::view(v.bytes), payload + keep);
    corrupt::set_be32(m, kOffsetFieldBytes, static_cast<uint32_t>(m.size() - kLogOverhead));
    corrupt::fix_crc(m);
    const Status st = read_records(entry_of(m));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::decompress);
    CHECK(st.error().position >= payload_at);
    CHECK(st.error().position <= kBase + Length{static_cast<int64_t>(m.size())});
  }
}

TEST_CASE("fix_crc isolates codec faults in legacy wrappers", "[sweep]") {
  for (const char* dir : {"v1-gzip", "v1-snappy", "v1-lz4", "v0-gzip", "v0-snappy", "v0-lz4"}) {
    INFO(dir);
    const Buf one = first_entries(dir, 1);
    auto m0 = legacy::decode(entry_of(one));
    REQUIRE(m0.ok());
    REQUIRE(m0->codec_id() != 0);
    REQUIRE(crc_matches(corrupt::view(one), m0->magic));
    // The value is the entry's tail; its int32 length sits just before it.
    const size_t value_at = static_cast<size_t>(m0->value.bytes.data() - one.data());
    REQUIRE(value_at + m0->value.bytes.size() == one.size());
    const size_t keep = m0->value.bytes.size() / 2;
    Buf m = corrupt::cut(corrupt::view(one), value_at + keep);
    corrupt::set_be32(m, value_at - 4, static_cast<uint32_t>(keep));
    corrupt::set_be32(m, kOffsetFieldBytes, static_cast<uint32_t>(m.size() - kLogOverhead));
    corrupt::fix_crc(m);
    REQUIRE(crc_matches(corrupt::view(m), m0->magic));
    auto cut_msg = legacy::decode(entry_of(m));
    REQUIRE(cut_msg.ok());
    std::vector<uint8_t> scratch;
    std::vector<legacy::InnerMessage> inner;
    const Status st = legacy::inner_messages(*cut_msg, scratch, kMaxDecompressed, inner);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == Errc::decompress);
    CHECK(st.error().position >= kBase);
  }
}

TEST_CASE("corrupt helpers: flip, set, cut and fix_crc round trip", "[sweep]") {
  for (const char* dir : {"v2-none", "v1-none", "v0-none"}) {
    const Buf one = first_entries(dir, 1);
    const auto magic = static_cast<int8_t>(one[kMagicOffset]);
    Buf m = corrupt::flip(corrupt::view(one), one.size() - 1, 0x5A);
    CHECK(m.size() == one.size());
    CHECK(m.back() == (one.back() ^ 0x5A));
    CHECK_FALSE(crc_matches(corrupt::view(m), magic));
    corrupt::fix_crc(m);
    CHECK(crc_matches(corrupt::view(m), magic));
    m.back() ^= 0x5A;  // restoring the byte makes the fixed CRC wrong again
    CHECK_FALSE(crc_matches(corrupt::view(m), magic));
    corrupt::fix_crc(m);
    CHECK(m == one);
    CHECK(corrupt::cut(corrupt::view(one), 5).size() == 5);
  }
}

// v2::for_each_record is the fast path of kseg-verify; it must accept exactly
// what RecordReader and finish() accept, under every flip of every records byte.
TEST_CASE("the fast record walk accepts exactly what RecordReader accepts", "[sweep]") {
  auto slow_ok = [](Bytes records, int32_t count) {
    v2::RecordReader rr(records, Position{0}, count);
    v2::Record rec;
    while (rr.next(rec)) {}
    return rr.finish().ok();
  };
  auto fast_ok = [](Bytes records, int32_t count) {
    return v2::for_each_record(records, count, [](const v2::WalkedRecord&) { return true; });
  };
  int64_t accepted = 0, rejected = 0;
  for (const char* input : {"v2-none", "transactions"}) {
    const Buf file = first_entries(input, 40);
    EntryScanner scan(corrupt::view(file), Position{0});
    while (auto e = scan.next()) {
      auto h = v2::decode_header(*e);
      REQUIRE(h.ok());
      if (h->codec_id() != 0) continue;
      const Bytes records = e->bytes.subspan(v2::kRecordBatchOverhead);
      REQUIRE(fast_ok(records, h->records_count));
      for (int32_t delta : {-1, 1}) CHECK(fast_ok(records, h->records_count + delta) == slow_ok(records, h->records_count + delta));
      for (size_t at = 0; at < records.size(); ++at)
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x40}, uint8_t{0x80}, uint8_t{0xFF}}) {
          const Buf m = corrupt::flip(records, at, mask);
          const bool slow = slow_ok(corrupt::view(m), h->records_count);
          if (fast_ok(corrupt::view(m), h->records_count) != slow) FAIL(input << " byte " << at << " mask " << int(mask));
          (slow ? accepted : rejected)++;
        }
    }
  }
  CHECK(accepted > 0);
  CHECK(rejected > 0);
}
