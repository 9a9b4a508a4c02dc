// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/compact/compact_config.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "formats/properties.h"
#include "tools/ops/partition/topic_settings.h"

namespace kseg::compact {

namespace {

// The topic's cleaning settings (the index settings are kIndexSettingKeys).
constexpr SettingKey kCleaningKeys[] = {
    kCleanupPolicyKey,
    {"delete.retention.ms", "log.cleaner.delete.retention.ms", "86400000"},
    {"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", "0"},
    {"segment.bytes", "log.segment.bytes", "1073741824"},
    {"min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio", "0.5"},
};

// Cleaner settings (broker-wide only).
constexpr SettingKey kBrokerKeys[] = {
    {"log.cleaner.dedupe.buffer.size", "log.cleaner.dedupe.buffer.size", "134217728", true},
    {"log.cleaner.threads", "log.cleaner.threads", "1", true},
    {"log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.load.factor", "0.9", true},
};

// The valid range of each number a round reads (Kafka 4.4's LogConfig and
// CleanerConfig validators; where kseg needs more, said so).
struct Range {
  const char* key;
  int64_t min, max;
};
constexpr Range kRanges[] = {
    {"delete.retention.ms", 0, INT64_MAX},
    {"min.compaction.lag.ms", 0, INT64_MAX},
    {"segment.bytes", 1 << 20, INT32_MAX},  // atLeast(1024 * 1024) since Kafka 4.0
    {"internal.segment.bytes", 1, INT32_MAX},  // Kafka's test-only override: no validator; a size is positive
    {"segment.index.bytes", 8, INT32_MAX},     // Kafka: atLeast(4); one 8-byte entry is the least a cleaned segment writes
    {"index.interval.bytes", 0, INT32_MAX},
    {"log.cleaner.dedupe.buffer.size", 0, INT64_MAX},
    {"log.cleaner.threads", 1, INT32_MAX},  // Kafka: atLeast(0), where 0 runs no cleaner at all
    {"offset.map.bytes", 0, INT64_MAX},
};

// A setting's value as Kafka's ConfigDef reads an INT or LONG: trimmed,
// decimal, within its range (`min` overrides the table's).
Result<int64_t> number(const Settings& s, const std::string& key, std::optional<int64_t> min = std::nullopt) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  for (const Range& r : kRanges)
    if (key == r.key) lo = r.min, hi = r.max;
  return setting_number(s.all, key, min.value_or(lo), hi);
}

// A setting that is a Java double: ConfigDef trims it, then Double.parseDouble
// (which takes a trailing d or f too).
Result<double> fraction(const Settings& s, const std::string& key) {
  const Setting& v = s.all.at(key);
  std::string text(properties::trim(v.value));
  if (!text.empty() && std::string_view("dDfF").find(text.back()) != std::string_view::npos) text.pop_back();
  try {
    size_t used = 0;
    const double d = std::stod(text, &used);
    if (used != text.size() || text.empty()) throw std::invalid_argument(text);
    return d;
  } catch (const std::exception&) {
    return Error{Errc::usage, std::nullopt, fmt::format("{} = '{}' ({}): not a number", key, v.value, v.source)};
  }
}

}  // namespace

Result<Settings> resolve(const CompactOptions& o, const std::string& topic, const std::string& log_dir) {
  auto lookup = TopicSettings::open({o.topic_config_file, o.broker_config_file, o.overrides});
  if (!lookup.ok()) return lookup.error();
  return resolve(**lookup, o.overrides, topic, log_dir);
}

Result<Settings> resolve(const TopicSettings& ts, std::span<const std::pair<std::string, std::string>> overrides,
                         const std::string& topic, const std::string& log_dir) {
  Settings s;
  for (std::span<const SettingKey> keys : {std::span<const SettingKey>(kCleaningKeys), std::span<const SettingKey>(kIndexSettingKeys),
                                          std::span<const SettingKey>(kBrokerKeys)}) {
    auto found = ts.lookup(topic, log_dir, keys);
    if (!found.ok()) return found.error();
    s.all.merge(*found);
  }
  const bool internal = internal_topic(topic);
  // Kafka's test-only segment size (LogConfig.segmentSize prefers it), and kseg's own map size.
  for (const char* key : {"internal.segment.bytes", "offset.map.bytes"})
    if (auto v = ts.given(key); v && (std::string_view(key) != "offset.map.bytes" || v->source == "command line"))
      s.all[key] = *v;
  for (const auto& [key, value] : overrides) {
    bool known = s.all.count(key) != 0;
    if (!known) return Error{Errc::usage, std::nullopt, fmt::format("--config {}: not a setting kseg-compact uses", key)};
  }
  s.cleanup_policy = s.all["cleanup.policy"].value;
  std::transform(s.cleanup_policy.begin(), s.cleanup_policy.end(), s.cleanup_policy.begin(), ::tolower);
  struct Field {
    const char* key;
    int64_t* to;
  };
  for (Field f : {Field{"delete.retention.ms", &s.delete_retention_ms}, Field{"min.compaction.lag.ms", &s.min_compaction_lag_ms},
                  Field{"segment.bytes", &s.segment_bytes}, Field{"segment.index.bytes", &s.segment_index_bytes},
                  Field{"index.interval.bytes", &s.index_interval_bytes}}) {
    // An internal topic's size comes from its coordinator's setting: atLeast(1).
    const bool internal_size = internal && std::string_view(f.key) == "segment.bytes";
    auto n = number(s, f.key, internal_size ? std::optional<int64_t>(1) : std::nullopt);
    if (!n.ok()) return n.error();
    *f.to = *n;
  }
  if (s.all.count("internal.segment.bytes")) {
    auto n = number(s, "internal.segment.bytes");
    if (!n.ok()) return n.error();
    s.segment_bytes = *n;
  }
  auto dedupe = number(s, "log.cleaner.dedupe.buffer.size");
  if (!dedupe.ok()) return dedupe.error();
  auto threads = number(s, "log.cleaner.threads");
  if (!threads.ok()) return threads.error();
  s.offset_map_bytes = std::min<int64_t>(*dedupe / *threads, INT32_MAX);
  s.map_given = s.all["log.cleaner.dedupe.buffer.size"].source != "default" ||
                s.all["log.cleaner.threads"].source != "default" || s.all.count("offset.map.bytes");
  if (s.all.count("offset.map.bytes")) {
    auto n = number(s, "offset.map.bytes");
    if (!n.ok()) return n.error();
    s.offset_map_bytes = std::min<int64_t>(*n, INT32_MAX);
  }
  auto lf = fraction(s, "log.cleaner.io.buffer.load.factor");
  if (!lf.ok()) return lf.error();
  s.load_factor = *lf;
  auto ratio = fraction(s, "min.cleanable.dirty.ratio");  // Kafka: between(0, 1)
  if (!ratio.ok()) return ratio.error();
  if (*ratio < 0 || *ratio > 1) return Error{Errc::usage, std::nullopt, "min.cleanable.dirty.ratio must be within [0, 1]"};
  s.min_cleanable_ratio = *ratio;
  // Kafka refuses to start a cleaner whose map would hold at most one key.
  if (static_cast<double>(s.offset_map_bytes / 24) * s.load_factor <= 1)
    return Error{Errc::usage, std::nullopt,
                 fmt::format("an offset map of {} bytes holds no more than one key (Kafka refuses it too)", s.offset_map_bytes)};
  if (s.load_factor >= 1 || s.load_factor <= 0)
    return Error{Errc::usage, std::nullopt, "log.cleaner.io.buffer.load.factor must be above 0 and below 1"};
  return s;
}

std::vector<std::string> describe(const Settings& s) { return describe_settings(s.all); }

}  // namespace kseg::compact
