// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/topic_settings.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/batch_v2.h"
#include "formats/file_names.h"
#include "formats/log_batch.h"
#include "formats/log_entry.h"
#include "formats/metadata_records.h"
#include "formats/properties.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/partition_dir.h"

namespace kseg {

namespace fs = std::filesystem;

const SettingKey kIndexSettingKeys[2] = {
    {"segment.index.bytes", "log.index.size.max.bytes", "10485760"},
    {"index.interval.bytes", "log.index.interval.bytes", "4096"},
};

// log.retention.hours=168 is Kafka's default (and what server.properties
// sets); log.retention.ms, then .minutes, override it (broker_value).
const SettingKey kRetentionSettingKeys[2] = {
    {"retention.ms", "log.retention.ms", "604800000"},
    {"retention.bytes", "log.retention.bytes", "-1"},
};

// The topic configs and the cluster-wide broker defaults that the KRaft
// metadata log in a log dir (its __cluster_metadata-0: the newest snapshot,
// then the records after it) holds at its end, as ConfigurationControlManager
// replays them: a ConfigRecord sets (or with a null value removes) one key of
// a resource, and removing a topic removes its configs.
struct TopicSettings::Kraft {
  std::string source;  // the metadata partition, "" when there is none
  std::map<std::string, std::map<std::string, std::string>> topics;
  std::map<std::string, std::string> broker_defaults;
  std::map<std::string, std::string> ids;  // each live topic's id, by name
};

namespace {

// A broker setting of one layer: its value, and the name it was found
// under. In a server.properties (`synonyms`) log.retention.ms has two
// synonyms, in Kafka's order of precedence: log.retention.ms (LONG), else
// .minutes, else .hours (INT), scaled to milliseconds, any negative result
// -1 (KafkaConfig.logRetentionTimeMillis). The dynamic defaults keep
// log.retention.ms alone: Kafka ignores the other two there.
Result<std::optional<std::pair<std::string, std::string>>> broker_value(const std::map<std::string, std::string>& layer,
                                                                        const std::string& name, bool synonyms) {
  using Found = std::optional<std::pair<std::string, std::string>>;
  const bool retention = name == "log.retention.ms";
  if (!retention) return layer.count(name) ? Found{std::pair{layer.at(name), name}} : Found{};
  struct Unit {
    const char* key;
    int64_t scale, max;
  };
  for (const Unit& u : {Unit{"log.retention.ms", 1, INT64_MAX}, Unit{"log.retention.minutes", 60000, INT32_MAX},
                        Unit{"log.retention.hours", 3600000, INT32_MAX}}) {
    if (!layer.count(u.key) || (u.scale != 1 && !synonyms)) continue;
    auto n = properties::parse_number(properties::trim(layer.at(u.key)), u.scale == 1 ? INT64_MIN : INT32_MIN, u.max);
    if (!n.ok()) return Error{Errc::usage, std::nullopt, fmt::format("{}: {}", u.key, n.error().message)};
    return Found{std::pair{std::to_string(*n < 0 ? -1 : *n * u.scale), std::string(u.key)}};
  }
  return Found{};
}

// A config file given on the command line, as Kafka loads one; the last
// value of a repeated key wins.
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

}  // namespace

bool internal_topic(const std::string& topic) {
  for (const auto& i : kInternal)
    if (topic == i.topic) return true;
  return false;
}

Result<std::shared_ptr<TopicSettings>> TopicSettings::open(SettingsFiles files) {
  auto s = std::make_shared<TopicSettings>();
  if (!files.topic_config_file.empty()) {
    auto t = read_properties(files.topic_config_file, "--topic-config");
    if (!t.ok()) return t.error();
    s->topic_file_ = std::move(*t);
  }
  if (!files.broker_config_file.empty()) {
    auto b = read_properties(files.broker_config_file, "--broker-config");
    if (!b.ok()) return b.error();
    s->broker_file_ = std::move(*b);
  }
  s->files_ = std::move(files);
  return s;
}

Result<std::shared_ptr<const TopicSettings::Kraft>> TopicSettings::kraft(const std::string& log_dir) const {
  {
    std::lock_guard lock(mu_);
    if (auto it = kraft_.find(log_dir); it != kraft_.end()) return it->second;
  }
  auto out = std::make_shared<Kraft>();
  const std::string dir = log_dir + "/__cluster_metadata-0";
  // Only the directory's absence means "no metadata log here": a file in it that cannot be
  // read fails below, where it is opened, rather than dropping the topic's configs.
  auto layout = read_partition_layout(dir, Unreadable::list);
  if (layout.ok()) {
    out->source = dir;
    std::vector<std::pair<int64_t, std::string>> files;  // (first offset read, path)
    int64_t from = 0;
    std::string newest;
    for (const auto& n : layout->kraft_snapshots)
      if (auto k = file_names::parse_kraft_snapshot_name(n); k.ok() && k->end_offset.value >= from) {
        from = k->end_offset.value;
        newest = n;
      }
    if (!newest.empty()) files.emplace_back(0, dir + "/" + newest);
    for (const auto& [base, f] : layout->segments)
      files.emplace_back(from, dir + "/" + f.names.at(file_names::FileKind::log));
    std::map<std::string, std::string> topic_ids;  // topicId -> name
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
            out->ids[d.value("name", "")] = d.value("topicId", "");
          } else if (type == "REMOVE_TOPIC_RECORD") {
            auto it = topic_ids.find(d.value("topicId", ""));
            if (it != topic_ids.end()) {
              out->topics.erase(it->second);
              if (auto id = out->ids.find(it->second); id != out->ids.end() && id->second == it->first) out->ids.erase(id);
            }
          } else if (type == "CONFIG_RECORD") {
            const int type_id = d.value("resourceType", 0);
            const std::string name = d.value("resourceName", ""), key = d.value("name", "");
            if (type_id != 2 && !(type_id == 4 && name.empty())) return true;
            auto& m = type_id == 2 ? out->topics[name] : out->broker_defaults;
            if (d.contains("value") && d["value"].is_string()) m[key] = d["value"].get<std::string>();
            else m.erase(key);
          }
          return true;
        });
      }
    }
  }
  std::lock_guard lock(mu_);
  return kraft_.emplace(log_dir, std::move(out)).first->second;  // a racing reader's copy is the same
}

Result<TopicSettings::TopicId> TopicSettings::topic_id(const std::string& topic, const std::string& log_dir) const {
  auto k = kraft(log_dir);
  if (!k.ok()) return k.error();
  TopicId out;
  out.metadata_log = !(*k)->source.empty();
  if (auto it = (*k)->ids.find(topic); it != (*k)->ids.end()) out.id = it->second;
  return out;
}

Result<std::map<std::string, Setting>> TopicSettings::lookup(const std::string& topic, const std::string& log_dir,
                                                               std::span<const SettingKey> keys) const {
  // The KRaft metadata log's own LogConfig is built from its properties alone
  // (KafkaMetadataLog): no broker default, no ConfigRecord reaches it (a
  // --topic-config given for it still does).
  const bool metadata_log = topic == "__cluster_metadata";
  // The metadata log is read only when a key is left to it: with every key on
  // the command line, a log dir whose metadata log cannot be read still runs.
  bool all_given = true;
  for (const SettingKey& key : keys) {
    bool given = false;
    for (const auto& [o, value] : files_.overrides) given = given || o == key.topic;
    all_given = all_given && given;
  }
  static const Kraft kNoKraft;
  std::shared_ptr<const Kraft> kraft_p;
  if (!all_given && !metadata_log) {
    auto kraft_r = kraft(log_dir);
    if (!kraft_r.ok()) return kraft_r.error();
    kraft_p = *kraft_r;
  }
  const Kraft& k = kraft_p ? *kraft_p : kNoKraft;
  static const std::map<std::string, std::string> kNone;
  const auto topic_it = k.topics.find(topic);
  const auto& kraft_topic = topic_it == k.topics.end() ? kNone : topic_it->second;
  const Internal* internal = nullptr;
  for (const auto& i : kInternal)
    if (topic == i.topic) internal = &i;
  const std::string& broker_file_name = files_.broker_config_file;
  std::map<std::string, Setting> out;
  for (const SettingKey& key : keys) {
    const std::string name = key.topic;
    Setting v{key.fallback, "default"};
    if (key.broker && !metadata_log) {
      auto b = broker_value(broker_file_, key.broker, true);
      if (!b.ok()) return b.error().in(broker_file_name);
      if (*b) v = {(*b)->first, fmt::format("{} ({})", broker_file_name, (*b)->second)};
    }
    if (key.broker) {
      auto b = broker_value(k.broker_defaults, key.broker, false);
      if (!b.ok()) return b.error().in(k.source);
      if (*b) v = {(*b)->first, fmt::format("KRaft metadata {} (cluster default {})", k.source, (*b)->second)};
    }
    if (!key.broker_only) {
      if (internal && name == "cleanup.policy") v = {"compact", fmt::format("{} is compacted by Kafka", topic)};
      if (internal && name == "segment.bytes") {
        v = {"104857600", fmt::format("{}'s default ({})", topic, internal->segment_key)};
        if (broker_file_.count(internal->segment_key))
          v = {broker_file_.at(internal->segment_key), fmt::format("{} ({})", broker_file_name, internal->segment_key)};
      }
      if (kraft_topic.count(name)) v = {kraft_topic.at(name), fmt::format("KRaft metadata {}", k.source)};
      if (topic_file_.count(name)) v = {topic_file_.at(name), fmt::format("topic config {}", files_.topic_config_file)};
    }
    for (const auto& [o, value] : files_.overrides)
      if (o == name) v = {value, "command line"};
    out[name] = std::move(v);
  }
  return out;
}

Result<std::map<std::string, Setting>> TopicSettings::lookup_partition(const std::string& dir,
                                                                         std::span<const SettingKey> keys) const {
  std::error_code ec;
  const fs::path given(dir), canonical = fs::weakly_canonical(given, ec);
  const fs::path path = ec ? given : canonical;
  auto tp = file_names::parse_partition_dir_name(path.filename().string());
  const std::string log_dir = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  return lookup(tp.ok() ? tp->topic : std::string(), log_dir, keys);
}

std::optional<Setting> TopicSettings::given(const std::string& name) const {
  std::optional<Setting> v;
  if (topic_file_.count(name)) v = Setting{topic_file_.at(name), fmt::format("topic config {}", files_.topic_config_file)};
  for (const auto& [o, value] : files_.overrides)
    if (o == name) v = Setting{value, "command line"};
  return v;
}

Result<int64_t> setting_number(const std::map<std::string, Setting>& s, const std::string& key, int64_t min,
                               int64_t max) {
  const Setting& v = s.at(key);
  auto n = properties::parse_number(properties::trim(v.value), min, max);
  if (!n.ok())
    return Error{Errc::usage, std::nullopt, fmt::format("{} = '{}' ({}): {}", key, v.value, v.source, n.error().message)};
  return *n;
}

std::vector<std::string> describe_settings(const std::map<std::string, Setting>& s) {
  std::vector<std::string> out;
  for (const auto& [k, v] : s) out.push_back(fmt::format("{} = {} ({})", k, v.value, v.source));
  return out;
}

std::string settings_line(const std::map<std::string, Setting>& s) {
  std::string line;
  for (const auto& u : describe_settings(s)) {
    if (!line.empty()) line += "; ";
    line += u;
  }
  return line;
}

nlohmann::json settings_json(const std::map<std::string, Setting>& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : s) j[k] = {{"value", v.value}, {"source", v.source}};
  return j;
}

namespace {

Status apply_index_settings(const Result<std::map<std::string, Setting>>& found, recover::Config& config,
                            std::map<std::string, Setting>* used) {
  if (!found.ok()) return found.error();
  // Kafka's LogConfig: both INT, atLeast(4) and atLeast(0).
  auto index_bytes = setting_number(*found, "segment.index.bytes", 4, INT32_MAX);
  if (!index_bytes.ok()) return index_bytes.error();
  auto interval = setting_number(*found, "index.interval.bytes", 0, INT32_MAX);
  if (!interval.ok()) return interval.error();
  config.segment_index_bytes = static_cast<int32_t>(*index_bytes);
  config.index_interval_bytes = static_cast<int32_t>(*interval);
  if (used) *used = *found;
  return {};
}

}  // namespace

Status index_settings(const TopicSettings& settings, const std::string& dir, recover::Config& config,
                      std::map<std::string, Setting>* used) {
  return apply_index_settings(settings.lookup_partition(dir, kIndexSettingKeys), config, used);
}

Status index_settings(const TopicSettings& settings, const std::string& topic, const std::string& log_dir,
                      recover::Config& config) {
  return apply_index_settings(settings.lookup(topic, log_dir, kIndexSettingKeys), config, nullptr);
}

}  // namespace kseg
