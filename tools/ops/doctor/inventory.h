// SPDX-License-Identifier: Apache-2.0
// Every entry of a log dir, named for what it is and what Kafka 4.4 does
// with it at start-up (LogManager.loadLogs): partition directories, the
// metadata log, -delete, -stray and -future directories, directories whose
// name Kafka cannot parse (lost+found: the broker refuses to start), the
// root files, and files of no kind Kafka knows. Reads the listing and
// meta.properties only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kseg::doctor {

struct InventoryEntry {
  std::string name;   // the entry's name, or a group's ("<topic>-<partition>")
  std::string kind;   // partition, metadata_log, deleting, stray, future, bad_name, tiered_cache,
                      // checkpoint, meta_properties, lock, clean_shutdown, bootstrap, tmp, unknown
  int64_t count = 1;  // a group's members (partition directories)
  std::string kafka;  // what Kafka does with it
  bool notable = false;       // shown without --verbose
  bool stops_broker = false;  // Kafka's start-up throws on it
};

struct LogDirInventory {
  bool clean_shutdown = false;
  std::vector<InventoryEntry> entries;
  // meta.properties, for the check across a broker's log dirs.
  std::optional<std::string> cluster_id;
  std::optional<int32_t> node_id;
  // The first partition directory (by name; not a link): where --fix keeps
  // the root files it sets aside (safe_write.h keeps a backup in a partition).
  std::string first_partition;
};

LogDirInventory take_inventory(const std::string& log_dir);

}  // namespace kseg::doctor
