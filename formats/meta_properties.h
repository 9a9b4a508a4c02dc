// SPDX-License-Identifier: Apache-2.0
// `meta.properties` (log-dir root): broker/cluster identity, a Java
// Properties file (ISO-8859-1, `\uXXXX` escapes).
//
//   #                                 Properties.store with an empty comment
//   #<date>
//   key=value …                       in hash order
//
//   key            v0 (ZooKeeper)        v1 (KRaft)
//   version        0 (default if absent) 1
//   broker.id      optional int          -
//   node.id        -                     required int
//   cluster.id     optional              required
//   directory.id   optional Uuid         optional Uuid
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/kafka_uuid.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg::meta_properties {

// Key/value pairs in file order, as java.util.Properties.load reads them
// (comments, blank lines, continuations, separators, escapes); a repeated
// key keeps its last value in get(). Strings are UTF-8.
struct Properties {
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<Position> positions;  // of each entry's line, for error messages
  const std::string* get(std::string_view key) const;
  // The line the value get(key) came from; nullopt when the key is absent.
  std::optional<Position> position_of(std::string_view key) const;
};
Result<Properties> load(std::string_view text, Position base = Position{0});

struct MetaProperties {
  int32_t version = 0;
  std::optional<int32_t> node_id;  // broker.id for v0, node.id for v1
  std::optional<std::string> cluster_id;
  std::optional<KafkaUuid> directory_id;
  Properties raw;
};

// MetaProperties.Builder(Properties) + build(): Kafka's messages.
Result<MetaProperties> parse(std::string_view text, Position base = Position{0});

// Properties.store(writer, ""): "#", "#<date_comment>", then key=value with
// store's escaping, in the given order.
std::string serialize(const std::vector<std::pair<std::string, std::string>>& entries,
                      std::string_view date_comment);

}  // namespace kseg::meta_properties
