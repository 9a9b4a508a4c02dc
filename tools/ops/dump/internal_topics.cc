// SPDX-License-Identifier: Apache-2.0
// Parsers for Kafka's internal topics (__consumer_offsets,
// __transaction_state, __cluster_metadata, __share_group_state,
// __remote_log_metadata), printing what DumpLogSegments' decoder options print. The decoding lives in formats/; this file maps it onto ParsedRecord.
#include <fmt/format.h>

#include "formats/coordinator_records.h"
#include "formats/metadata_records.h"
#include "formats/remote_log_metadata.h"
#include "tools/ops/dump/record_text.h"

namespace kseg {

namespace {

void parse_coordinator(coordinator::Topic topic, const RecordView& r, ParsedRecord& out) {
  if (r.key.null) {  // Kafka throws here and the dump stops
    out.error = Error{Errc::bad_value, std::nullopt,
                      fmt::format("Failed to decode message at offset {} using the specified decoder (message had "
                                  "a missing key)", r.offset)};
    return;
  }
  std::optional<Bytes> value;
  if (!r.value.null) value = r.value.bytes;
  auto text = coordinator::parse(topic, r.offset, r.key.bytes, value, &out.unknown_tags);
  if (!text.ok()) {
    out.error = text.error();
    return;
  }
  out.key = std::move(text.value().key);
  out.payload = std::move(text.value().value);
}

}  // namespace

void parse_offsets_record(const RecordView& r, ParsedRecord& out) {
  parse_coordinator(coordinator::Topic::group, r, out);
}

void parse_transaction_log_record(const RecordView& r, ParsedRecord& out) {
  parse_coordinator(coordinator::Topic::transaction, r, out);
}

void parse_share_group_state_record(const RecordView& r, ParsedRecord& out) {
  parse_coordinator(coordinator::Topic::share, r, out);
}

void parse_cluster_metadata_record(const RecordView& r, ParsedRecord& out) {
  // No key for metadata records. A null value makes Kafka's reader throw a
  // NullPointerException, which we report as an error rather than imitate.
  if (r.value.null) {
    out.error = Error{Errc::bad_value, std::nullopt, fmt::format("record at offset {}: null metadata record value",
                                                                  r.offset)};
    return;
  }
  metadata::Text text = metadata::parse(r.value.bytes, &out.unknown_tags);
  switch (text.outcome) {
    case metadata::Outcome::ok: out.payload = std::move(text.text); break;
    case metadata::Outcome::kafka_error:
      out.payload = fmt::format("Error at {}, skipping. {}", r.offset, text.text);
      break;
    case metadata::Outcome::unsupported:
      out.error = Error{Errc::unsupported, std::nullopt, fmt::format("record at offset {}: {}", r.offset, text.text)};
      break;
  }
}

void parse_remote_log_metadata_record(const RecordView& r, ParsedRecord& out) {
  // The key is never read. Kafka's parser catches everything, a null
  // value's NullPointerException too (Java 17's message).
  if (r.value.null) {
    out.payload = fmt::format("Error at offset {}, skipping. Cannot invoke \"java.nio.ByteBuffer.remaining()\" "
                              "because the return value of \"org.apache.kafka.common.record.internal.Record.value()\" "
                              "is null", r.offset);
    return;
  }
  auto text = remote_log_metadata::describe(r.value.bytes, &out.unknown_tags);
  out.payload = text.ok() ? std::move(*text) : fmt::format("Error at offset {}, skipping. {}", r.offset,
                                                           text.error().message);
}

}  // namespace kseg
