// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "formats/checkpoint_file.h"

using namespace kseg;
namespace cp = kseg::checkpoint;

TEST_CASE("checkpoint: offset checkpoint round trip", "[formats]") {
  std::vector<cp::TopicPartitionOffset> entries = {
      {"orders", 0, 1042}, {"my-topic.x_y", INT32_MAX, INT64_MAX}, {"t", 0, INT64_MIN}, {"t", -1, 0}};
  const std::string text = cp::serialize_offset_checkpoint(entries);
  auto parsed = cp::parse_offset_checkpoint(text, "f");
  REQUIRE(parsed.ok());
  CHECK(parsed.value() == entries);
  CHECK(cp::serialize_offset_checkpoint({}) == "0\n0\n");
  CHECK(cp::parse_offset_checkpoint("0\n0\n", "f").value().empty());
}

TEST_CASE("checkpoint: leader epoch round trip and validation", "[formats]") {
  std::vector<cp::EpochEntry> entries = {{0, 0}, {3, 1042}, {INT32_MAX, INT64_MAX}};
  const std::string text = cp::serialize_leader_epoch_checkpoint(entries);
  auto parsed = cp::parse_leader_epoch_checkpoint(text, "f");
  REQUIRE(parsed.ok());
  CHECK(parsed.value() == entries);
  CHECK(cp::validate_epoch_entries(entries).ok());
  std::vector<cp::EpochEntry> bad = {{3, 10}, {2, 20}};
  CHECK(!cp::validate_epoch_entries(bad).ok());
}

TEST_CASE("checkpoint: Kafka's lenient reading", "[formats]") {
  CHECK(cp::parse_offset_checkpoint("", "f").value().empty());            // empty file
  CHECK(cp::parse_offset_checkpoint("0\n", "f").value().empty());         // version only
  CHECK(cp::parse_offset_checkpoint("0", "f").value().empty());
  auto r = cp::parse_offset_checkpoint("0\r\n1\r\nt\t3   9  \r\n", "f");  // CRLF, tabs, trailing blanks
  REQUIRE(r.ok());
  CHECK(r.value() == std::vector<cp::TopicPartitionOffset>{{"t", 3, 9}});
  CHECK(cp::parse_leader_epoch_checkpoint("0\n1\n+5 -7\n", "f").value() == std::vector<cp::EpochEntry>{{5, -7}});
}

TEST_CASE("checkpoint: parse errors carry Kafka's message and the line position", "[formats]") {
  const Position base{100};
  auto r = cp::parse_offset_checkpoint("1\n0\n", "/d/cp", base);
  CHECK(r.error().message == "Unrecognised version:1, expected version: 0 in checkpoint file at: /d/cp");
  CHECK(r.error().position == Position{100});

  r = cp::parse_offset_checkpoint("x\n", "/d/cp", base);
  CHECK(r.error().message == "Malformed line in checkpoint file [/d/cp]: x");

  r = cp::parse_offset_checkpoint("0\n 1\n", "/d/cp", base);  // leading blank: not an int
  CHECK(r.error().message == "Malformed line in checkpoint file [/d/cp]:  1");
  CHECK(r.error().position == Position{102});

  r = cp::parse_offset_checkpoint("0\n2\nt 0 5\n\nt 1 6\n", "/d/cp", base);  // empty line
  CHECK(r.error().message == "Malformed line in checkpoint file [/d/cp]: ");
  CHECK(r.error().position == Position{110});

  r = cp::parse_offset_checkpoint("0\n1\n t 0 5\n", "/d/cp", base);  // leading whitespace: 4 fields
  CHECK(r.error().message == "Malformed line in checkpoint file [/d/cp]:  t 0 5");

  r = cp::parse_offset_checkpoint("0\n1\nt 0 5 6\n", "/d/cp", base);
  CHECK(r.error().code == Errc::bad_value);

  r = cp::parse_offset_checkpoint("0\n2\nt 0 5\n", "/d/cp", base);
  CHECK(r.error().message == "Expected [2] entries in checkpoint file [/d/cp], but found only [1]");
  r = cp::parse_offset_checkpoint("0\n0\nt 0 5\n", "/d/cp", base);  // more lines than the count
  CHECK(r.error().message == "Expected [0] entries in checkpoint file [/d/cp], but found only [1]");

  r = cp::parse_offset_checkpoint("0\n1\nt x 5\n", "/d/cp", base);
  CHECK(r.error().message == "line 3: For input string: \"x\"");
  CHECK(r.error().position == Position{104});
  r = cp::parse_offset_checkpoint("0\n1\nt 1 9223372036854775808\n", "/d/cp", base);
  CHECK(r.error().message == "line 3: For input string: \"9223372036854775808\"");
  r = cp::parse_offset_checkpoint("0\n-1\n", "/d/cp", base);
  CHECK(r.error().code == Errc::bad_length);
  auto e = cp::parse_leader_epoch_checkpoint("0\n1\n2147483648 0\n", "/d/lec", base);
  CHECK(e.error().message == "line 3: For input string: \"2147483648\"");
}
