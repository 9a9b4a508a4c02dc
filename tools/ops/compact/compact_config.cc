#include "tools/ops/compact/compact_config.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_v2.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/metadata_records.h"
#include "formats/properties.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/partition_dir.h"

namespace kseg::compact {

namespace {

// The topic configs and the cluster-wide broker defaults that the KRaft
// metadata log in `log_dir` (its __cluster_metadata-0: the newest snapshot,
// then the records after it) holds at its end, as ConfigurationControlManager
// replays them: a ConfigRecord sets (or with a null value removes) one key of
// a resource, and removing a topic removes its configs.
struct KraftConfigs {
  std::string source;  // the metadata partition, "" when there is none
  std::map<std::string, std::string> topic, broker_defaults;
};

Result<KraftConfigs> kraft_configs(const std::string& log_dir, const std::string& topic) {
  KraftConfigs out;
  const std::string dir = log_dir + "/__cluster_metadata-0";
  // Only the directory's absence means "no metadata log here": a file in it that cannot be
  // read fails below, where it is opened, rather than dropping the topic's configs.
  auto layout = read_partition_layout(dir, Unreadable::list);
  if (!layout.ok()) return out;
  out.source = dir;
  std::vector<std::pair<int64_t, std::string>> files;  // (first offset read, path)
  int64_t from = 0;
  if (!layout->kraft_snapshots.empty()) {
    std::string newest;
    for (const auto& n : layout->kraft_snapshots)
      if (auto k = file_names::parse_kraft_snapshot_name(n); k.ok() && k->end_offset.value >= from) {
        from = k->end_offset.value;
        newest = n;
      }
    if (!newest.empty()) files.emplace_back(0, dir + "/" + newest);
  }
  for (const auto& [base, f] : layout->segments) files.emplace_back(from, dir + "/" + f.names.at(file_names::FileKind::log));
  std::map<std::string, std::string> topic_ids;  // topicId -> name
  std::map<std::string, std::map<std::string, std::string>> topics;
  RecordWalker walker;
  for (const auto& [from_offset, path] : files) {
    const int64_t min_offset = from_offset;  // read by a lambda below: clang 14 cannot capture a binding
    auto f = MappedFile::open(path);
    if (!f.ok()) return Error{Errc::io, std::nullopt, fmt::format("{}: {}", path, f.error().message)};
    EntryScanner scanner(f->bytes(), Position{0});
    while (auto e = scanner.next()) {
      if (e->magic < 2) continue;
      auto h = v2::decode_header(*e);
      if (!h.ok() || h->is_control() || h->last_offset() < min_offset) continue;
      (void)walker.batch(*e, *h, [&](const EntryRecord& r) {  // what does not decode configures nothing
        if (r.offset < min_offset || r.value.null) return true;
        const auto t = metadata::parse(r.value.bytes);
        if (t.outcome != metadata::Outcome::ok) return true;
        const auto j = nlohmann::json::parse(t.text, nullptr, false);
        if (!j.is_object() || !j.contains("data")) return true;
        const auto& d = j["data"];
        const std::string type = j.value("type", "");
        if (type == "TOPIC_RECORD") {
          topic_ids[d.value("topicId", "")] = d.value("name", "");
        } else if (type == "REMOVE_TOPIC_RECORD") {
          auto it = topic_ids.find(d.value("topicId", ""));
          if (it != topic_ids.end()) topics.erase(it->second);
        } else if (type == "CONFIG_RECORD") {
          const int type_id = d.value("resourceType", 0);
          const std::string name = d.value("resourceName", ""), key = d.value("name", "");
          auto& m = type_id == 2 ? topics[name] : out.broker_defaults;
          if (type_id != 2 && !(type_id == 4 && name.empty())) return true;
          if (d.contains("value") && d["value"].is_string()) m[key] = d["value"].get<std::string>();
          else m.erase(key);
        }
        return true;
      });
    }
  }
  if (topics.count(topic)) out.topic = topics[topic];
  return out;
}

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

// A config file given on the command line, as Kafka loads one; the last
// value of a repeated key wins. An unreadable file is an error, never Kafka's
// defaults in its place.
Result<std::map<std::string, std::string>> read_properties(const std::string& path, const char* option) {
  auto props = properties::read_file(path);
  if (!props.ok()) {
    Error e = props.error();
    e.message = fmt::format("{} {}", option, e.message);
    return e;
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : props->entries) out[key] = value;
  return out;
}

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
  const Setting& v = s.all.at(key);
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  for (const Range& r : kRanges)
    if (key == r.key) lo = r.min, hi = r.max;
  auto n = properties::parse_number(properties::trim(v.value), min.value_or(lo), hi);
  if (!n.ok()) return Error{Errc::usage, std::nullopt, fmt::format("{} = '{}' ({}): {}", key, v.value, v.source, n.error().message)};
  return *n;
}

}  // namespace

Result<Settings> resolve(const CompactOptions& o, const std::string& topic, const std::string& log_dir) {
  std::map<std::string, std::string> topic_file, broker_file;
  if (!o.topic_config_file.empty()) {
    auto t = read_properties(o.topic_config_file, "--topic-config");
    if (!t.ok()) return t.error();
    topic_file = std::move(*t);
  }
  if (!o.broker_config_file.empty()) {
    auto b = read_properties(o.broker_config_file, "--broker-config");
    if (!b.ok()) return b.error();
    broker_file = std::move(*b);
  }
  auto kraft = kraft_configs(log_dir, topic);
  if (!kraft.ok()) return kraft.error();
  const Internal* internal = nullptr;
  for (const auto& i : kInternal)
    if (topic == i.topic) internal = &i;
  Settings s;
  auto pick = [&](const Key& k, bool topic_level) {
    Setting v{k.fallback, "default"};
    if (k.broker && broker_file.count(k.broker))
      v = {broker_file[k.broker], fmt::format("{} ({})", o.broker_config_file, k.broker)};
    if (k.broker && kraft->broker_defaults.count(k.broker))
      v = {kraft->broker_defaults[k.broker], fmt::format("KRaft metadata {} (cluster default {})", kraft->source, k.broker)};
    if (topic_level && internal) {
      if (std::string(k.topic) == "cleanup.policy") v = {"compact", fmt::format("{} is compacted by Kafka", topic)};
      if (std::string(k.topic) == "segment.bytes") {
        v = {"104857600", fmt::format("{}'s default ({})", topic, internal->segment_key)};
        if (broker_file.count(internal->segment_key))
          v = {broker_file[internal->segment_key], fmt::format("{} ({})", o.broker_config_file, internal->segment_key)};
      }
    }
    if (topic_level && kraft->topic.count(k.topic))
      v = {kraft->topic[k.topic], fmt::format("KRaft metadata {}", kraft->source)};
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
  return s;
}

std::vector<std::string> describe(const Settings& s) {
  std::vector<std::string> out;
  for (const auto& [k, v] : s.all) out.push_back(fmt::format("{} = {} ({})", k, v.value, v.source));
  return out;
}

}  // namespace kseg::compact
