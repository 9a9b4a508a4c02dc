// SPDX-License-Identifier: Apache-2.0
// kseg-dump writes a .log's JSON objects without a document tree
// (tools/ops/common/json_writer.h); they must be the bytes nlohmann prints
// for the same object, which the schema tests parse.
#include <random>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tools/ops/common/json_writer.h"

using kseg::append_json_string;
using kseg::test::run_tool;
using ojson = nlohmann::ordered_json;

namespace {

std::string nlohmann_string(const std::string& s) {
  return ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string ours(const std::string& s) {
  fmt::memory_buffer b;
  append_json_string(b, s);
  return fmt::to_string(b);
}

}  // namespace

TEST_CASE("strings are escaped and invalid UTF-8 replaced as nlohmann does", "[json]") {
  for (const std::string& s : {std::string(""), std::string("plain"), std::string("\"\\/\b\f\n\r\t\x01\x1f\x7f"),
                              std::string("\0x", 2), std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
                              std::string("\xC3"), std::string("\xE0\x80"), std::string("\xED\xA0\x80"),
                              std::string("\xF4\x90\x80\x80"), std::string("\xC0\xAF"), std::string("\xFF\xFE"),
                              std::string("\xE2\x82x"), std::string("\xF0\x9F\x98")}) {
    INFO(nlohmann_string(s));
    CHECK(ours(s) == nlohmann_string(s));
  }
  // Random bytes, biased to the interesting ones.
  std::mt19937 rng(7);
  const uint8_t pick[] = {0x00, 0x09, 0x1f, '"', '\\', 'a', 0x7f, 0x80, 0x8f, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf,
                          0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff};
  for (int i = 0; i < 20100; ++i) {
    // The last hundred longer than the pieces the escaping is written in (16 KiB).
    std::string s(i < 20000 ? rng() % 12 : 16000 + rng() % 40000, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 3 == 0 ? rng() % 256 : pick[rng() % sizeof(pick)]);
    const std::string want = nlohmann_string(s), got = ours(s);
    if (got != want) FAIL_CHECK(nlohmann::json(std::vector<uint8_t>(s.begin(), s.end())).dump() << ": " << got << " vs " << want);
  }
}

TEST_CASE("every object kseg-dump writes reads back to the same bytes", "[json]") {
  const std::string bin = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
  const std::string corpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
  size_t objects = 0;
  for (const char* c : {"v2-zstd", "v1-gzip", "v0-lz4", "transactions", "consumer-offsets", "cluster-metadata",
                        "binary-values", "crc-mismatch", "torn-tail", "record-types", "live-broker"}) {
    for (const char* decoder : {"--print-data-log", "--offsets-decoder"}) {
      auto run = run_tool(bin, {"--format", "jsonl", decoder, "."}, corpus + c);
      std::istringstream in(run.out);
      for (std::string line; std::getline(in, line); ++objects) {
        INFO(c << ": " << line);
        CHECK(ojson::parse(line).dump(-1, ' ', false, ojson::error_handler_t::replace) == line);
      }
    }
  }
  CHECK(objects > 1000);
}
