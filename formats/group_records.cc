// SPDX-License-Identifier: Apache-2.0
// Schemas of the __consumer_offsets records (GroupCoordinatorRecordSerde in
// Kafka 4.4), written as our own compact tables. Field facts (names, order,
// types, versions, tags and defaults) were checked against the 4.4 jars'
// generated readers and JSON converters.
#include "formats/coordinator_records.h"

namespace kseg::coordinator {

namespace {

using namespace schema::tables;
constexpr int16_t kNone = schema::kNever;

// ConsumerProtocolSubscription / ConsumerProtocolAssignment (clients), which
// classic consumer groups keep inside GroupMetadataValue members.
constexpr Field kProtoTopicPartition[] = {F("topic", K::string), A("partitions", K::int32)};
constexpr Struct kProtoTopicPartitionS{kProtoTopicPartition};
constexpr Field kSubscription[] = {
    A("topics", K::string),
    F("userData", K::bytes).nullable(),
    AS("ownedPartitions", &kProtoTopicPartitionS).since(1),
    F("generationId", K::int32).since(2),
    F("rackId", K::string).since(3).nullable(3),
};
constexpr Struct kSubscriptionS{kSubscription};
constexpr Message kSubscriptionM{"ConsumerProtocolSubscription", kNone, &kSubscriptionS};
constexpr Field kAssignment[] = {AS("assignedPartitions", &kProtoTopicPartitionS), F("userData", K::bytes).nullable()};
constexpr Struct kAssignmentS{kAssignment};
constexpr Message kAssignmentM{"ConsumerProtocolAssignment", kNone, &kAssignmentS};

// Keys.
constexpr Field kOffsetKey[] = {F("group", K::string), F("topic", K::string), F("partition", K::int32)};
constexpr Struct kOffsetKeyS{kOffsetKey};
constexpr Message kLegacyOffsetCommitKey{"LegacyOffsetCommitKey", kNone, &kOffsetKeyS};
constexpr Message kOffsetCommitKey{"OffsetCommitKey", kNone, &kOffsetKeyS};
constexpr Field kGroupKey[] = {F("group", K::string)};
constexpr Struct kGroupKeyS{kGroupKey};
constexpr Message kGroupMetadataKey{"GroupMetadataKey", kNone, &kGroupKeyS};
constexpr Field kGroupIdKey[] = {F("groupId", K::string)};
constexpr Struct kGroupIdKeyS{kGroupIdKey};
constexpr Message kGroupIdKeyM{"GroupIdKey", kNone, &kGroupIdKeyS};
constexpr Field kMemberKey[] = {F("groupId", K::string), F("memberId", K::string)};
constexpr Struct kMemberKeyS{kMemberKey};
constexpr Message kMemberKeyM{"MemberKey", kNone, &kMemberKeyS};
constexpr Field kRegexKey[] = {F("groupId", K::string), F("regularExpression", K::string)};
constexpr Struct kRegexKeyS{kRegexKey};
constexpr Message kRegexKeyM{"ConsumerGroupRegularExpressionKey", kNone, &kRegexKeyS};

// Type 0.
constexpr Field kLegacyOffset[] = {F("offset", K::int64), F("metadata", K::string), F("commitTimestamp", K::int64)};
constexpr Struct kLegacyOffsetS{kLegacyOffset};
constexpr Message kLegacyOffsetCommitValue{"LegacyOffsetCommitValue", kNone, &kLegacyOffsetS};

// Type 1.
constexpr Field kOffset[] = {
    F("offset", K::int64),
    F("leaderEpoch", K::int32).since(3),
    F("metadata", K::string),
    F("commitTimestamp", K::int64),
    F("expireTimestamp", K::int64).only(1, 1),
    F("topicId", K::uuid).since(4).tagged(0, "\"AAAAAAAAAAAAAAAAAAAAAA\""),
};
constexpr Struct kOffsetS{kOffset};
constexpr Message kOffsetCommitValue{"OffsetCommitValue", 4, &kOffsetS};

// Type 2.
constexpr Field kMember[] = {
    F("memberId", K::string),
    F("groupInstanceId", K::string).since(3).nullable(3),
    F("clientId", K::string),
    F("clientHost", K::string),
    F("rebalanceTimeout", K::int32).since(1),
    F("sessionTimeout", K::int32),
    F("subscription", K::bytes).holding(&kSubscriptionM),
    F("assignment", K::bytes).holding(&kAssignmentM),
};
constexpr Struct kMemberS{kMember};
constexpr Field kGroup[] = {
    F("protocolType", K::string),
    F("generation", K::int32),
    F("protocol", K::string).nullable(),
    F("leader", K::string).nullable(),
    F("currentStateTimestamp", K::int64).since(2),
    AS("members", &kMemberS),
};
constexpr Struct kGroupS{kGroup};
constexpr Message kGroupMetadataValue{"GroupMetadataValue", 4, &kGroupS};

// Type 3.
constexpr Field kConsumerGroup[] = {F("epoch", K::int32), F("metadataHash", K::int64).tagged(0, "0")};
constexpr Struct kConsumerGroupS{kConsumerGroup};
constexpr Message kConsumerGroupMetadataValue{"ConsumerGroupMetadataValue", 0, &kConsumerGroupS};

// Type 4.
constexpr Field kPartitionMeta[] = {F("partition", K::int32), A("racks", K::string)};
constexpr Struct kPartitionMetaS{kPartitionMeta};
constexpr Field kTopicMeta[] = {F("topicId", K::uuid), F("topicName", K::string), F("numPartitions", K::int32),
                                AS("partitionMetadata", &kPartitionMetaS)};
constexpr Struct kTopicMetaS{kTopicMeta};
constexpr Field kPartitionMetadata[] = {AS("topics", &kTopicMetaS)};
constexpr Struct kPartitionMetadataS{kPartitionMetadata};
constexpr Message kPartitionMetadataValue{"ConsumerGroupPartitionMetadataValue", 0, &kPartitionMetadataS};

// Type 5.
constexpr Field kClassicProtocol[] = {F("name", K::string), F("metadata", K::bytes)};
constexpr Struct kClassicProtocolS{kClassicProtocol};
constexpr Field kClassicMember[] = {F("sessionTimeoutMs", K::int32), AS("supportedProtocols", &kClassicProtocolS)};
constexpr Struct kClassicMemberS{kClassicMember};
constexpr Field kMemberMetadata[] = {
    F("instanceId", K::string).nullable(),
    F("rackId", K::string).nullable(),
    F("clientId", K::string),
    F("clientHost", K::string),
    A("subscribedTopicNames", K::string),
    F("subscribedTopicRegex", K::string).nullable(),
    F("rebalanceTimeoutMs", K::int32),
    F("serverAssignor", K::string).nullable(),
    // Its default is an empty struct, not null: left out of the bytes it is not
    // printed, written as null it prints null (the 4.4 coordinator writes that).
    S("classicMemberMetadata", &kClassicMemberS).nullable().tagged(0, ""),
};
constexpr Struct kMemberMetadataS{kMemberMetadata};
constexpr Message kMemberMetadataValue{"ConsumerGroupMemberMetadataValue", 0, &kMemberMetadataS};

// Types 6 and 7.
constexpr Field kTargetMeta[] = {F("assignmentEpoch", K::int32), F("assignmentTimestamp", K::int64).tagged(0, "0")};
constexpr Struct kTargetMetaS{kTargetMeta};
constexpr Message kTargetMetadataValue{"ConsumerGroupTargetAssignmentMetadataValue", 0, &kTargetMetaS};
constexpr Field kTopicPartition[] = {F("topicId", K::uuid), A("partitions", K::int32)};
constexpr Struct kTopicPartitionS{kTopicPartition};
constexpr Field kTargetMember[] = {AS("topicPartitions", &kTopicPartitionS)};
constexpr Struct kTargetMemberS{kTargetMember};
constexpr Message kTargetMemberValue{"ConsumerGroupTargetAssignmentMemberValue", 0, &kTargetMemberS};

// Type 8.
constexpr Field kEpochTopicPartition[] = {F("topicId", K::uuid), A("partitions", K::int32),
                                          A("assignmentEpochs", K::int32).nullable().tagged(0, "[]")};
constexpr Struct kEpochTopicPartitionS{kEpochTopicPartition};
constexpr Field kCurrentAssignment[] = {
    F("memberEpoch", K::int32),
    F("previousMemberEpoch", K::int32),
    F("state", K::int8),
    AS("assignedPartitions", &kEpochTopicPartitionS),
    AS("partitionsPendingRevocation", &kEpochTopicPartitionS),
};
constexpr Struct kCurrentAssignmentS{kCurrentAssignment};
constexpr Message kCurrentAssignmentValue{"ConsumerGroupCurrentMemberAssignmentValue", 0, &kCurrentAssignmentS};

// Type 16.
constexpr Field kRegex[] = {A("topics", K::string), F("version", K::int64), F("timestamp", K::int64)};
constexpr Struct kRegexS{kRegex};
constexpr Message kRegexValue{"ConsumerGroupRegularExpressionValue", 0, &kRegexS};

// Share groups (KIP-932), types 10-15.
constexpr Field kShareMember[] = {F("rackId", K::string).nullable(), F("clientId", K::string),
                                  F("clientHost", K::string), A("subscribedTopicNames", K::string)};
constexpr Struct kShareMemberS{kShareMember};
constexpr Message kShareMemberValue{"ShareGroupMemberMetadataValue", 0, &kShareMemberS};
constexpr Field kEpochHash[] = {F("epoch", K::int32), F("metadataHash", K::int64)};
constexpr Struct kEpochHashS{kEpochHash};
constexpr Message kShareMetadataValue{"ShareGroupMetadataValue", 0, &kEpochHashS};
constexpr Message kShareTargetMetadataValue{"ShareGroupTargetAssignmentMetadataValue", 0, &kTargetMetaS};
constexpr Message kShareTargetMemberValue{"ShareGroupTargetAssignmentMemberValue", 0, &kTargetMemberS};
constexpr Field kShareCurrent[] = {F("memberEpoch", K::int32), F("previousMemberEpoch", K::int32), F("state", K::int8),
                                   AS("assignedPartitions", &kTopicPartitionS)};
constexpr Struct kShareCurrentS{kShareCurrent};
constexpr Message kShareCurrentValue{"ShareGroupCurrentMemberAssignmentValue", 0, &kShareCurrentS};
constexpr Field kTopicPartitionsInfo[] = {F("topicId", K::uuid), F("topicName", K::string), A("partitions", K::int32)};
constexpr Struct kTopicPartitionsInfoS{kTopicPartitionsInfo};
constexpr Field kTopicInfo[] = {F("topicId", K::uuid), F("topicName", K::string)};
constexpr Struct kTopicInfoS{kTopicInfo};
constexpr Field kShareStatePartition[] = {AS("initializingTopics", &kTopicPartitionsInfoS),
                                          AS("initializedTopics", &kTopicPartitionsInfoS),
                                          AS("deletingTopics", &kTopicInfoS)};
constexpr Struct kShareStatePartitionS{kShareStatePartition};
constexpr Message kShareStatePartitionValue{"ShareGroupStatePartitionMetadataValue", 0, &kShareStatePartitionS};

// Streams groups (KIP-1071), types 17 and 19-23.
constexpr Field kKeyValue[] = {F("key", K::string), F("value", K::string)};
constexpr Struct kKeyValueS{kKeyValue};
constexpr Field kStreamsMetadata[] = {
    F("epoch", K::int32), F("metadataHash", K::int64), F("validatedTopologyEpoch", K::int32).tagged(0, "-1"),
    AS("lastAssignmentConfigs", &kKeyValueS).nullable().tagged(1, "[]"),  // "default": null reads as empty
    F("storedDescriptionTopologyEpoch", K::int32).tagged(2, "-1"),
    F("failedDescriptionTopologyEpoch", K::int32).tagged(3, "-1")};
constexpr Struct kStreamsMetadataS{kStreamsMetadata};
constexpr Message kStreamsMetadataValue{"StreamsGroupMetadataValue", 0, &kStreamsMetadataS};
constexpr Field kEndpoint[] = {F("host", K::string), F("port", K::uint16)};
constexpr Struct kEndpointS{kEndpoint};
constexpr Field kStreamsMember[] = {
    F("instanceId", K::string).nullable(), F("rackId", K::string).nullable(), F("clientId", K::string),
    F("clientHost", K::string), F("rebalanceTimeoutMs", K::int32), F("topologyEpoch", K::int32),
    F("processId", K::string), S("userEndpoint", &kEndpointS).nullable(), AS("clientTags", &kKeyValueS)};
constexpr Struct kStreamsMemberS{kStreamsMember};
constexpr Message kStreamsMemberValue{"StreamsGroupMemberMetadataValue", 0, &kStreamsMemberS};
constexpr Message kStreamsTargetMetadataValue{"StreamsGroupTargetAssignmentMetadataValue", 0, &kTargetMetaS};
constexpr Field kTaskIds[] = {F("subtopologyId", K::string), A("partitions", K::int32)};
constexpr Struct kTaskIdsS{kTaskIds};
constexpr Field kStreamsTargetMember[] = {AS("activeTasks", &kTaskIdsS), AS("standbyTasks", &kTaskIdsS),
                                          AS("warmupTasks", &kTaskIdsS)};
constexpr Struct kStreamsTargetMemberS{kStreamsTargetMember};
constexpr Message kStreamsTargetMemberValue{"StreamsGroupTargetAssignmentMemberValue", 0, &kStreamsTargetMemberS};
constexpr Field kEpochTaskIds[] = {F("subtopologyId", K::string), A("partitions", K::int32),
                                   A("assignmentEpochs", K::int32).nullable().tagged(0, "[]")};
constexpr Struct kEpochTaskIdsS{kEpochTaskIds};
constexpr Field kStreamsCurrent[] = {
    F("memberEpoch", K::int32), F("previousMemberEpoch", K::int32), F("state", K::int8),
    AS("activeTasks", &kEpochTaskIdsS), AS("standbyTasks", &kEpochTaskIdsS), AS("warmupTasks", &kEpochTaskIdsS),
    AS("activeTasksPendingRevocation", &kEpochTaskIdsS), AS("standbyTasksPendingRevocation", &kEpochTaskIdsS),
    AS("warmupTasksPendingRevocation", &kEpochTaskIdsS)};
constexpr Struct kStreamsCurrentS{kStreamsCurrent};
constexpr Message kStreamsCurrentValue{"StreamsGroupCurrentMemberAssignmentValue", 0, &kStreamsCurrentS};
constexpr Field kTopicConfig[] = {F("key", K::string), F("value", K::string)};
constexpr Struct kTopicConfigS{kTopicConfig};
constexpr Field kStreamsTopicInfo[] = {F("name", K::string), F("partitions", K::int32),
                                       F("replicationFactor", K::int16), AS("topicConfigs", &kTopicConfigS)};
constexpr Struct kStreamsTopicInfoS{kStreamsTopicInfo};
constexpr Field kCopartitionGroup[] = {A("sourceTopics", K::int16), A("sourceTopicRegex", K::int16),
                                       A("repartitionSourceTopics", K::int16)};
constexpr Struct kCopartitionGroupS{kCopartitionGroup};
constexpr Field kSubtopology[] = {
    F("subtopologyId", K::string), A("sourceTopics", K::string), A("sourceTopicRegex", K::string),
    AS("stateChangelogTopics", &kStreamsTopicInfoS), A("repartitionSinkTopics", K::string),
    AS("repartitionSourceTopics", &kStreamsTopicInfoS), AS("copartitionGroups", &kCopartitionGroupS)};
constexpr Struct kSubtopologyS{kSubtopology};
constexpr Field kTopology[] = {F("epoch", K::int32), AS("subtopologies", &kSubtopologyS)};
constexpr Struct kTopologyS{kTopology};
constexpr Message kTopologyValue{"StreamsGroupTopologyValue", 0, &kTopologyS};

// Every type GroupCoordinatorRecordSerde accepts in 4.4, with its value
// version range (the fields from the 4.4 jar's common/message/*.json,
// checked by the record-types corpus case).
constexpr RecordType kTypes[] = {
    {0, &kLegacyOffsetCommitKey, &kLegacyOffsetCommitValue, 0, 0},
    {1, &kOffsetCommitKey, &kOffsetCommitValue, 0, 4},
    {2, &kGroupMetadataKey, &kGroupMetadataValue, 0, 4},
    {3, &kGroupIdKeyM, &kConsumerGroupMetadataValue, 0, 0},
    {4, &kGroupIdKeyM, &kPartitionMetadataValue, 0, 0},
    {5, &kMemberKeyM, &kMemberMetadataValue, 0, 0},
    {6, &kGroupIdKeyM, &kTargetMetadataValue, 0, 0},
    {7, &kMemberKeyM, &kTargetMemberValue, 0, 0},
    {8, &kMemberKeyM, &kCurrentAssignmentValue, 0, 0},
    {10, &kMemberKeyM, &kShareMemberValue, 0, 0},
    {11, &kGroupIdKeyM, &kShareMetadataValue, 0, 0},
    {12, &kGroupIdKeyM, &kShareTargetMetadataValue, 0, 0},
    {13, &kMemberKeyM, &kShareTargetMemberValue, 0, 0},
    {14, &kMemberKeyM, &kShareCurrentValue, 0, 0},
    {15, &kGroupIdKeyM, &kShareStatePartitionValue, 0, 0},
    {16, &kRegexKeyM, &kRegexValue, 0, 0},
    {17, &kGroupIdKeyM, &kStreamsMetadataValue, 0, 0},
    {19, &kMemberKeyM, &kStreamsMemberValue, 0, 0},
    {20, &kGroupIdKeyM, &kStreamsTargetMetadataValue, 0, 0},
    {21, &kMemberKeyM, &kStreamsTargetMemberValue, 0, 0},
    {22, &kMemberKeyM, &kStreamsCurrentValue, 0, 0},
    {23, &kGroupIdKeyM, &kTopologyValue, 0, 0},
};

}  // namespace

std::span<const RecordType> group_record_types() { return kTypes; }

}  // namespace kseg::coordinator
