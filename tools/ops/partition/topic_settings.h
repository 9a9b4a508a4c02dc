// SPDX-License-Identifier: Apache-2.0
// A topic's settings as the broker that wrote it has them, found rather than
// guessed, and where each value came from. Every tool that depends on a
// setting asks here: compact (its cleaning), reindex (index.interval.bytes,
// segment.index.bytes), truncate --retention (retention.ms, retention.bytes). Last wins, as Kafka layers them:
//   1. Kafka's default;
//   2. --broker-config (a server.properties: the log.* default);
//   3. the cluster's dynamic broker defaults in the log dir's KRaft metadata
//      log (__cluster_metadata-0: ConfigRecords of the default broker);
//   4. an internal topic's own config (__consumer_offsets and the like);
//   5. the topic's ConfigRecords in that metadata log;
//   6. --topic-config (a properties file of the topic's configs);
//   7. the command line.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/segment_recover.h"
#include "lib/status.h"

namespace kseg {

struct Setting {
  std::string value;
  std::string source;  // "default", "command line", "topic config <file>", "KRaft metadata <dir>", ...
};

// A setting a tool reads: its topic-level name, the broker setting that is
// its default (nullptr: none), Kafka's default; broker-level settings (the
// cleaner's) are looked up by `broker` name only.
struct SettingKey {
  const char* topic;
  const char* broker;
  const char* fallback;
  bool broker_only = false;
};

// The settings of a segment's indexes (Kafka 4.4's LogConfig), with their
// broker defaults: what reindex rebuilds them with and compact writes.
extern const SettingKey kIndexSettingKeys[2];
// retention.ms (its broker default log.retention.ms, .minutes or .hours,
// 168 hours when none is set) and retention.bytes: what kseg-truncate
// --retention applies.
extern const SettingKey kRetentionSettingKeys[2];

// A topic Kafka creates with a config of its own (compacted, 100 MiB segments).
bool internal_topic(const std::string& topic);

struct SettingsFiles {
  std::string topic_config_file;   // --topic-config ("" none)
  std::string broker_config_file;  // --broker-config ("" none)
  std::vector<std::pair<std::string, std::string>> overrides;  // the command line, last wins
};

class TopicSettings {
 public:
  // Reads the files given: one that cannot be read is an error (io), never
  // Kafka's defaults in its place (formats/properties.h).
  static Result<std::shared_ptr<TopicSettings>> open(SettingsFiles files);

  // `keys` for `topic` of log dir `log_dir` (each log dir's metadata log is
  // read once, whoever asks, and not at all when the command line sets every
  // key; safe from several threads). The metadata log's own partition
  // (__cluster_metadata) takes Kafka's defaults, --topic-config and the
  // command line only.
  Result<std::map<std::string, Setting>> lookup(const std::string& topic, const std::string& log_dir,
                                                std::span<const SettingKey> keys) const;

  // The same for the partition directory `dir` (its topic and log dir from
  // its path; "." inside a partition names it).
  Result<std::map<std::string, Setting>> lookup_partition(const std::string& dir, std::span<const SettingKey> keys) const;

  // The topic id the log dir's KRaft metadata log gives `topic` (its
  // TopicRecord, unless removed since), read with the settings.
  struct TopicId {
    bool metadata_log = false;      // the log dir holds __cluster_metadata-0
    std::optional<std::string> id;  // none: no such live topic there
  };
  Result<TopicId> topic_id(const std::string& topic, const std::string& log_dir) const;

  // A key without a default, only where the command line or --topic-config
  // sets it (Kafka's test-only internal.segment.bytes).
  std::optional<Setting> given(const std::string& name) const;

  const SettingsFiles& files() const { return files_; }

 private:
  struct Kraft;
  Result<std::shared_ptr<const Kraft>> kraft(const std::string& log_dir) const;
  SettingsFiles files_;
  std::map<std::string, std::string> topic_file_, broker_file_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<const Kraft>> kraft_;  // by log dir
};

// A setting's value as Kafka's ConfigDef reads an INT or LONG: trimmed,
// decimal, within [min, max]; Errc::usage naming the key, value and source.
Result<int64_t> setting_number(const std::map<std::string, Setting>& s, const std::string& key, int64_t min,
                               int64_t max);

// The index.interval.bytes and segment.index.bytes of the topic of the
// partition at `dir`, as its broker has them (the settings above:
// the log dir's metadata log, the files and command line given), into
// `config`; Errc::usage for a value that is not a decimal whole number
// within Kafka's range for the key. `used`: the values and their sources.
Status index_settings(const TopicSettings& settings, const std::string& dir, recover::Config& config,
                      std::map<std::string, Setting>* used = nullptr);
// The same for a partition whose topic and log dir are known (a loaded one).
Status index_settings(const TopicSettings& settings, const std::string& topic, const std::string& log_dir,
                      recover::Config& config);

// "key = value (source)" lines.
std::vector<std::string> describe_settings(const std::map<std::string, Setting>& s);
// The same on one line, "; " between them: the writers' "<dir>: settings: ..." line.
std::string settings_line(const std::map<std::string, Setting>& s);
// {key: {"value", "source"}}: the settings object of every JSON report.
nlohmann::json settings_json(const std::map<std::string, Setting>& s);

}  // namespace kseg
