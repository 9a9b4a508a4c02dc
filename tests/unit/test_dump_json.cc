// SPDX-License-Identifier: Apache-2.0
// kseg-dump --format json/jsonl on Kafka-written cases, validated against
// the published schema (formats/kseg-dump.schema.json).
#include <algorithm>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "lib/time_text.h"
#include "tests/unit/json_schema.h"
#include "tests/unit/support/run_tool.h"

using kseg::test::read_text;
using kseg::test::run_tool;
using kseg::test::schema_violation;

namespace {

const std::string kBin = std::string(KSEG_BINARY_DIR) + "/kseg-dump";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

nlohmann::json schema() { return nlohmann::json::parse(read_text(std::string(KSEG_SOURCE_DIR) + "/formats/kseg-dump.schema.json")); }

}  // namespace

TEST_CASE("json output validates against the schema on Kafka-written cases", "[json]") {
  const auto s = schema();
  for (const char* c : {"v2-zstd", "v1-gzip", "v0-lz4", "mixed-magic", "transactions", "compacted", "idempotent",
                        "cluster-metadata", "torn-tail", "crc-mismatch", "zero-tail", "active-segment",
                        "binary-values"}) {  // the parser throws on strings that are not valid UTF-8
    INFO("case " << c);
    auto run = run_tool(kBin, {"--format", "json", "--print-data-log", "."}, kCorpus + c);
    CHECK(run.exit_code < 2);
    const auto doc = nlohmann::json::parse(run.out);
    CHECK(schema_violation(s, s, doc) == "");
    CHECK(doc["objects"].size() > 0);

    auto lines = run_tool(kBin, {"--format", "jsonl", "--deep-iteration", "."}, kCorpus + c);
    std::istringstream in(lines.out);
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n)
      CHECK(schema_violation(s, s["$defs"]["object"], nlohmann::json::parse(line)) == "");
    CHECK(n > 0);
  }
}

TEST_CASE("v2 records carry their batch's producer fields", "[json]") {
  auto lines = run_tool(kBin, {"--format", "jsonl", "--deep-iteration", "ledger-0/00000000000000000000.log"},
                        kCorpus + "transactions");
  REQUIRE(lines.exit_code == 0);
  std::istringstream in(lines.out);
  nlohmann::json batch;
  size_t records = 0, transactional = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["type"] == "batch") batch = j;
    if (j["type"] != "record") continue;
    ++records;
    CHECK(j["producer_id"] == batch["producer_id"]);
    CHECK(j["producer_epoch"] == batch["producer_epoch"]);
    CHECK(j["is_transactional"] == batch["is_transactional"]);
    if (j["is_transactional"] == true) ++transactional;
  }
  CHECK(records > 0);
  CHECK(transactional > 0);  // the corpus case is Kafka's transactional producer's
}

// Legacy batches carry base_offset too: the message's own offset, or a
// wrapper's first inner message's, which is the first record the deep walk
// (checked against Kafka's own dump elsewhere) prints after it.
TEST_CASE("legacy batches carry the offset of their first record", "[json]") {
  for (const char* c : {"v1-gzip", "v0-lz4", "v1-snappy", "v0-none", "mixed-magic", "legacy-broker"}) {
    INFO("case " << c);
    auto lines = run_tool(kBin, {"--format", "jsonl", "--deep-iteration", "."}, kCorpus + c);
    REQUIRE(lines.exit_code == 0);
    std::istringstream in(lines.out);
    nlohmann::json batch;
    bool first = false;
    size_t legacy = 0, wrappers = 0;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j["type"] == "batch") {
        batch = j;
        first = true;
        REQUIRE(j["base_offset"].is_number_integer());
        CHECK(j["base_offset"].get<int64_t>() <= j["last_offset"].get<int64_t>());
        if (j["magic"].get<int>() < 2) ++legacy;
        if (j["magic"].get<int>() < 2 && j["codec"] != "none") ++wrappers;
      } else if (j["type"] == "record" && first) {
        CHECK(j["offset"] == batch["base_offset"]);
        first = false;
      }
    }
    CHECK(legacy > 0);
    if (std::string(c) != "mixed-magic" && std::string(c) != "v0-none") CHECK(wrappers > 0);
  }
}

TEST_CASE("json output reports damage as problem objects with positions", "[json]") {
  auto run = run_tool(kBin, {"--format", "jsonl", "."}, kCorpus + "crc-mismatch");
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("\"type\":\"problem\"") != std::string::npos);
  CHECK(run.out.find("\"code\":\"bad_crc\"") != std::string::npos);
}

TEST_CASE("the schema validator rejects what the schema forbids", "[json]") {
  const auto s = schema();
  const auto& obj = s["$defs"]["object"];
  CHECK(schema_violation(s, obj, {{"type", "batch"}}) != "");
  CHECK(schema_violation(s, obj, {{"type", "file"}, {"file", "x"}, {"kind", "log"}, {"extra", 1}}) != "");
  CHECK(schema_violation(s, obj, {{"type", "file"}, {"file", "x"}, {"kind", "log"}}) == "");
}

// --time-format iso writes the same instants as strings: each parses back to
// the milliseconds of the default output, object for object, and the
// output still validates.
TEST_CASE("json --time-format iso writes each timestamp as its ISO 8601 form", "[json]") {
  const auto s = schema();
  for (const char* c : {"v2-zstd", "v1-gzip", "log-append-time", "idempotent"}) {
    INFO("case " << c);
    const auto ms = run_tool(kBin, {"--format", "jsonl", "--deep-iteration", "."}, kCorpus + c);
    const auto iso = run_tool(kBin, {"--format", "jsonl", "--deep-iteration", "--time-format", "iso", "."}, kCorpus + c);
    REQUIRE(ms.exit_code == 0);
    REQUIRE(iso.exit_code == 0);
    std::istringstream a(ms.out), b(iso.out);
    size_t strings = 0;
    for (std::string la, lb; std::getline(a, la) && std::getline(b, lb);) {
      const auto ja = nlohmann::json::parse(la), jb = nlohmann::json::parse(lb);
      CHECK(schema_violation(s, s["$defs"]["object"], jb) == "");
      REQUIRE(ja.size() == jb.size());
      for (const auto& [k, v] : ja.items()) {
        if (jb[k].is_string() && v.is_number_integer()) {
          ++strings;
          CHECK(kseg::parse_time_ms(jb[k].get<std::string>()) == v.get<int64_t>());
        } else {
          CHECK(jb[k] == v);
        }
      }
    }
    CHECK(strings > 0);
  }
  // Text output is Kafka's byte for byte: --time-format iso is refused there, not ignored (issue 47, item 5).
  const auto text = run_tool(kBin, {"--deep-iteration", "--time-format", "iso", "."}, kCorpus + "v2-zstd");
  CHECK(text.exit_code == 2);
  CHECK(text.err.find("--time-format iso applies to --format json or jsonl") != std::string::npos);
  CHECK(text.out.empty());
}

// Issue 51, item 4: tagged fields Kafka 4.4.0's schemas do not name (the
// unknown-tags case: Kafka's TaggedFields wrote them into every tagged-fields
// section of every flexible value, each array of structs two elements long)
// are not in `value`, which is what DumpLogSegments prints (the goldens), but
// in unknown_tagged_fields, each under the path of its struct.
TEST_CASE("json keeps the tagged fields Kafka's decoders drop", "[json]") {
  const auto s = schema();
  const auto info = nlohmann::json::parse(read_text(kCorpus + "unknown-tags/case.json"))["unknown_tags"];
  REQUIRE(info["tags"] == "[77, 300]");  // RecordTypes.UNKNOWN_TAGS, with data {7, 7, 7} and {}
  REQUIRE(info["data"] == "[[7, 7, 7], []]");
  for (const auto& [dir, decoder] : {std::pair{"__consumer_offsets-0", "--offsets-decoder"},
                                     std::pair{"__transaction_state-0", "--transaction-log-decoder"},
                                     std::pair{"__share_group_state-0", "--share-group-state-decoder"},
                                     std::pair{"__cluster_metadata-0", "--cluster-metadata-decoder"},
                                     std::pair{"__remote_log_metadata-0", "--remote-log-metadata-decoder"}}) {
    INFO(dir);
    auto run = run_tool(kBin, {"--format", "json", decoder, "--print-data-log", std::string(dir) + "/00000000000000000000.log"},
                        kCorpus + "unknown-tags");
    REQUIRE(run.exit_code == 0);
    const auto doc = nlohmann::json::parse(run.out);
    CHECK(schema_violation(s, s, doc) == "");
    size_t records = 0, nested = 0, refused = 0;
    std::map<int64_t, std::vector<std::string>> paths;  // by offset, in the order read
    for (const auto& o : doc["objects"]) {
      if (o["type"] != "record") continue;
      ++records;
      // A tag another version of the record defines: Kafka's reader refuses it, and so does kseg's.
      if (o["value"].get<std::string>().starts_with("Error at")) {
        CHECK(o["value"].get<std::string>().find("Failed to deserialize record with type") != std::string::npos);
        CHECK(!o.contains("unknown_tagged_fields"));
        ++refused;
        continue;
      }
      REQUIRE(o.contains("unknown_tagged_fields"));
      std::map<std::string, std::vector<std::pair<int64_t, std::string>>> by_path;
      for (const auto& t : o["unknown_tagged_fields"]) {
        by_path[t["path"]].emplace_back(t["tag"], t["bytes"]);
        if (t["tag"] == 77) paths[o["offset"]].push_back(t["path"]);
      }
      for (const auto& [path, tags] : by_path) {
        INFO("offset " << o["offset"] << " path '" << path << "'");
        CHECK(tags == std::vector<std::pair<int64_t, std::string>>{{77, "BwcH"}, {300, ""}});  // base64 of 7 7 7
        nested += !path.empty();
        // Arrays of structs hold two elements: each named.
        for (size_t at = path.find("[0]"); at != std::string::npos; at = path.find("[0]", at + 1))
          CHECK(by_path.contains(path.substr(0, at) + "[1]" + path.substr(at + 3)));
      }
      CHECK(by_path.contains(""));
      CHECK(o["value"].get<std::string>().find("77") == std::string::npos);
    }
    CHECK(records > 0);
    CHECK(nested > 0);
    CHECK(refused == (std::string(dir) == "__cluster_metadata-0" ? 22u : 0u));  // case.json's step says 22
    using P = std::vector<std::string>;
    if (std::string(dir) == "__remote_log_metadata-0") {
      CHECK(paths[0] == P{"remoteLogSegmentId.topicIdPartition", "remoteLogSegmentId", "segmentLeaderEpochs[0]",
                          "segmentLeaderEpochs[1]", ""});
      CHECK(paths[2] == P{"topicIdPartition", ""});
    }
    if (std::string(dir) == "__consumer_offsets-0") {  // ConsumerGroupPartitionMetadataValue, ConsumerGroupMemberMetadataValue
      CHECK(paths[3] == P{"topics[0].partitionMetadata[0]", "topics[0].partitionMetadata[1]", "topics[0]",
                          "topics[1].partitionMetadata[0]", "topics[1].partitionMetadata[1]", "topics[1]", ""});
      CHECK(paths[4] == P{"classicMemberMetadata.supportedProtocols[0]", "classicMemberMetadata.supportedProtocols[1]",
                          "classicMemberMetadata", ""});
    }
  }
  // The text is Kafka's; stderr says once per file what it leaves out.
  auto text = run_tool(kBin, {"--files", "__consumer_offsets-0/00000000000000000000.log", "--offsets-decoder"},
                       kCorpus + "unknown-tags");  // the golden's arguments
  CHECK(text.exit_code == 0);
  CHECK(text.out == read_text(kCorpus + "unknown-tags/dump/__consumer_offsets-0.00000000000000000000.log.decoder.out"));
  CHECK(text.err.find("21 records carry tagged fields Kafka 4.4.0's schema does not name, the first at offset 0: tag 77 in "
                      "the value (3 bytes)") != std::string::npos);
  CHECK(std::count(text.err.begin(), text.err.end(), '\n') == 1);
}
