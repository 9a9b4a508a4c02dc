// SPDX-License-Identifier: Apache-2.0
// The encoders (lib/byte_writer.h, v2::append_*, legacy::append_*, control
// encode_*) against the decoders and against what Kafka wrote: every batch of
// the corpus, rebuilt from its decoded fields, must come out as Kafka's bytes
// when uncompressed, and decode to the same records under every codec.
// tests/kafka/encoder-oracle.sh has Kafka itself load the re-encoded segments.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

#include "tests/unit/support/dirs.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "lib/byte_writer.h"
#include "tests/unit/corrupt.h"
#include "tests/unit/reencode.h"

using namespace kseg;
namespace fs = std::filesystem;

namespace {

using test::read_bytes;

std::vector<fs::path> corpus_segments() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka"))
    if (e.is_regular_file() && (e.path().extension() == ".log" || e.path().extension() == ".checkpoint"))
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
std::vector<T> edge_values(std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0, 1, static_cast<T>(-1), L::min(), L::max(), static_cast<T>(L::min() + 1),
                      static_cast<T>(L::max() - 1), 63, 64, -64, -65, 127, 128, 8191, 8192};
  for (int i = 0; i < 200; ++i) v.push_back(static_cast<T>(rng() >> (rng() % 64)));
  return v;
}

}  // namespace

TEST_CASE("ByteWriter writes what ByteReader reads, varints at their shortest", "[encode]") {
  std::mt19937_64 rng(7);
  const auto i32s = edge_values<int32_t>(rng);
  const auto i64s = edge_values<int64_t>(rng);
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  for (int32_t v : i32s) {
    const size_t before = buf.size();
    w.i32(v);
    w.varint(v);
    CHECK(buf.size() - before == 4 + static_cast<size_t>(ByteWriter::varint_size(v)));
  }
  for (int64_t v : i64s) {
    const size_t before = buf.size();
    w.i64(v);
    w.varlong(v);
    CHECK(buf.size() - before == 8 + static_cast<size_t>(ByteWriter::varlong_size(v)));
  }
  for (int32_t v : i32s) { w.i16(static_cast<int16_t>(v)); w.i8(static_cast<int8_t>(v)); w.uvarint(static_cast<uint32_t>(v)); }
  ByteReader r(buf, Position{0});
  for (int32_t v : i32s) { CHECK(r.i32() == v); CHECK(r.varint() == v); }
  for (int64_t v : i64s) { CHECK(r.i64() == v); CHECK(r.varlong() == v); }
  for (int32_t v : i32s) {
    CHECK(r.i16() == static_cast<int16_t>(v));
    CHECK(r.i8() == static_cast<int8_t>(v));
    CHECK(r.uvarint() == static_cast<uint32_t>(v));
  }
  CHECK(r.ok());
  CHECK(r.at_end());
  // Shortest form: the ByteReader above would accept longer ones too, so pin the sizes.
  CHECK(ByteWriter::varint_size(0) == 1);
  CHECK(ByteWriter::varint_size(-64) == 1);
  CHECK(ByteWriter::varint_size(64) == 2);
  CHECK(ByteWriter::varint_size(std::numeric_limits<int32_t>::min()) == 5);
  CHECK(ByteWriter::varlong_size(std::numeric_limits<int64_t>::max()) == 10);
}

TEST_CASE("every corpus batch re-encodes: uncompressed byte-identical, compressed to the same records", "[encode]") {
  const auto segments = corpus_segments();
  REQUIRE(segments.size() > 40);
  test::ReencodeStats total;
  for (const auto& path : segments) {
    INFO(path.string());
    const auto log = read_bytes(path);
    std::vector<uint8_t> out;
    test::ReencodeStats st;
    REQUIRE(test::reencode_log(log, std::nullopt, out, st).ok());
    CHECK(st.v2_plain_same == st.v2_plain);
    CHECK(st.legacy_plain_same == st.legacy_plain);
    CHECK(st.region_same == st.v2_packed + st.legacy_packed);
    CHECK(test::record_lines(out) == test::record_lines(log));
    if (st.v2_packed + st.legacy_packed == 0) CHECK(out == log);  // nothing compressed: the whole file
    total.v2_plain += st.v2_plain; total.v2_plain_same += st.v2_plain_same; total.v2_packed += st.v2_packed;
    total.legacy_plain += st.legacy_plain; total.legacy_plain_same += st.legacy_plain_same;
    total.legacy_packed += st.legacy_packed; total.region_same += st.region_same; total.copied += st.copied;
  }
  std::printf("re-encoded %zu corpus segments: %s\n", segments.size(), total.summary().c_str());
  CHECK(total.v2_plain > 100);
  CHECK(total.v2_packed > 50);
  CHECK(total.legacy_plain > 20);
  CHECK(total.legacy_packed > 10);
  // Only the damaged cases' bad entries are copied rather than rebuilt.
  CHECK(total.copied < 20);
}

TEST_CASE("every corpus batch re-encoded with each codec decodes to the same records", "[encode]") {
  for (const Codec codec : {Codec::none, Codec::gzip, Codec::snappy, Codec::lz4, Codec::zstd}) {
    for (const auto& path : corpus_segments()) {
      INFO(path.string() << " as " << codec_name(static_cast<int>(codec)));
      const auto log = read_bytes(path);
      std::vector<uint8_t> out;
      test::ReencodeStats st;
      REQUIRE(test::reencode_log(log, codec, out, st).ok());
      CHECK(test::record_lines(out) == test::record_lines(log));
    }
  }
}

TEST_CASE("a control batch built from parts decodes to what it was given", "[encode]") {
  const auto key = control::encode_key({0, static_cast<int16_t>(control::Type::commit)});
  const auto value = control::encode_end_txn_marker({0, 5});
  std::vector<uint8_t> records;
  ByteWriter w(records);
  v2::append_record({0, 0, 0, {key, false}, {value, false}, {}}, w);
  v2::BatchHeader h;
  h.base_offset = 1234;
  h.partition_leader_epoch = 3;
  h.attributes = 0x10 | 0x20 | 0x40;  // transactional, control, delete horizon
  h.base_timestamp = 1700000000000;  // the delete horizon
  h.max_timestamp = 1690000000000;
  h.producer_id = 77;
  h.producer_epoch = 2;
  h.base_sequence = -1;
  h.records_count = 1;
  std::vector<uint8_t> batch;
  REQUIRE(v2::append_batch(h, Codec::none, records, batch).ok());
  EntryScanner scanner(batch, Position{0});
  const auto e = scanner.next();
  REQUIRE(e);
  CHECK(scanner.next() == std::nullopt);
  CHECK(scanner.end() == SegmentEnd::clean);
  auto d = v2::decode_header(*e);
  REQUIRE(d.ok());
  CHECK(d->crc == v2::compute_crc(e->bytes));
  CHECK(d->batch_length == static_cast<int32_t>(batch.size()) - kLogOverhead);
  CHECK((d->is_transactional() && d->is_control() && d->has_delete_horizon()));
  CHECK(d->base_timestamp == h.base_timestamp);
  CHECK(d->producer_id == 77);
  std::vector<uint8_t> scratch;
  auto region = v2::records_bytes(*e, *d, scratch, 1 << 20);
  REQUIRE(region.ok());
  v2::RecordReader rr(*region, Position{0}, d->records_count);
  v2::Record rec;
  REQUIRE(rr.next(rec));
  CHECK(rr.finish().ok());
  CHECK(control::describe(rec.key, rec.value).value() == " endTxnMarker: COMMIT coordinatorEpoch: 5");

  // A field changed in place, then the CRC patched, is a valid batch again.
  batch[static_cast<size_t>(v2::kRecordsCountOffset) - 5] ^= 1;  // producerEpoch's low bits
  CHECK(v2::compute_crc(batch) != v2::decode_header(*EntryScanner(batch, Position{0}).next())->crc);
  v2::patch_crc(batch);
  CHECK(v2::compute_crc(batch) == v2::decode_header(*EntryScanner(batch, Position{0}).next())->crc);
}

TEST_CASE("legacy messages and wrappers built from parts decode to what they were given", "[encode]") {
  for (const int8_t magic : {int8_t{0}, int8_t{1}}) {
    std::vector<uint8_t> set;
    const std::vector<uint8_t> k = {'k'}, v = {'v', 'a', 'l'};
    for (int i = 0; i < 3; ++i) {
      legacy::Message m;
      m.offset = magic == 0 ? 40 + i : i;  // v1 inner offsets are relative
      m.magic = magic;
      m.timestamp = magic == 0 ? -1 : 1000 + i;
      m.key = {k, i == 1};
      m.value = {v, false};
      legacy::append_message(m, set);
    }
    for (const Codec codec : {Codec::gzip, Codec::snappy, Codec::lz4}) {
      INFO("magic " << int{magic} << " " << codec_name(static_cast<int>(codec)));
      legacy::Message wrapper;
      wrapper.offset = 42;
      wrapper.magic = magic;
      wrapper.timestamp = magic == 0 ? -1 : 1002;
      std::vector<uint8_t> out;
      REQUIRE(legacy::append_wrapper(wrapper, codec, set, out).ok());
      const auto e = EntryScanner(out, Position{0}).next();
      REQUIRE(e);
      auto m = legacy::decode(*e);
      REQUIRE(m.ok());
      CHECK(m->crc == legacy::compute_crc(e->bytes));
      CHECK(m->codec_id() == static_cast<int>(codec));
      std::vector<uint8_t> scratch;
      std::vector<legacy::InnerMessage> inner;
      REQUIRE(legacy::inner_messages(*m, scratch, 1 << 20, inner).ok());
      REQUIRE(inner.size() == 3);
      CHECK(scratch == set);
      for (int i = 0; i < 3; ++i) {
        CHECK(inner[static_cast<size_t>(i)].absolute_offset == 40 + i);
        CHECK(inner[static_cast<size_t>(i)].crc_valid);
        CHECK(inner[static_cast<size_t>(i)].message.key.null == (i == 1));
      }
    }
  }
}
