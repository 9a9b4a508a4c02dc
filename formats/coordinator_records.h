// SPDX-License-Identifier: Apache-2.0
// Records of the coordinator topics (__consumer_offsets, __transaction_state,
// __share_group_state)
// as DumpLogSegments' CoordinatorRecordMessageParser prints them.
//
// A coordinator record's key starts with an int16 record type, followed by
// the key message (never flexible); its value starts with an int16 version,
// followed by the value message at that version. A null value is a tombstone.
//
//   key   = int16 type    | key message
//   value = int16 version | value message   (or null: tombstone)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/schema.h"

namespace kseg::coordinator {

struct RecordType {
  int16_t id;
  // Both null: a type Kafka 4.4 knows that our tables do not describe yet.
  const schema::Message* key;
  const schema::Message* value;
  int16_t min_value_version;
  int16_t max_value_version;
};

// GroupCoordinatorRecordSerde's types (group_records.cc).
std::span<const RecordType> group_record_types();
// TransactionCoordinatorRecordSerde's types (transaction_records.cc).
std::span<const RecordType> transaction_record_types();
// ShareCoordinatorRecordSerde's types (share_records.cc).
std::span<const RecordType> share_record_types();

enum class Topic { group, transaction, share };

// What the parser prints for the key and the payload; `value` is nullopt
// when Kafka prints no payload (unknown type, errors).
struct Text {
  std::string key;
  std::optional<std::string> value;
};

// Parses one record with a non-null key (Kafka throws on a null key; the
// caller handles that). Fails only for a type Kafka knows and we do not.
// `unknown`, if given, gets the value's tagged fields its schema does not
// name (not in `value`, as Kafka prints it; left empty when there is none).
Result<Text> parse(Topic topic, int64_t offset, Bytes key, std::optional<Bytes> value,
                   schema::UnknownTags* unknown = nullptr);

// TransactionState.stateName() for a TransactionLogValue status, or the
// number itself for an id Kafka does not know.
std::string transaction_state_name(int8_t status);

}  // namespace kseg::coordinator
