// SPDX-License-Identifier: Apache-2.0
#include "formats/control.h"

#include <fmt/format.h>

#include "formats/message_reader.h"
#include "lib/byte_writer.h"

namespace kseg::control {

const char* type_name(int16_t type) {
  switch (type) {
    case 0: return "ABORT";
    case 1: return "COMMIT";
    case 2: return "LEADER_CHANGE";
    case 3: return "SNAPSHOT_HEADER";
    case 4: return "SNAPSHOT_FOOTER";
    case 5: return "KRAFT_VERSION";
    case 6: return "KRAFT_VOTERS";
    default: return "UNKNOWN";
  }
}

Result<Key> decode_key(const v2::Blob& key) {
  if (key.null || key.bytes.size() < 4)
    return Error{Errc::bad_length, std::nullopt,
                 fmt::format("control record key must have at least 4 bytes, found {}", key.null ? 0 : key.bytes.size())};
  Key k;
  k.version = static_cast<int16_t>(load_be16(key.bytes.data()));
  k.type = static_cast<int16_t>(load_be16(key.bytes.data() + 2));
  if (k.version < 0)
    return Error{Errc::bad_value, std::nullopt, fmt::format("invalid negative control record key version {}", k.version)};
  return k;
}

Result<EndTxnMarker> decode_end_txn_marker(const v2::Blob& value) {
  if (value.null || value.bytes.size() < 6)
    return Error{Errc::bad_length, std::nullopt,
                 fmt::format("end transaction marker value must have at least 6 bytes, found {}",
                             value.null ? 0 : value.bytes.size())};
  EndTxnMarker m;
  m.version = static_cast<int16_t>(load_be16(value.bytes.data()));
  m.coordinator_epoch = static_cast<int32_t>(load_be32(value.bytes.data() + 2));
  if (m.version < 0)
    return Error{Errc::bad_value, std::nullopt, fmt::format("invalid negative end transaction marker version {}", m.version)};
  return m;
}

std::vector<uint8_t> encode_key(const Key& key) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.i16(key.version);
  w.i16(key.type);
  return out;
}

std::vector<uint8_t> encode_end_txn_marker(const EndTxnMarker& marker) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.i16(marker.version);
  w.i32(marker.coordinator_epoch);
  return out;
}

namespace {

// Version-0 flexible messages of the KRaft control records, as the JSON that
// Kafka's generated converters write (fields in schema order, camelCase).
Result<std::string> kraft_json(Type type, Bytes value) {
  MessageReader m(value, /*flexible=*/true);
  std::string j;
  switch (type) {
    case Type::snapshot_header: {
      const int16_t version = m.i16();
      const int64_t ts = m.i64();
      j = fmt::format("{{\"version\":{},\"lastContainedLogTimestamp\":{}}}", version, ts);
      break;
    }
    case Type::snapshot_footer: j = fmt::format("{{\"version\":{}}}", m.i16()); break;
    case Type::kraft_version: {
      const int16_t version = m.i16();
      const int16_t kraft = m.i16();
      j = fmt::format("{{\"version\":{},\"kRaftVersion\":{}}}", version, kraft);
      break;
    }
    case Type::kraft_voters: {
      j = fmt::format("{{\"version\":{},\"voters\":[", m.i16());
      const int32_t n = m.array_length();
      for (int32_t i = 0; i < n && m.ok(); ++i) {
        if (i > 0) j += ',';
        const int32_t id = m.i32();
        j += fmt::format("{{\"voterId\":{},\"voterDirectoryId\":\"{}\",\"endpoints\":[", id, m.uuid());
        const int32_t ne = m.array_length();
        for (int32_t e = 0; e < ne && m.ok(); ++e) {
          if (e > 0) j += ',';
          j += "{\"name\":";
          append_json_string(j, m.string().value_or(""));
          j += ",\"host\":";
          append_json_string(j, m.string().value_or(""));
          j += fmt::format(",\"port\":{}}}", m.u16());
          m.tagged_fields();
        }
        const int16_t min_v = m.i16();
        const int16_t max_v = m.i16();
        m.tagged_fields();  // of KRaftVersionFeature
        j += fmt::format("],\"kRaftVersionFeature\":{{\"minSupportedVersion\":{},\"maxSupportedVersion\":{}}}}}",
                         min_v, max_v);
        m.tagged_fields();  // of Voter
      }
      j += "]}";
      break;
    }
    case Type::leader_change: {
      const int16_t version = m.i16();
      const int32_t leader = m.i32();
      j = fmt::format("{{\"version\":{},\"leaderId\":{}", version, leader);
      for (const char* field : {"voters", "grantingVoters"}) {
        j += fmt::format(",\"{}\":[", field);
        const int32_t n = m.array_length();
        for (int32_t i = 0; i < n && m.ok(); ++i) {
          j += fmt::format("{}{{\"voterId\":{}}}", i > 0 ? "," : "", m.i32());
          m.tagged_fields();
        }
        j += ']';
      }
      j += '}';
      break;
    }
    default: return Error{Errc::bad_value, std::nullopt, "not a KRaft control record"};
  }
  m.tagged_fields();
  if (!m.ok())
    return Error{Errc::truncated, std::nullopt, fmt::format("{} value is truncated", type_name(static_cast<int16_t>(type)))};
  return j;
}

}  // namespace

Result<FirstRecord> first_record(const EntryRef& e, const v2::BatchHeader& h, std::vector<uint8_t>& scratch,
                                 size_t max_decompressed) {
  auto records = v2::records_bytes(e, h, scratch, max_decompressed);
  if (!records.ok()) return records.error();
  const Position base = h.codec_id() == 0 ? e.position + Length{v2::kRecordBatchOverhead} : Position{0};
  v2::RecordReader reader(*records, base, h.records_count);
  v2::Record rec;
  if (!reader.next(rec))
    return reader.status().ok() ? Error{Errc::truncated, e.position, "control batch without a record"}
                                : reader.status().error();
  auto key = decode_key(rec.key);
  if (!key.ok()) return key.error();
  return FirstRecord{*key, rec.value, h.record_timestamp(rec.timestamp_delta)};
}

Result<std::string> describe(const v2::Blob& key, const v2::Blob& value) {
  auto k = decode_key(key);
  if (!k.ok()) return k.error();
  const auto type = static_cast<Type>(k->type);
  switch (type) {
    case Type::abort:
    case Type::commit: {
      auto m = decode_end_txn_marker(value);
      if (!m.ok()) return m.error();
      return fmt::format(" endTxnMarker: {} coordinatorEpoch: {}", type_name(k->type), m->coordinator_epoch);
    }
    case Type::leader_change: {
      auto j = kraft_json(type, value.bytes);
      if (!j.ok()) return j.error();
      return fmt::format(" LeaderChange: {}", *j);
    }
    case Type::snapshot_header:
    case Type::snapshot_footer:
    case Type::kraft_version:
    case Type::kraft_voters: {
      static constexpr const char* kLabel[] = {"SnapshotHeader", "SnapshotFooter", "KRaftVersion", "KRaftVoters"};
      auto j = kraft_json(type, value.bytes);
      if (!j.ok()) return j.error();
      return fmt::format(" {} {}", kLabel[k->type - 3], *j);
    }
    default: return fmt::format(" controlType: {}({})", type_name(k->type), k->type);
  }
}

}  // namespace kseg::control
