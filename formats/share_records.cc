// SPDX-License-Identifier: Apache-2.0
// Schemas of the __share_group_state records (ShareCoordinatorRecordSerde in
// Kafka 4.4): a share partition's state snapshot and its updates, from the
// 4.4 jar's common/message/Share{Snapshot,Update}{Key,Value}.json, checked
// by the record-types corpus case.
#include "formats/coordinator_records.h"

namespace kseg::coordinator {

namespace {

using namespace schema::tables;

constexpr Field kKey[] = {F("groupId", K::string), F("topicId", K::uuid), F("partition", K::int32)};
constexpr Struct kKeyS{kKey};
constexpr Message kShareSnapshotKey{"ShareSnapshotKey", schema::kNever, &kKeyS};
constexpr Message kShareUpdateKey{"ShareUpdateKey", schema::kNever, &kKeyS};

constexpr Field kStateBatch[] = {F("firstOffset", K::int64), F("lastOffset", K::int64), F("deliveryState", K::int8),
                                 F("deliveryCount", K::int16)};
constexpr Struct kStateBatchS{kStateBatch};
constexpr Field kSnapshot[] = {
    F("snapshotEpoch", K::int32), F("stateEpoch", K::int32), F("leaderEpoch", K::int32), F("startOffset", K::int64),
    F("deliveryCompleteCount", K::int32).tagged(0, "-1"), F("createTimestamp", K::int64),
    F("writeTimestamp", K::int64), AS("stateBatches", &kStateBatchS)};
constexpr Struct kSnapshotS{kSnapshot};
constexpr Message kShareSnapshotValue{"ShareSnapshotValue", 0, &kSnapshotS};
constexpr Field kUpdate[] = {F("snapshotEpoch", K::int32), F("leaderEpoch", K::int32), F("startOffset", K::int64),
                             F("deliveryCompleteCount", K::int32).tagged(0, "-1"),
                             AS("stateBatches", &kStateBatchS)};
constexpr Struct kUpdateS{kUpdate};
constexpr Message kShareUpdateValue{"ShareUpdateValue", 0, &kUpdateS};

constexpr RecordType kTypes[] = {{0, &kShareSnapshotKey, &kShareSnapshotValue, 0, 0},
                                 {1, &kShareUpdateKey, &kShareUpdateValue, 0, 0}};

}  // namespace

std::span<const RecordType> share_record_types() { return kTypes; }

}  // namespace kseg::coordinator
