#include "tools/ops/compact/compact_config.h"

#include <algorithm>
#include <charconv>
#include <fstream>

#include <fmt/format.h>

namespace kseg::compact {

namespace {

// A topic config, the broker setting that is its default, and Kafka's default.
struct Key {
  const char* topic;
  const char* broker;  // nullptr: none
  const char* fallback;
};

constexpr Key kTopicKeys[] = {
    {"cleanup.policy", "log.cleanup.policy", "delete"},
    {"delete.retention.ms", "log.cleaner.delete.retention.ms", "86400000"},
    {"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", "0"},
    {"segment.bytes", "log.segment.bytes", "1073741824"},
    {"segment.index.bytes", "log.index.size.max.bytes", "10485760"},
    {"index.interval.bytes", "log.index.interval.bytes", "4096"},
    {"max.message.bytes", "message.max.bytes", "1048588"},
};

// Cleaner settings (broker-wide only).
constexpr Key kBrokerKeys[] = {
    {"log.cleaner.dedupe.buffer.size", "log.cleaner.dedupe.buffer.size", "134217728"},
    {"log.cleaner.threads", "log.cleaner.threads", "1"},
    {"log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.load.factor", "0.9"},
};

// What Kafka creates its internal topics with (GroupCoordinatorConfig,
// TransactionLogConfig, ShareCoordinatorConfig defaults): compacted, with
// 100 MiB segments; the broker setting named second overrides the size.
struct Internal {
  const char* topic;
  const char* segment_key;
};
constexpr Internal kInternal[] = {
    {"__consumer_offsets", "offsets.topic.segment.bytes"},
    {"__transaction_state", "transaction.state.log.segment.bytes"},
    {"__share_group_state", "share.coordinator.state.topic.segment.bytes"},
};

Result<std::map<std::string, std::string>> read_properties(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{Errc::usage, std::nullopt, fmt::format("{}: cannot read", path)};
  std::map<std::string, std::string> out;
  std::string line;
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const auto eq = line.find_first_of("=:");
    if (eq == std::string::npos) continue;
    out[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  return out;
}

Result<int64_t> number(const Settings& s, const std::string& key) {
  const Setting& v = s.all.at(key);
  int64_t n = 0;
  const auto* b = v.value.data();
  const auto r = std::from_chars(b, b + v.value.size(), n);
  if (r.ec != std::errc() || r.ptr != b + v.value.size())
    return Error{Errc::usage, std::nullopt, fmt::format("{} = '{}' ({}): not a whole number", key, v.value, v.source)};
  return n;
}

}  // namespace

Result<Settings> resolve(const CompactOptions& o, const std::string& topic) {
  std::map<std::string, std::string> topic_file, broker_file;
  if (!o.topic_config_file.empty()) {
    auto t = read_properties(o.topic_config_file);
    if (!t.ok()) return t.error();
    topic_file = std::move(*t);
  }
  if (!o.broker_config_file.empty()) {
    auto b = read_properties(o.broker_config_file);
    if (!b.ok()) return b.error();
    broker_file = std::move(*b);
  }
  const Internal* internal = nullptr;
  for (const auto& i : kInternal)
    if (topic == i.topic) internal = &i;
  Settings s;
  auto pick = [&](const Key& k, bool topic_level) {
    Setting v{k.fallback, "default"};
    if (k.broker && broker_file.count(k.broker))
      v = {broker_file[k.broker], fmt::format("{} ({})", o.broker_config_file, k.broker)};
    if (topic_level && internal) {
      if (std::string(k.topic) == "cleanup.policy") v = {"compact", fmt::format("{} is compacted by Kafka", topic)};
      if (std::string(k.topic) == "segment.bytes") {
        v = {"104857600", fmt::format("{}'s default ({})", topic, internal->segment_key)};
        if (broker_file.count(internal->segment_key))
          v = {broker_file[internal->segment_key], fmt::format("{} ({})", o.broker_config_file, internal->segment_key)};
      }
    }
    if (topic_level && topic_file.count(k.topic))
      v = {topic_file[k.topic], fmt::format("topic config {}", o.topic_config_file)};
    for (const auto& [key, value] : o.overrides)
      if (key == k.topic) v = {value, "command line"};
    s.all[k.topic] = v;
  };
  for (const auto& k : kTopicKeys) pick(k, true);
  for (const auto& k : kBrokerKeys) pick(k, false);
  // Kafka's test-only segment size (LogConfig.segmentSize prefers it).
  for (const auto& [key, value] : o.overrides)
    if (key == "internal.segment.bytes") s.all["internal.segment.bytes"] = {value, "command line"};
  if (topic_file.count("internal.segment.bytes") && !s.all.count("internal.segment.bytes"))
    s.all["internal.segment.bytes"] = {topic_file["internal.segment.bytes"], fmt::format("topic config {}", o.topic_config_file)};
  for (const auto& [key, value] : o.overrides)
    if (key == "offset.map.bytes") s.all["offset.map.bytes"] = {value, "command line"};
  for (const auto& [key, value] : o.overrides) {
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
                  Field{"index.interval.bytes", &s.index_interval_bytes}, Field{"max.message.bytes", &s.max_message_bytes}}) {
    auto n = number(s, f.key);
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
  if (*threads < 1) return Error{Errc::usage, std::nullopt, "log.cleaner.threads must be at least 1"};
  s.offset_map_bytes = std::min<int64_t>(*dedupe / *threads, INT32_MAX);
  if (s.all.count("offset.map.bytes")) {
    auto n = number(s, "offset.map.bytes");
    if (!n.ok()) return n.error();
    s.offset_map_bytes = std::min<int64_t>(*n, INT32_MAX);
  }
  const std::string& lf = s.all["log.cleaner.io.buffer.load.factor"].value;
  try {
    size_t used = 0;
    s.load_factor = std::stod(lf, &used);
    if (used != lf.size()) throw std::invalid_argument(lf);
  } catch (const std::exception&) {
    return Error{Errc::usage, std::nullopt, fmt::format("log.cleaner.io.buffer.load.factor = '{}': not a number", lf)};
  }
  // Kafka refuses to start a cleaner whose map would hold at most one key.
  if (static_cast<double>(s.offset_map_bytes / 24) * s.load_factor <= 1)
    return Error{Errc::usage, std::nullopt,
                 fmt::format("an offset map of {} bytes holds no more than one key (Kafka refuses it too)", s.offset_map_bytes)};
  if (s.load_factor >= 1 || s.load_factor <= 0)
    return Error{Errc::usage, std::nullopt, "log.cleaner.io.buffer.load.factor must be above 0 and below 1"};
  if (s.index_interval_bytes < 0 || s.segment_bytes < 1 || s.segment_index_bytes < 8)
    return Error{Errc::usage, std::nullopt, "segment.bytes, segment.index.bytes and index.interval.bytes must be positive"};
  return s;
}

std::vector<std::string> describe(const Settings& s) {
  std::vector<std::string> out;
  for (const auto& [k, v] : s.all) out.push_back(fmt::format("{} = {} ({})", k, v.value, v.source));
  return out;
}

}  // namespace kseg::compact
