// Schemas of the __consumer_offsets records (GroupCoordinatorRecordSerde in
// Kafka 4.4), written as our own compact tables. Field facts (names, order,
// types, versions, tags and defaults) were checked against the 4.4 jars'
// generated readers and JSON converters.
#include "formats/coordinator_records.h"

namespace kseg::coordinator {

namespace {

using schema::A;
using schema::AS;
using schema::F;
using schema::Field;
using schema::Message;
using schema::S;
using schema::Struct;
using K = schema::Kind;
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
    // The converter writes it unless it equals an empty struct; left out of the
    // bytes it reads as null, which it prints (ConsumerGroupMemberMetadataValueJsonConverter).
    S("classicMemberMetadata", &kClassicMemberS).nullable().tagged(0, "").when_absent("null"),
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
                                          A("assignmentEpochs", K::int32).nullable().tagged(0, "null")};
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

// Every type GroupCoordinatorRecordSerde accepts in 4.4, with its value
// version range; share (10-15) and streams (17-23) groups are not described yet.
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
    {10, nullptr, nullptr, 0, 0},
    {11, nullptr, nullptr, 0, 0},
    {12, nullptr, nullptr, 0, 0},
    {13, nullptr, nullptr, 0, 0},
    {14, nullptr, nullptr, 0, 0},
    {15, nullptr, nullptr, 0, 0},
    {16, &kRegexKeyM, &kRegexValue, 0, 0},
    {17, nullptr, nullptr, 0, 0},
    {19, nullptr, nullptr, 0, 0},
    {20, nullptr, nullptr, 0, 0},
    {21, nullptr, nullptr, 0, 0},
    {22, nullptr, nullptr, 0, 0},
    {23, nullptr, nullptr, 0, 0},
};

}  // namespace

std::span<const RecordType> group_record_types() { return kTypes; }

}  // namespace kseg::coordinator
