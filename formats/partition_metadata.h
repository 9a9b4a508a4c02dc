// SPDX-License-Identifier: Apache-2.0
// `partition.metadata` (partition directory): the topic id.
//
//   version: 0\n
//   topic_id: <22-char base64url Uuid>        (no trailing newline)
//
// Kafka (PartitionMetadataReadBuffer) reads two lines, splits each on ':'
// followed by whitespace (":\s+"), needs exactly two parts, parses the first
// value as a Java int >= 0 and the second as a Uuid != zero. It does not
// check the key names nor look past line 2.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/kafka_uuid.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::partition_metadata {

inline constexpr int32_t kVersion = 0;

struct PartitionMetadata {
  int32_t version = kVersion;
  KafkaUuid topic_id;
  // As found, for validate(): Kafka ignores them.
  std::string version_key = "version";
  std::string topic_id_key = "topic_id";
  bool extra_lines = false;
};

// Kafka's parse, Kafka's messages (with `file_path`); position = the line.
Result<PartitionMetadata> parse(std::string_view text, std::string_view file_path, Position base = Position{0});
// Beyond Kafka: key names, version 0, nothing after line 2.
Status validate(const PartitionMetadata& m);
// Kafka's writer output (PartitionMetadata.encode).
std::string serialize(int32_t version, const KafkaUuid& topic_id);

}  // namespace kseg::partition_metadata
