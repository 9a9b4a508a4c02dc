// SPDX-License-Identifier: Apache-2.0
// The small text and JSON state files of a partition and a log dir, which
// Kafka's own tool skips as unknown: leader-epoch-checkpoint,
// partition.metadata, quorum-state, the four root offset checkpoints and
// meta.properties. Each is parsed as Kafka reads it (formats/); what does
// not read is the problem kseg-verify reports for it.
#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/meta_properties.h"
#include "formats/partition_metadata.h"
#include "formats/quorum_state.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/partition/log_dir.h"

namespace kseg {

using json = nlohmann::ordered_json;

std::optional<StateFile> state_file_kind(const std::string& name) {
  if (name == "leader-epoch-checkpoint") return StateFile::leader_epochs;
  if (name == "partition.metadata") return StateFile::partition_metadata;
  if (name == "quorum-state") return StateFile::quorum_state;
  if (name == kMetaPropertiesFile) return StateFile::meta_properties;
  if (root_checkpoint_of(name)) return StateFile::offset_checkpoint;
  return std::nullopt;
}

namespace {

const char* kind_name(StateFile k) {
  switch (k) {
    case StateFile::leader_epochs: return "leader_epoch_checkpoint";
    case StateFile::offset_checkpoint: return "offset_checkpoint";
    case StateFile::partition_metadata: return "partition_metadata";
    case StateFile::meta_properties: return "meta_properties";
    case StateFile::quorum_state: return "quorum_state";
  }
  return "unknown";
}

}  // namespace

void Dumper::state_file(const std::string& path, StateFile kind) {
  auto bytes = MappedFile::read_state_file(path);
  if (!bytes.ok()) return io_problem(path, bytes.error().message);
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  const bool as_text = opts_.format == OutputFormat::text;
  if (!as_text) emit({{"type", "file"}, {"file", path}, {"kind", kind_name(kind)}, {"size_bytes", bytes->size()}});
  json obj{{"type", kind_name(kind)}, {"file", path}};
  switch (kind) {
    case StateFile::leader_epochs: {
      auto cp = checkpoint::parse_leader_epoch_checkpoint(text, path);
      if (!cp.ok()) return problem(path, Code::epoch_corrupt, cp.error());
      if (auto st = checkpoint::validate_epoch_entries(*cp); !st.ok()) problem(path, Code::epoch_corrupt, st.error());
      if (as_text) out_.print("version: {} entries: {}\n", checkpoint::kLeaderEpochCheckpointVersion, cp->size());
      obj["version"] = checkpoint::kLeaderEpochCheckpointVersion;
      obj["entries"] = json::array();
      for (const auto& e : *cp) {
        if (as_text) out_.print("epoch: {} startOffset: {}\n", e.epoch, e.start_offset);
        obj["entries"].push_back({{"epoch", e.epoch}, {"start_offset", e.start_offset}});
      }
      break;
    }
    case StateFile::offset_checkpoint: {
      auto cp = checkpoint::parse_offset_checkpoint(text, path);
      if (!cp.ok()) return problem(path, Code::checkpoint_corrupt, cp.error());
      if (as_text) out_.print("version: {} entries: {}\n", checkpoint::kOffsetCheckpointVersion, cp->size());
      obj["version"] = checkpoint::kOffsetCheckpointVersion;
      obj["entries"] = json::array();
      for (const auto& e : *cp) {
        if (as_text) out_.print("topic: {} partition: {} offset: {}\n", e.topic, e.partition, e.offset);
        obj["entries"].push_back({{"topic", e.topic}, {"partition", e.partition}, {"offset", e.offset}});
      }
      break;
    }
    case StateFile::partition_metadata: {
      auto m = partition_metadata::parse(text, path);
      if (!m.ok()) return problem(path, Code::partition_metadata_corrupt, m.error());
      const std::string id = format_kafka_uuid(m->topic_id);
      if (as_text) out_.print("version: {} topicId: {}\n", m->version, id);
      obj["version"] = m->version;
      obj["topic_id"] = id;
      break;
    }
    case StateFile::meta_properties: {
      auto m = meta_properties::parse(text);
      if (!m.ok()) return problem(path, Code::meta_corrupt, m.error());
      obj["properties"] = json::object();
      for (const auto& [k, v] : m->raw.entries) {
        if (as_text) out_.print("{}: {}\n", k, v);
        obj["properties"][k] = v;
      }
      break;
    }
    case StateFile::quorum_state: {
      auto q = quorum_state::parse(text);
      if (!q.ok()) return problem(path, Code::quorum_corrupt, q.error());
      if (as_text) {
        std::string line;
        for (const auto& [k, v] : q->fields.items())
          fmt::format_to(std::back_inserter(line), "{}{}: {}", line.empty() ? "" : " ", k,
                         v.dump(-1, ' ', false, json::error_handler_t::replace));
        out_.print("{}\n", line);
      }
      obj["state"] = q->fields;
      break;
    }
  }
  if (!as_text) emit(obj);
}

}  // namespace kseg
