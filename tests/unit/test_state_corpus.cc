// SPDX-License-Identifier: Apache-2.0
// Decodes every state file of the Kafka-written corpus under
// testdata/kafka/<case>/<topic>-<partition>/ and checks (a) it decodes,
// (b) re-encoding gives the same bytes where the format is canonical and
// (c) index decoding and sanity checks agree with kafka-dump-log's recorded
// output in testdata/kafka/<case>/dump/. Skips quietly if no corpus exists.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "tests/unit/support/dirs.h"
#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "formats/meta_properties.h"
#include "formats/offset_index.h"
#include "formats/partition_metadata.h"
#include "formats/producer_snapshot.h"
#include "formats/time_index.h"
#include "formats/txn_index.h"

using namespace kseg;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::string slurp_text(const fs::path& p) {
  auto b = slurp(p);
  return {b.begin(), b.end()};
}
Bytes as_bytes(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> out;
  const fs::path root = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";
  if (!fs::is_directory(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().parent_path().filename() != "dump") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// testdata/kafka/<case>/dump/<dir>.<file>.<mode>.out, if recorded.
fs::path dump_file(const fs::path& file, std::string_view mode, std::string_view ext) {
  const fs::path dir = file.parent_path();
  return dir.parent_path() / "dump" /
         fmt::format("{}.{}.{}.{}", dir.filename().string(), file.filename().string(), mode, ext);
}

std::string dumped_lines_without_header(const fs::path& out) {
  std::string text = slurp_text(out);
  const size_t nl = text.find('\n');
  return nl == std::string::npos ? "" : text.substr(nl + 1);
}

bool dump_succeeded(const fs::path& file, std::string_view mode) {
  const fs::path exit_file = dump_file(file, mode, "exit"), err = dump_file(file, mode, "err");
  return fs::exists(exit_file) && slurp_text(exit_file).rfind("0", 0) == 0 && slurp_text(err).empty();
}

// Kafka's CorruptIndexException line from `<mode>.err`, or "" if none.
std::string kafka_corrupt_index_message(const fs::path& file) {
  const std::string err = slurp_text(dump_file(file, "sanity", "err"));
  const std::string_view marker = "CorruptIndexException: ";
  const size_t at = err.find(marker);
  if (at == std::string::npos) return "";
  const size_t start = at + marker.size();
  return err.substr(start, err.find('\n', start) - start);
}

// Our message with a placeholder path must match Kafka's around its path.
bool same_message_modulo_path(const std::string& ours_with_placeholder, const std::string& kafka) {
  const size_t at = ours_with_placeholder.find('\x01');
  const std::string prefix = ours_with_placeholder.substr(0, at), suffix = ours_with_placeholder.substr(at + 1);
  return kafka.size() >= prefix.size() + suffix.size() && kafka.rfind(prefix, 0) == 0 && kafka.ends_with(suffix);
}

std::string optional_long(int64_t v) { return v >= 0 ? fmt::format("OptionalLong[{}]", v) : "OptionalLong.empty"; }

}  // namespace

TEST_CASE("corpus: every Kafka-written state file decodes and re-encodes", "[formats][corpus]") {
  int seen = 0;
  for (const fs::path& p : corpus_files()) {
    const std::string name = p.filename().string();
    auto parsed = file_names::parse_segment_file_name(name);
    const auto bytes = slurp(p);
    INFO(p.string());
    if (name.ends_with("offset-checkpoint")) {
      auto r = checkpoint::parse_offset_checkpoint(slurp_text(p), name);
      REQUIRE(r.ok());
      // A broker killed before its first checkpoint write leaves the file empty
      // (live-crash-before), which Kafka reads as no entries.
      if (bytes.empty()) CHECK(r->empty());
      else CHECK(checkpoint::serialize_offset_checkpoint(r.value()) == slurp_text(p));
      ++seen;
    } else if (name == "meta.properties") {
      auto r = meta_properties::parse(slurp_text(p));
      REQUIRE(r.ok());
      CHECK(r->node_id.has_value());
      ++seen;
    } else if (name == "leader-epoch-checkpoint") {
      auto r = checkpoint::parse_leader_epoch_checkpoint(slurp_text(p), name);
      REQUIRE(r.ok());
      CHECK(checkpoint::validate_epoch_entries(r.value()).ok());
      if (!bytes.empty())  // Kafka leaves an empty file for pre-v2 logs
        CHECK(checkpoint::serialize_leader_epoch_checkpoint(r.value()) == slurp_text(p));
      ++seen;
    } else if (name == "partition.metadata") {
      auto r = partition_metadata::parse(slurp_text(p), name);
      REQUIRE(r.ok());
      CHECK(partition_metadata::validate(r.value()).ok());
      CHECK(partition_metadata::serialize(r->version, r->topic_id) == slurp_text(p));
      ++seen;
    } else if (parsed.ok() && parsed->kind == file_names::FileKind::snapshot) {
      auto r = producer_snapshot::read(as_bytes(bytes));
      REQUIRE(r.ok());
      CHECK(producer_snapshot::encode(r->entries) == bytes);
      std::string lines;
      for (const auto& e : r->entries) {
        lines += fmt::format("producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} "
                             "lastTimestamp: {}",
                             e.producer_id, e.producer_epoch, e.coordinator_epoch,
                             optional_long(e.current_txn_first_offset), e.timestamp_ms);
        if (e.has_batch_metadata())  // an entry without (transaction.version 2 markers) ends the line here
          lines += fmt::format(" firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                               e.first_sequence(), e.last_sequence, e.last_offset, e.offset_delta, e.timestamp_ms);
        lines += "\n";
      }
      if (dump_succeeded(p, "plain")) CHECK(dumped_lines_without_header(dump_file(p, "plain", "out")) == lines);
      ++seen;
    } else if (parsed.ok() && parsed->kind == file_names::FileKind::txnindex) {
      txn_index::View v(as_bytes(bytes));
      auto r = txn_index::decode(v, name);
      REQUIRE(r.ok());
      CHECK(txn_index::sanity_check(v, parsed->offset, name).ok());
      CHECK(txn_index::validate_entries(v).ok());
      CHECK(txn_index::encode(r.value()) == bytes);
      std::string lines;
      for (const auto& t : r.value())
        lines += fmt::format("version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}\n",
                             t.version, t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset);
      if (dump_succeeded(p, "plain")) CHECK(dumped_lines_without_header(dump_file(p, "plain", "out")) == lines);
      ++seen;
    } else if (parsed.ok() && parsed->kind == file_names::FileKind::index) {
      offset_index::View v(as_bytes(bytes), parsed->offset);
      std::vector<offset_index::Entry> entries;
      std::string lines;
      for (int64_t i = 0; i < v.slot_count(); ++i) entries.push_back(v.entry(i));
      for (int64_t i = 0; i < v.dump_entry_count(); ++i)
        lines += fmt::format("offset: {} position: {}\n", v.offset(i), v.entry(i).position);
      CHECK(offset_index::encode(entries) == bytes);
      CHECK(offset_index::validate_entries(v, v.live_entry_count()).ok());
      const fs::path sanity = dump_file(p, "sanity", "out");
      if (fs::exists(sanity)) {
        const bool kafka_passed = slurp_text(sanity).find("passed sanity check.") != std::string::npos;
        const bool kafka_empty = slurp_text(sanity).find(" is empty.") != std::string::npos;
        const Status ours = offset_index::sanity_check(v, "\x01");
        if (!kafka_empty) CHECK(ours.ok() == kafka_passed);
        if (!ours.ok()) CHECK(same_message_modulo_path(ours.error().message, kafka_corrupt_index_message(p)));
      }
      if (dump_succeeded(p, "plain") && v.slot_count() > 0)
        CHECK(dumped_lines_without_header(dump_file(p, "plain", "out")) == lines);
      ++seen;
    } else if (parsed.ok() && parsed->kind == file_names::FileKind::timeindex) {
      time_index::View v(as_bytes(bytes), parsed->offset);
      std::vector<time_index::Entry> entries;
      std::string lines;
      for (int64_t i = 0; i < v.slot_count(); ++i) entries.push_back(v.entry(i));
      for (int64_t i = 0; i < v.dump_entry_count(); ++i)
        lines += fmt::format("timestamp: {} offset: {}\n", v.entry(i).timestamp_ms, v.offset(i));
      CHECK(time_index::encode(entries) == bytes);
      CHECK(time_index::validate_entries(v, v.live_entry_count()).ok());
      const fs::path sanity = dump_file(p, "sanity", "out");
      if (fs::exists(sanity)) {
        const Status ours = time_index::sanity_check(v, "\x01");
        CHECK(ours.ok() == (slurp_text(sanity).find("passed sanity check.") != std::string::npos));
        if (!ours.ok()) CHECK(same_message_modulo_path(ours.error().message, kafka_corrupt_index_message(p)));
      }
      if (dump_succeeded(p, "plain")) CHECK(dumped_lines_without_header(dump_file(p, "plain", "out")) == lines);
      ++seen;
    }
  }
  WARN("state files checked: " << seen);
}
