// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <random>

#include "formats/kafka_uuid.h"
#include "formats/partition_metadata.h"

using namespace kseg;
namespace pm = kseg::partition_metadata;

TEST_CASE("uuid: base64url round trip", "[formats]") {
  std::mt19937 rng(9);
  for (int i = 0; i < 100; ++i) {
    KafkaUuid u;
    for (auto& b : u.bytes) b = static_cast<uint8_t>(rng());
    const std::string s = format_kafka_uuid(u);
    CHECK(s.size() == 22);
    auto back = parse_kafka_uuid(s);
    REQUIRE(back.ok());
    CHECK(back.value() == u);
    CHECK(parse_kafka_uuid(s + "==").value() == u);  // java.util.Base64 accepts padding
  }
  CHECK(format_kafka_uuid(KafkaUuid{}) == "AAAAAAAAAAAAAAAAAAAAAA");
  CHECK(parse_kafka_uuid("AAAAAAAAAAAAAAAAAAAAAAAAA").error().message ==
        "Input string with prefix `AAAAAAAAAAAAAAAAAAAAAAAA` is too long to be decoded as a base64 UUID");
  CHECK(parse_kafka_uuid("AAAA").error().message ==
        "Input string `AAAA` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID");
  CHECK(!parse_kafka_uuid("AAAAAAAAAAAAAAAAAAAA+A").ok());
  CHECK(!parse_kafka_uuid("AAAAAAAAAAAAAAAAAAAAA").ok());
}

TEST_CASE("partition.metadata: round trip", "[formats]") {
  KafkaUuid id;
  id.bytes[3] = 0x42;
  const std::string text = pm::serialize(0, id);
  CHECK(text.back() != '\n');
  auto m = pm::parse(text, "f");
  REQUIRE(m.ok());
  CHECK(m->version == 0);
  CHECK(m->topic_id == id);
  CHECK(pm::validate(m.value()).ok());
  CHECK(pm::serialize(m->version, m->topic_id) == text);
}

TEST_CASE("partition.metadata: Kafka's parse rules and messages", "[formats]") {
  const std::string id = "5ayvDjdz92HRCk7FCvGyaQ";
  auto m = pm::parse("anything:\t\t7\nkey:  " + id + "\nmore\n", "f");  // keys unchecked, extra lines ignored
  REQUIRE(m.ok());
  CHECK(m->version == 7);
  CHECK(!pm::validate(m.value()).ok());
  auto r = pm::parse("version:0\ntopic_id: " + id, "/p/partition.metadata", Position{10});
  CHECK(r.error().message == "Malformed line in partition metadata file [/p/partition.metadata]: version:0");
  CHECK(r.error().position == Position{10});
  r = pm::parse("version: x\ntopic_id: " + id, "F");
  CHECK(r.error().message == "Malformed line in partition metadata file [F]: version: x");
  r = pm::parse("version: -1\ntopic_id: " + id, "F");
  CHECK(r.error().message == "Unrecognized version of partition metadata file (F): -1");
  r = pm::parse("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", "F");
  CHECK(r.error().message == "Invalid topic ID in partition metadata file (F)");
  CHECK(r.error().position == Position{11});
  r = pm::parse("version: 0\ntopic_id:" + id, "F");
  CHECK(r.error().message == "Malformed line in partition metadata file [F]: topic_id:" + id);
  CHECK(pm::parse("version: 0", "F").error().code == Errc::truncated);
  CHECK(pm::parse("", "F").error().code == Errc::truncated);
}
