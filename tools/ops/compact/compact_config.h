// SPDX-License-Identifier: Apache-2.0
// The settings one cleaning round depends on, found rather than guessed, and
// where each came from: an override on the command line, the topic's config
// file, the topic's configs in the KRaft metadata log, Kafka's built-in
// config of an internal topic, the broker's server.properties (its log.*
// default) or the cluster's dynamic broker defaults, or Kafka's default.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lib/status.h"
#include "tools/ops/compact/compact.h"
#include "tools/ops/partition/topic_settings.h"

namespace kseg::compact {

// The topic's cleanup.policy: whether the cleaner compacts it, retention deletes from it.
inline constexpr SettingKey kCleanupPolicyKey{"cleanup.policy", "log.cleanup.policy", "delete"};

struct Settings {
  std::map<std::string, Setting> all;  // every key the round uses, by its topic (or broker) name
  std::string cleanup_policy;
  int64_t delete_retention_ms = 0;
  int64_t min_compaction_lag_ms = 0;
  int64_t segment_bytes = 0;  // internal.segment.bytes when set (Kafka's test-only override)
  int64_t segment_index_bytes = 0;
  int64_t index_interval_bytes = 0;
  int64_t offset_map_bytes = 0;  // min(dedupe buffer / cleaner threads, INT32_MAX)
  // The map's size was given (--offset-map-bytes, or the cleaner's settings
  // by a broker config, the metadata log or --config): rounds fall where that
  // broker's would. Otherwise kseg-compact sizes it from --memory and cleans
  // the whole dirty section in one round (compact_spill.h).
  bool map_given = false;
  double load_factor = 0;
  double min_cleanable_ratio = 0.5;  // the cleaner picks a log whose dirty ratio is above it
  bool compacts() const { return cleanup_policy.find("compact") != std::string::npos; }
};

// Resolves the settings of `topic` of log dir `log_dir`, from (last wins)
// Kafka's defaults, --broker-config, the cluster-wide broker defaults and the
// topic's configs in a KRaft metadata log held by log_dir
// (__cluster_metadata-0), an internal topic's own config, --topic-config and
// the command line. Fails (io) on a config file that cannot be read (see
// formats/properties.h), (usage) on a value that is no decimal whole number
// within the range Kafka gives the key.
Result<Settings> resolve(const CompactOptions& options, const std::string& topic, const std::string& log_dir);
// The same through settings already open; `overrides`: the command line's
// keys, each of which must be one the cleaner uses.
Result<Settings> resolve(const TopicSettings& settings, std::span<const std::pair<std::string, std::string>> overrides,
                         const std::string& topic, const std::string& log_dir);

// Lines "key = value (source)" for the plan.
std::vector<std::string> describe(const Settings& s);

}  // namespace kseg::compact
