// SPDX-License-Identifier: Apache-2.0
// Kafka's Uuid as written in text files: 16 bytes, URL-safe base64 without
// padding (22 characters), e.g. topic ids in partition.metadata and
// cluster.id / directory.id in meta.properties.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/status.h"

namespace kseg {

struct KafkaUuid {
  std::array<uint8_t, 16> bytes{};
  bool operator==(const KafkaUuid&) const = default;
  bool is_zero() const { return *this == KafkaUuid{}; }
};

// Uuid.fromString: at most 24 characters, java.util.Base64 URL decoding
// (optional '=' padding), exactly 16 decoded bytes. Messages are Kafka's
// (or java.util.Base64's for bad characters).
Result<KafkaUuid> parse_kafka_uuid(std::string_view text);
// Uuid.toString: 22 characters.
std::string format_kafka_uuid(const KafkaUuid& uuid);

}  // namespace kseg
