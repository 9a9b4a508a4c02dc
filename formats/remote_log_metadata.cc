// SPDX-License-Identifier: Apache-2.0
#include "formats/remote_log_metadata.h"

#include <climits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "formats/message_reader.h"

namespace kseg::remote_log_metadata {

namespace {

Error fail(std::string message) { return Error{Errc::bad_value, std::nullopt, std::move(message)}; }

const char* segment_state(int8_t s) {
  static constexpr const char* kNames[] = {"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED",
                                           "DELETE_SEGMENT_FINISHED"};
  return s >= 0 && s < 4 ? kNames[s] : nullptr;
}

const char* partition_delete_state(int8_t s) {
  static constexpr const char* kNames[] = {"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED",
                                           "DELETE_PARTITION_FINISHED"};
  return s >= 0 && s < 3 ? kNames[s] : nullptr;
}

// Reads the record bodies as the generated readers do (Kafka 4.4); any
// failure is one of them throwing.
struct Body {
  MessageReader m;
  int16_t version = 0;
  bool bad = false;
  schema::UnknownTags unknown;  // tagged fields no reader names

  // A nested struct's read() refuses any version above 0 (the top-level
  // ones do not check).
  void nested() {
    if (version > 0) bad = true;
  }
  std::string string() {
    const uint32_t n1 = m.raw().uvarint();
    if (!m.ok() || n1 == 0 || n1 - 1 > 0x7fff) {  // cut short, null (not nullable), or over Short.MAX_VALUE
      bad = true;
      return {};
    }
    return std::string(as_chars(m.raw().bytes(Length{n1 - 1})));
  }
  // A struct's tagged fields, all unknown here; `path` names the struct.
  void tagged_fields(const std::string& path) {
    const uint32_t count = m.raw().uvarint();
    if (count > 10000) bad = true;
    for (uint32_t i = 0; i < count && ok(); ++i) {
      const uint32_t tag = m.raw().uvarint();
      keep(path, tag, m.raw().uvarint());
    }
  }
  void keep(const std::string& path, uint32_t tag, uint32_t size) {
    const Bytes raw = m.raw().bytes(Length{size});
    if (m.ok()) unknown.add(path, tag, raw);
  }
  // TopicIdPartition.toString(): "<uuid>:<topic>-<partition>".
  std::string topic_id_partition(const std::string& path) {
    nested();
    std::string name = string();
    std::string id = m.uuid();
    const int32_t partition = m.i32();
    tagged_fields(path);
    return fmt::format("{}:{}-{}", id, name, partition);
  }
  std::string segment_id() {
    nested();
    std::string tip = topic_id_partition("remoteLogSegmentId.topicIdPartition");
    std::string id = m.uuid();
    tagged_fields("remoteLogSegmentId");
    return fmt::format("RemoteLogSegmentId{{topicIdPartition={}, id={}}}", tip, id);
  }
  // A TreeMap's toString, in key order; a repeated epoch keeps its last offset (HashMap.put).
  std::string leader_epochs(bool& empty) {
    const int32_t n = m.array_length();
    if (n < 0 || n > 1'000'000) bad = true;  // null (not nullable), or over the readers' limit
    std::map<int32_t, int64_t> epochs;
    for (int32_t i = 0; i < n && ok(); ++i) {
      nested();
      const int32_t epoch = m.i32();
      epochs[epoch] = m.i64();
      tagged_fields(fmt::format("segmentLeaderEpochs[{}]", i));
    }
    empty = epochs.empty();
    std::string out = "{";
    for (const auto& [epoch, offset] : epochs) out += fmt::format("{}{}={}", out.size() > 1 ? ", " : "", epoch, offset);
    return out + "}";
  }
  // Optional<CustomMetadata>.toString().
  std::string custom_metadata() {
    auto b = m.bytes();
    if (!b) {
      if (!m.ok()) bad = true;
      return "Optional.empty";
    }
    return fmt::format("Optional[CustomMetadata{{{} bytes}}]", b->size());
  }
  // The struct's tagged fields; tag 0 is TxnIndexEmpty where the record has
  // it, read as one byte whatever size the field declares (as Kafka does).
  bool tagged_txn_index_empty() {
    bool value = false;
    const uint32_t count = m.raw().uvarint();
    if (count > 10000) bad = true;
    for (uint32_t i = 0; i < count && ok(); ++i) {
      const uint32_t tag = m.raw().uvarint();
      const uint32_t size = m.raw().uvarint();
      if (tag == 0)
        value = m.raw().u8() != 0;
      else
        keep("", tag, size);
    }
    return value;
  }
  bool ok() const { return !bad && m.ok(); }
};

std::string tf(bool b) { return b ? "true" : "false"; }

Result<std::string> segment_metadata(Body& b) {
  const std::string id = b.segment_id();
  const int64_t start = b.m.i64(), end = b.m.i64();
  const int32_t broker = b.m.i32();
  const int64_t max_ts = b.m.i64(), event_ts = b.m.i64();
  bool no_epochs = false;
  const std::string epochs = b.leader_epochs(no_epochs);
  const int32_t size = b.m.i32();
  const std::string custom = b.custom_metadata();
  const int8_t state = b.m.i8();
  const bool txn_empty = b.tagged_txn_index_empty();
  if (!b.ok()) return Error{Errc::truncated, std::nullopt, ""};
  // RemoteLogSegmentMetadata's constructor, then the update carrying the state.
  if (start < 0)
    return fail(fmt::format("Unexpected start offset = {}. StartOffset for a remote segment cannot be negative", start));
  if (end < start)
    return fail(fmt::format("Unexpected end offset = {}. EndOffset for a remote segment cannot be less than "
                            "startOffset = {}", end, start));
  if (no_epochs) return fail("segmentLeaderEpochs can not be null or empty");
  if (!segment_state(state)) return fail("state can not be null");
  return fmt::format("RemoteLogSegmentMetadata{{remoteLogSegmentId={}, startOffset={}, endOffset={}, brokerId={}, "
                     "maxTimestampMs={}, eventTimestampMs={}, segmentLeaderEpochs={}, segmentSizeInBytes={}, "
                     "customMetadata={}, state={}, txnIdxEmpty={}}}",
                     id, start, end, broker, max_ts, event_ts, epochs, size, custom, segment_state(state), tf(txn_empty));
}

Result<std::string> segment_update(Body& b) {
  const std::string id = b.segment_id();
  const int32_t broker = b.m.i32();
  const int64_t event_ts = b.m.i64();
  const std::string custom = b.custom_metadata();
  const int8_t state = b.m.i8();
  b.tagged_fields("");
  if (!b.ok()) return Error{Errc::truncated, std::nullopt, ""};
  if (!segment_state(state)) return fail("state can not be null");
  return fmt::format("RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={}, customMetadata={}, state={}, "
                     "eventTimestampMs={}, brokerId={}}}",
                     id, custom, segment_state(state), event_ts, broker);
}

Result<std::string> partition_delete(Body& b) {
  const std::string tip = b.topic_id_partition("topicIdPartition");
  const int32_t broker = b.m.i32();
  const int64_t event_ts = b.m.i64();
  const int8_t state = b.m.i8();
  b.tagged_fields("");
  if (!b.ok()) return Error{Errc::truncated, std::nullopt, ""};
  if (!partition_delete_state(state)) return fail("null");  // Objects.requireNonNull without a message
  return fmt::format("RemotePartitionDeleteMetadata{{topicPartition={}, state={}, eventTimestampMs={}, brokerId={}}}",
                     tip, partition_delete_state(state), event_ts, broker);
}

Result<std::string> segment_snapshot(Body& b) {
  const std::string id = b.m.uuid();
  const int64_t start = b.m.i64(), end = b.m.i64();
  (void)b.m.i32();  // brokerId: not in the snapshot's toString
  const int64_t max_ts = b.m.i64();
  (void)b.m.i64();  // eventTimestampMs: likewise
  bool no_epochs = false;
  const std::string epochs = b.leader_epochs(no_epochs);
  const int32_t size = b.m.i32();
  const std::string custom = b.custom_metadata();
  const int8_t state = b.m.i8();
  const bool txn_empty = b.tagged_txn_index_empty();
  if (!b.ok()) return Error{Errc::truncated, std::nullopt, ""};
  if (!segment_state(state)) return fail("state can not be null");
  if (no_epochs) return fail("segmentLeaderEpochs can not be null or empty");
  return fmt::format("RemoteLogSegmentMetadataSnapshot{{segmentId={}, startOffset={}, endOffset={}, maxTimestampMs={}, "
                     "segmentLeaderEpochs={}, segmentSizeInBytes={}, customMetadata={}, state={}, txnIdxEmpty={}}}",
                     id, start, end, max_ts, epochs, size, custom, segment_state(state), tf(txn_empty));
}

}  // namespace

Result<std::string> describe(Bytes value, schema::UnknownTags* unknown) {
  ByteReader r(value, Position{0});
  // AbstractApiMessageSerde.read: each varint read as a Java int, refused
  // above Short.MAX_VALUE, then cast to a short (a value past 2^31 reads
  // as negative, passes, and keeps its low 16 bits).
  auto header = [&](const char* what) -> Result<int32_t> {
    const auto v = static_cast<int32_t>(r.uvarint());
    if (!r.ok()) return fail(fmt::format("Error while reading {}", what));
    if (v > SHRT_MAX) return fail(fmt::format("Value for {} was too large.", what));
    return static_cast<int16_t>(v);
  };
  KSEG_ASSIGN_OR_RETURN(const int32_t frame, header("frame version"));
  if (frame == 0)
    return fail("Could not deserialize metadata record with frame version 0. Note that upgrades from the preview "
                "release of KRaft in 2.8 to newer versions are not supported.");
  if (frame != 1)
    return fail(fmt::format("Could not deserialize metadata record due to unknown frame version {}(only frame "
                            "version 1 is supported)", frame));
  KSEG_ASSIGN_OR_RETURN(const int32_t type, header("type"));
  KSEG_ASSIGN_OR_RETURN(const int32_t version, header("version"));
  if (type < 0 || type > 3)
    return fail(fmt::format("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {}", type));
  const size_t at = static_cast<size_t>((r.position() - Position{0}).bytes);
  Body b{MessageReader(value.subspan(at), true), static_cast<int16_t>(version), false, {}};
  b.unknown.keep = unknown ? unknown->keep : 0;
  Result<std::string> out = type == 0   ? segment_metadata(b)
                            : type == 1 ? segment_update(b)
                            : type == 2 ? partition_delete(b)
                                        : segment_snapshot(b);
  if (!out.ok() && out.error().code == Errc::truncated)
    return fail(fmt::format("Failed to deserialize record with type {}", type));
  // Kafka checks for bytes left over before it builds the object.
  if (const auto left = b.m.raw().remaining().bytes; left > 0 && (out.ok() || out.error().code != Errc::truncated))
    return fail(fmt::format("Found {} byte(s) of garbage after {}", left, type));
  if (out.ok() && unknown) *unknown = std::move(b.unknown);
  return out;
}

}  // namespace kseg::remote_log_metadata
