// SPDX-License-Identifier: Apache-2.0
// KRaft metadata records (__cluster_metadata and its snapshots) as
// DumpLogSegments' ClusterMetadataLogMessageParser prints them.
//
// A record value is framed by MetadataRecordSerde as
//   uvarint frame version (1) | uvarint record type | uvarint version | message
// and the message must use every remaining byte.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/schema.h"

namespace kseg::metadata {

struct RecordType {
  int16_t id;
  const char* name;  // MetadataRecordType constant, e.g. "TOPIC_RECORD"
  const schema::Message* message;  // null: known to Kafka 4.4, not described here yet
};

// Every MetadataRecordType of Kafka 4.4 (metadata_records.cc).
std::span<const RecordType> record_types();

enum class Outcome { ok, kafka_error, unsupported };

struct Text {
  Text() = default;
  Text(Outcome o, std::string t) : outcome(o), text(std::move(t)) {}
  Outcome outcome = Outcome::ok;
  // ok: {"type":…,"version":…,"data":…}; kafka_error: the exception message
  // Kafka's parser would print after "Error at <offset>, skipping. ";
  // unsupported: why we cannot print it.
  std::string text;
};

// `unknown`, if given: as coordinator::parse's.
Text parse(Bytes value, schema::UnknownTags* unknown = nullptr);

}  // namespace kseg::metadata
