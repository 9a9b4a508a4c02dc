// SPDX-License-Identifier: Apache-2.0
#include "formats/partition_metadata.h"

#include <vector>

#include <fmt/format.h>

#include "formats/java_text.h"

namespace kseg::partition_metadata {

namespace {

// Pattern.compile(":\\s+").split(line) with Java's empty-field rules.
std::vector<std::string_view> split_colon_space(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0, i = 0;
  bool matched = false;
  while (i < s.size()) {
    if (s[i] == ':' && i + 1 < s.size() && java::is_space(s[i + 1])) {
      out.push_back(s.substr(start, i - start));
      i += 1;
      while (i < s.size() && java::is_space(s[i])) ++i;
      start = i;
      matched = true;
    } else {
      ++i;
    }
  }
  if (!matched) return {s};
  out.push_back(s.substr(start));
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

}  // namespace

Result<PartitionMetadata> parse(std::string_view text, std::string_view file_path, Position base) {
  const auto lines = java::read_lines(text, base);
  const auto malformed = [&](const java::Line& line) {
    return Error{Errc::bad_value, line.position,
                 fmt::format("Malformed line in partition metadata file [{}]: {}", file_path, line.text)};
  };
  const auto missing = [&](size_t n) {
    return Error{Errc::truncated, base + Length{static_cast<int64_t>(text.size())},
                 fmt::format("partition metadata file [{}] has {} line(s), expected 2 (Kafka fails with a "
                             "NullPointerException)",
                             file_path, n)};
  };
  if (lines.empty()) return missing(0);
  PartitionMetadata m;
  const auto first = split_colon_space(lines[0].text);
  if (first.size() != 2) return malformed(lines[0]);
  const auto version = java::parse_int(first[1]);
  if (!version) return malformed(lines[0]);
  if (*version < 0)
    return Error{Errc::bad_magic, lines[0].position,
                 fmt::format("Unrecognized version of partition metadata file ({}): {}", file_path, *version)};
  if (lines.size() < 2) return missing(1);
  const auto second = split_colon_space(lines[1].text);
  if (second.size() != 2) return malformed(lines[1]);
  auto uuid = parse_kafka_uuid(second[1]);
  if (!uuid.ok()) return Error{Errc::bad_value, lines[1].position, uuid.error().message};
  if (uuid->is_zero())
    return Error{Errc::bad_value, lines[1].position,
                 fmt::format("Invalid topic ID in partition metadata file ({})", file_path)};
  m.version = *version;
  m.topic_id = uuid.value();
  m.version_key = std::string(first[0]);
  m.topic_id_key = std::string(second[0]);
  m.extra_lines = lines.size() > 2;
  return m;
}

Status validate(const PartitionMetadata& m) {
  if (m.version_key != "version" || m.topic_id_key != "topic_id")
    return Status::fail(Errc::bad_value, std::nullopt,
                        fmt::format("keys are '{}' and '{}', expected 'version' and 'topic_id'", m.version_key,
                                    m.topic_id_key));
  if (m.version != kVersion)
    return Status::fail(Errc::bad_magic, std::nullopt, fmt::format("version {}, expected {}", m.version, kVersion));
  if (m.extra_lines)
    return Status::fail(Errc::trailing_bytes, std::nullopt, "lines after topic_id (Kafka ignores them)");
  return {};
}

std::string serialize(int32_t version, const KafkaUuid& topic_id) {
  return fmt::format("version: {}\ntopic_id: {}", version, format_kafka_uuid(topic_id));
}

}  // namespace kseg::partition_metadata
