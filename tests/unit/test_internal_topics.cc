// SPDX-License-Identifier: Apache-2.0
// The internal-topic parsers against the Kafka-written corpus: every record
// of the __consumer_offsets, __transaction_state and __cluster_metadata
// segments must print exactly the key and payload that Kafka's
// DumpLogSegments printed for it (taken from the dump/*.decoder.out goldens).
// Plus the parsers' fixed answers for unknown types and bad versions.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/scratch.h"
#include "formats/batch_v2.h"
#include "formats/coordinator_records.h"
#include "formats/log_entry.h"
#include "formats/metadata_records.h"

using namespace kseg;
namespace fs = std::filesystem;

namespace {

struct Printed {
  std::string key;  // empty when Kafka printed none
  std::string payload;
};

// offset -> what the golden shows after "key: " and "payload: ".
std::map<int64_t, Printed> golden_records(const fs::path& out) {
  std::map<int64_t, Printed> m;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| offset: ")) continue;
    const size_t tail = line.find(" headerKeys: [] ");
    const size_t payload = line.find(" payload: ", tail);
    if (tail == std::string::npos || payload == std::string::npos) continue;  // control records
    Printed p;
    const size_t key = line.find(" key: ", tail);
    if (key != std::string::npos && key < payload) p.key = line.substr(key + 6, payload - key - 6);
    p.payload = line.substr(payload + 10);
    m[std::stoll(line.substr(10))] = p;
  }
  return m;
}

// Calls `f(offset, key, value)` for every record of the non-control batches.
template <class F>
void for_each_record(const std::vector<uint8_t>& file, F f) {
  EntryScanner scan(Bytes(file.data(), file.size()), Position{0});
  std::vector<uint8_t> scratch;
  while (auto e = scan.next()) {
    auto h = v2::decode_header(*e);
    REQUIRE(h.ok());
    if (h.value().is_control()) continue;
    auto records = v2::records_bytes(*e, h.value(), scratch, size_t{1} << 24);
    REQUIRE(records.ok());
    v2::RecordReader rr(records.value(), Position{0}, h.value().records_count);
    for (v2::Record r; rr.next(r);) f(h.value().base_offset + r.offset_delta, r.key, r.value);
  }
}

const fs::path kCorpus = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";

}  // namespace

TEST_CASE("coordinator records print as Kafka printed them (corpus)", "[topics]") {
  struct Case { const char* dir; const char* stem; coordinator::Topic topic; };
  const Case cases[] = {
      {"consumer-offsets", "__consumer_offsets-0", coordinator::Topic::group},
      {"transaction-state", "__transaction_state-0", coordinator::Topic::transaction},
  };
  for (const Case& c : cases) {
    const fs::path dir = kCorpus / c.dir;
    if (!fs::exists(dir)) continue;
    const auto want = golden_records(dir / "dump" / (std::string(c.stem) + ".00000000000000000000.log.decoder.out"));
    REQUIRE_FALSE(want.empty());
    size_t checked = 0;
    for_each_record(kseg::test::read_bytes(dir / c.stem / "00000000000000000000.log"),
                    [&](int64_t offset, const v2::Blob& key, const v2::Blob& value) {
                      INFO(c.dir << " offset " << offset);
                      REQUIRE(!key.null);
                      std::optional<Bytes> v;
                      if (!value.null) v = value.bytes;
                      auto text = coordinator::parse(c.topic, offset, key.bytes, v);
                      REQUIRE(text.ok());
                      CHECK(text.value().key == want.at(offset).key);
                      CHECK(text.value().value.value_or("") == want.at(offset).payload);
                      ++checked;
                    });
    CHECK(checked == want.size());
  }
}

TEST_CASE("metadata records print as Kafka printed them (corpus)", "[topics]") {
  const fs::path dir = kCorpus / "cluster-metadata";
  if (!fs::exists(dir)) return;
  const char* files[][2] = {{"00000000000000000000.log", "00000000000000000000.log"},
                            {"00000000000000000045-0000000002.checkpoint", "00000000000000000045-0000000002.checkpoint"}};
  for (const auto& f : files) {
    const auto want = golden_records(dir / "dump" / (std::string("__cluster_metadata-0.") + f[1] + ".decoder.out"));
    REQUIRE_FALSE(want.empty());
    size_t checked = 0;
    for_each_record(kseg::test::read_bytes(dir / "__cluster_metadata-0" / f[0]),
                    [&](int64_t offset, const v2::Blob&, const v2::Blob& value) {
                      INFO(f[0] << " offset " << offset);
                      const auto text = metadata::parse(value.bytes);
                      REQUIRE(text.outcome == metadata::Outcome::ok);
                      CHECK(text.text == want.at(offset).payload);
                      ++checked;
                    });
    CHECK(checked == want.size());
  }
}

// The expected strings below are the format strings found in the Kafka 4.4
// classes (CoordinatorRecordMessageParser, CoordinatorRecordSerde,
// AbstractApiMessageSerde), filled in for these inputs.
TEST_CASE("coordinator parser: unknown type, bad version, tombstone", "[topics]") {
  const uint8_t unknown_type[] = {0x00, 0x63};
  auto t = coordinator::parse(coordinator::Topic::group, 5, unknown_type, std::nullopt);
  REQUIRE(t.ok());
  CHECK(t.value().key == "Unknown record type 99 at offset 5, skipping.");
  CHECK_FALSE(t.value().value);

  const uint8_t txn_key[] = {0x00, 0x00, 0x00, 0x01, 'x'};
  t = coordinator::parse(coordinator::Topic::transaction, 7, txn_key, std::nullopt);
  REQUIRE(t.ok());
  CHECK(t.value().key == R"({"type":"0","data":{"transactionalId":"x"}})");
  CHECK(t.value().value == "<DELETE>");

  const uint8_t bad_version[] = {0x00, 0x09};
  t = coordinator::parse(coordinator::Topic::transaction, 7, txn_key, Bytes(bad_version));
  REQUIRE(t.ok());
  CHECK(t.value().key == "Error at offset 7, skipping. Found an unknown record version 9 for 0 type");
  CHECK_FALSE(t.value().value);

  const uint8_t short_key[] = {0x00};
  t = coordinator::parse(coordinator::Topic::group, 1, short_key, std::nullopt);
  REQUIRE(t.ok());
  CHECK(t.value().key == "Error at offset 1, skipping. Could not read version from key's buffer.");

  CHECK(coordinator::transaction_state_name(4) == "CompleteCommit");
  CHECK(coordinator::transaction_state_name(42) == "42");
}

TEST_CASE("metadata parser: framing errors", "[topics]") {
  const uint8_t frame0[] = {0x00};
  CHECK(metadata::parse(frame0).outcome == metadata::Outcome::kafka_error);
  const uint8_t unknown_type[] = {0x01, 0x63, 0x00};
  const auto u = metadata::parse(unknown_type);
  CHECK(u.text == "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id 99");
  const uint8_t garbage[] = {0x01, 0x14, 0x00, 0x00, 0xAA};  // NoOpRecord, then one byte too many
  CHECK(metadata::parse(garbage).text == "Found 1 byte(s) of garbage after 20");
  const uint8_t noop[] = {0x01, 0x14, 0x00, 0x00};
  CHECK(metadata::parse(noop).text == R"({"type":"NO_OP_RECORD","version":0,"data":{}})");
}
