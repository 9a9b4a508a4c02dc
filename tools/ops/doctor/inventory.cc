// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/doctor/inventory.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "formats/meta_properties.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/log_dir.h"

namespace kseg::doctor {

namespace fs = std::filesystem;
using file_names::DirKind;

namespace {

InventoryEntry directory(const std::string& name) {
  if (name == "remote-log-index-cache")
    return {name, "tiered_cache", 1, "tiered storage's index cache: Kafka skips it when loading logs", false, false};
  auto parsed = file_names::parse_partition_dir_name(name);
  if (!parsed.ok())
    return {name, "bad_name", 1,
            "not <topic>-<partition>: the broker refuses to start (KafkaException: '" + name +
                "' is not in the form of topic-partition); move it out of the log dir",
            true, true};
  switch (parsed->kind) {
    case DirKind::deleting:
      return {name, "deleting", 1,
              "a deleted partition: Kafka loads it without recovery and deletes it (file.delete.delay.ms after "
              "start-up); its data is no longer needed",
              true, false};
    case DirKind::stray:
      return {name, "stray", 1,
              "a partition Kafka found stray (its topic id not in the metadata, or this broker not a replica): it "
              "keeps it aside, serves none of it, and never deletes it; move its data elsewhere if it is still wanted",
              true, false};
    case DirKind::future:
      return {name, "future", 1,
              "a replica moving between log dirs (kafka-reassign-partitions --reassignment-json-file with log_dirs): "
              "Kafka loads and recovers it like a partition and resumes the move",
              true, false};
    case DirKind::partition: break;
  }
  if (parsed->topic == "__cluster_metadata")
    return {name, "metadata_log", 1, "the KRaft metadata log: the raft layer loads it, not the log manager", false, false};
  return {"<topic>-<partition>", "partition", 1, "partition directories: loaded (see each above)", false, false};
}

InventoryEntry root_file(const std::string& name) {
  if (root_checkpoint_of(name) && name == root_checkpoint_name(*root_checkpoint_of(name)))
    return {name, "checkpoint", 1, "read at start-up (an unreadable one takes the log dir offline)", false, false};
  if (name == kMetaPropertiesFile)
    return {name, "meta_properties", 1, "cluster.id, node.id and directory.id: checked against the broker's", false, false};
  if (name == ".lock") return {name, "lock", 1, "the broker's lock on the log dir (held while it runs)", false, false};
  if (name == kCleanShutdownFile)
    return {name, "clean_shutdown", 1, "the clean-shutdown marker: Kafka deletes it and recovers no partition", false, false};
  if (name == "bootstrap.checkpoint")
    return {name, "bootstrap", 1, "the metadata bootstrap of a KRaft controller's first start", false, false};
  if (name.ends_with(".tmp"))
    return {name, "tmp", 1, "an interrupted checkpoint write: Kafka ignores it and writes the file again", true, false};
  return {name, "unknown", 1, "a file of no kind Kafka knows: it ignores it", true, false};
}

}  // namespace

LogDirInventory take_inventory(const std::string& log_dir) {
  LogDirInventory inv;
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(log_dir, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  InventoryEntry partitions{"<topic>-<partition>", "partition", 0, "partition directories: Kafka loads each", false, false};
  for (const auto& name : names) {
    std::error_code e2;
    const fs::path path = fs::path(log_dir) / name;
    if (fs::is_directory(fs::symlink_status(path, e2)) || (fs::is_symlink(fs::symlink_status(path, e2)) && fs::is_directory(path, e2))) {
      InventoryEntry d = directory(name);
      if (d.kind == "partition") {
        ++partitions.count;
        if (inv.first_partition.empty() && !fs::is_symlink(fs::symlink_status(path, e2))) inv.first_partition = path.string();
      } else inv.entries.push_back(std::move(d));
      continue;
    }
    InventoryEntry f = root_file(name);
    if (f.kind == "clean_shutdown") inv.clean_shutdown = true;
    if (f.kind == "meta_properties") {
      if (auto bytes = MappedFile::read_state_file(path.string()); bytes.ok()) {
        const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        if (auto m = meta_properties::parse(text); m.ok()) {
          inv.cluster_id = m->cluster_id;
          inv.node_id = m->node_id;
        }
      }
    }
    inv.entries.push_back(std::move(f));
  }
  if (partitions.count > 0) inv.entries.insert(inv.entries.begin(), std::move(partitions));
  return inv;
}

}  // namespace kseg::doctor
