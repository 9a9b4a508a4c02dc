// SPDX-License-Identifier: Apache-2.0
// Schemas of the KRaft metadata records of Kafka 4.4 (all flexible from
// version 0), written as our own compact tables and checked against the 4.4
// jar's generated readers and JSON converters.
#include "formats/metadata_records.h"

#include <fmt/format.h>

#include <optional>

namespace kseg::metadata {

namespace {

using namespace schema::tables;

// A struct nested in a record (no message of its own), and a record.
#define KSEG_STRUCT(var, ...)                       \
  constexpr Field var##Fields[] = {__VA_ARGS__};    \
  constexpr Struct var##Struct{var##Fields}
#define KSEG_MESSAGE(var, name, ...)                \
  KSEG_STRUCT(var, __VA_ARGS__);                    \
  constexpr Message var{name, 0, &var##Struct}

KSEG_STRUCT(kEndpoint, F("name", K::string), F("host", K::string), F("port", K::uint16),
            F("securityProtocol", K::int16));
KSEG_STRUCT(kFeature, F("name", K::string), F("minSupportedVersion", K::int16), F("maxSupportedVersion", K::int16));

KSEG_MESSAGE(kRegisterBroker, "RegisterBrokerRecord", F("brokerId", K::int32),
             F("isMigratingZkBroker", K::boolean).since(2), F("incarnationId", K::uuid), F("brokerEpoch", K::int64),
             AS("endPoints", &kEndpointStruct), AS("features", &kFeatureStruct), F("rack", K::string).nullable(),
             F("fenced", K::boolean), F("inControlledShutdown", K::boolean).since(1),
             A("logDirs", K::uuid).since(3).tagged(0, "[]"), A("cordonedLogDirs", K::uuid).since(4).nullable(4).tagged(1, "null"));
KSEG_MESSAGE(kUnregisterBroker, "UnregisterBrokerRecord", F("brokerId", K::int32), F("brokerEpoch", K::int64));
KSEG_MESSAGE(kTopic, "TopicRecord", F("name", K::string), F("topicId", K::uuid));
KSEG_MESSAGE(kPartition, "PartitionRecord", F("partitionId", K::int32), F("topicId", K::uuid),
             A("replicas", K::int32), A("isr", K::int32), A("removingReplicas", K::int32),
             A("addingReplicas", K::int32), F("leader", K::int32), F("leaderRecoveryState", K::int8).tagged(0, "0"),
             F("leaderEpoch", K::int32), F("partitionEpoch", K::int32), A("directories", K::uuid).since(1),
             A("eligibleLeaderReplicas", K::int32).since(2).nullable(2).tagged(1, "null"),
             A("lastKnownElr", K::int32).since(2).nullable(2).tagged(2, "null"));
KSEG_MESSAGE(kConfig, "ConfigRecord", F("resourceType", K::int8), F("resourceName", K::string), F("name", K::string),
             F("value", K::string).nullable());
KSEG_MESSAGE(kPartitionChange, "PartitionChangeRecord", F("partitionId", K::int32), F("topicId", K::uuid),
             A("isr", K::int32).nullable().tagged(0, "null"), F("leader", K::int32).tagged(1, "-2"),
             A("replicas", K::int32).nullable().tagged(2, "null"),
             A("removingReplicas", K::int32).nullable().tagged(3, "null"),
             A("addingReplicas", K::int32).nullable().tagged(4, "null"),
             F("leaderRecoveryState", K::int8).tagged(5, "-1"),
             A("directories", K::uuid).since(1).nullable(1).tagged(8, "null"),
             A("eligibleLeaderReplicas", K::int32).since(2).nullable(2).tagged(6, "null"),
             A("lastKnownElr", K::int32).since(2).nullable(2).tagged(7, "null"));
KSEG_MESSAGE(kFenceBroker, "FenceBrokerRecord", F("id", K::int32), F("epoch", K::int64));
KSEG_MESSAGE(kUnfenceBroker, "UnfenceBrokerRecord", F("id", K::int32), F("epoch", K::int64));
KSEG_MESSAGE(kRemoveTopic, "RemoveTopicRecord", F("topicId", K::uuid));
KSEG_MESSAGE(kFeatureLevel, "FeatureLevelRecord", F("name", K::string), F("featureLevel", K::int16));
KSEG_STRUCT(kEntity, F("entityType", K::string), F("entityName", K::string).nullable());
KSEG_MESSAGE(kClientQuota, "ClientQuotaRecord", AS("entity", &kEntityStruct), F("key", K::string),
             F("value", K::float64), F("remove", K::boolean));
KSEG_MESSAGE(kProducerIds, "ProducerIdsRecord", F("brokerId", K::int32), F("brokerEpoch", K::int64),
             F("nextProducerId", K::int64));
KSEG_MESSAGE(kBrokerRegistrationChange, "BrokerRegistrationChangeRecord", F("brokerId", K::int32),
             F("brokerEpoch", K::int64), F("fenced", K::int8).tagged(0, "0"),
             F("inControlledShutdown", K::int8).since(1).tagged(1, "0"),
             A("logDirs", K::uuid).since(2).tagged(2, "[]"), A("cordonedLogDirs", K::uuid).since(3).nullable(3).tagged(3, "null"));
KSEG_MESSAGE(kAccessControlEntry, "AccessControlEntryRecord", F("id", K::uuid), F("resourceType", K::int8),
             F("resourceName", K::string), F("patternType", K::int8), F("principal", K::string),
             F("host", K::string), F("operation", K::int8), F("permissionType", K::int8));
KSEG_MESSAGE(kRemoveAccessControlEntry, "RemoveAccessControlEntryRecord", F("id", K::uuid));
constexpr Struct kNoOpStruct{};  // no fields: a zero-length array is not C++
constexpr Message kNoOp{"NoOpRecord", 0, &kNoOpStruct};
KSEG_MESSAGE(kZkMigrationState, "ZkMigrationStateRecord", F("zkMigrationState", K::int8));
KSEG_MESSAGE(kRegisterController, "RegisterControllerRecord", F("controllerId", K::int32),
             F("incarnationId", K::uuid), F("zkMigrationReady", K::boolean), AS("endPoints", &kEndpointStruct),
             AS("features", &kFeatureStruct));
KSEG_MESSAGE(kClearElr, "ClearElrRecord", F("topicName", K::string));
// The controller wraps the bootstrap records (and any batch of records too
// large for one append) in these.
KSEG_MESSAGE(kBeginTransaction, "BeginTransactionRecord", F("name", K::string).nullable().tagged(0, "null"));
constexpr Message kEndTransaction{"EndTransactionRecord", 0, &kNoOpStruct};
KSEG_MESSAGE(kAbortTransaction, "AbortTransactionRecord", F("reason", K::string).nullable().tagged(0, "null"));
KSEG_MESSAGE(kUserScramCredential, "UserScramCredentialRecord", F("name", K::string), F("mechanism", K::int8),
             F("salt", K::bytes), F("storedKey", K::bytes), F("serverKey", K::bytes), F("iterations", K::int32));
KSEG_MESSAGE(kDelegationToken, "DelegationTokenRecord", F("owner", K::string), F("requester", K::string),
             A("renewers", K::string), F("issueTimestamp", K::int64), F("maxTimestamp", K::int64),
             F("expirationTimestamp", K::int64), F("tokenId", K::string));
KSEG_MESSAGE(kRemoveDelegationToken, "RemoveDelegationTokenRecord", F("tokenId", K::string));
KSEG_MESSAGE(kRemoveUserScramCredential, "RemoveUserScramCredentialRecord", F("name", K::string),
             F("mechanism", K::int8));
KSEG_MESSAGE(kUnregisterController, "UnregisterControllerRecord", F("controllerId", K::int32));

#undef KSEG_MESSAGE
#undef KSEG_STRUCT

constexpr RecordType kTypes[] = {
    {0, "REGISTER_BROKER_RECORD", &kRegisterBroker},
    {1, "UNREGISTER_BROKER_RECORD", &kUnregisterBroker},
    {2, "TOPIC_RECORD", &kTopic},
    {3, "PARTITION_RECORD", &kPartition},
    {4, "CONFIG_RECORD", &kConfig},
    {5, "PARTITION_CHANGE_RECORD", &kPartitionChange},
    {7, "FENCE_BROKER_RECORD", &kFenceBroker},
    {8, "UNFENCE_BROKER_RECORD", &kUnfenceBroker},
    {9, "REMOVE_TOPIC_RECORD", &kRemoveTopic},
    {10, "DELEGATION_TOKEN_RECORD", &kDelegationToken},
    {11, "USER_SCRAM_CREDENTIAL_RECORD", &kUserScramCredential},
    {12, "FEATURE_LEVEL_RECORD", &kFeatureLevel},
    {14, "CLIENT_QUOTA_RECORD", &kClientQuota},
    {15, "PRODUCER_IDS_RECORD", &kProducerIds},
    {17, "BROKER_REGISTRATION_CHANGE_RECORD", &kBrokerRegistrationChange},
    {18, "ACCESS_CONTROL_ENTRY_RECORD", &kAccessControlEntry},
    {19, "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", &kRemoveAccessControlEntry},
    {20, "NO_OP_RECORD", &kNoOp},
    {21, "ZK_MIGRATION_STATE_RECORD", &kZkMigrationState},
    {22, "REMOVE_USER_SCRAM_CREDENTIAL_RECORD", &kRemoveUserScramCredential},
    {23, "BEGIN_TRANSACTION_RECORD", &kBeginTransaction},
    {24, "END_TRANSACTION_RECORD", &kEndTransaction},
    {25, "ABORT_TRANSACTION_RECORD", &kAbortTransaction},
    {26, "REMOVE_DELEGATION_TOKEN_RECORD", &kRemoveDelegationToken},
    {27, "REGISTER_CONTROLLER_RECORD", &kRegisterController},
    {28, "CLEAR_ELR_RECORD", &kClearElr},
    {29, "UNREGISTER_CONTROLLER_RECORD", &kUnregisterController},
};

// AbstractApiMessageSerde.unsignedIntToShort.
std::optional<int16_t> frame_field(ByteReader& r, const char* what, Text& out) {
  const uint32_t v = r.uvarint();
  if (!r.ok()) {
    out = {Outcome::kafka_error, fmt::format("Error while reading {}", what)};
    return std::nullopt;
  }
  if (v > 0x7fff) {
    out = {Outcome::kafka_error, fmt::format("Value for {} was too large.", what)};
    return std::nullopt;
  }
  return static_cast<int16_t>(v);
}

}  // namespace

std::span<const RecordType> record_types() { return kTypes; }

Text parse(Bytes value, schema::UnknownTags* unknown) {
  Text out;
  ByteReader r(value, Position{0});
  const auto frame = frame_field(r, "frame version", out);
  if (!frame) return out;
  if (*frame == 0)
    return {Outcome::kafka_error,
            "Could not deserialize metadata record with frame version 0. Note that upgrades from the preview "
            "release of KRaft in 2.8 to newer versions are not supported."};
  if (*frame != 1)
    return {Outcome::kafka_error, fmt::format("Could not deserialize metadata record due to unknown frame version "
                                              "{}(only frame version 1 is supported)", *frame)};
  const auto type = frame_field(r, "type", out);
  if (!type) return out;
  const auto version = frame_field(r, "version", out);
  if (!version) return out;
  const RecordType* t = nullptr;
  for (const RecordType& k : kTypes)
    if (k.id == *type) t = &k;
  if (t == nullptr)  // MetadataParseException(cause): the cause's toString()
    return {Outcome::kafka_error,
            fmt::format("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {}", *type)};
  if (t->message == nullptr)
    return {Outcome::unsupported, fmt::format("metadata record type {} is not supported yet", t->name)};
  const Bytes body = r.rest();
  schema::UnknownTags tags;
  if (unknown) tags.keep = unknown->keep;
  auto d = schema::decode(*t->message, *version, body, schema::Options{.unknown = &tags});
  if (!d.ok()) return {Outcome::kafka_error, fmt::format("Failed to deserialize record with type {}", *type)};
  if (d.value().consumed < body.size())
    return {Outcome::kafka_error,
            fmt::format("Found {} byte(s) of garbage after {}", body.size() - d.value().consumed, *type)};
  out.text = fmt::format("{{\"type\":\"{}\",\"version\":{},\"data\":{}}}", t->name, *version, d.value().json);
  if (unknown) *unknown = std::move(tags);
  return out;
}

}  // namespace kseg::metadata
