// SPDX-License-Identifier: Apache-2.0
// Schemas of the __transaction_state records (TransactionCoordinatorRecordSerde
// in Kafka 4.4), written as our own compact tables and checked against the
// 4.4 jar's generated reader and JSON converter.
#include "formats/coordinator_records.h"

namespace kseg::coordinator {

namespace {

using namespace schema::tables;

constexpr Field kKey[] = {F("transactionalId", K::string)};
constexpr Struct kKeyS{kKey};
constexpr Message kTransactionLogKey{"TransactionLogKey", schema::kNever, &kKeyS};

constexpr Field kPartitions[] = {F("topic", K::string), A("partitionIds", K::int32)};
constexpr Struct kPartitionsS{kPartitions};
constexpr Field kValue[] = {
    F("producerId", K::int64),
    F("previousProducerId", K::int64).since(1).tagged(0, "-1"),
    F("nextProducerId", K::int64).since(1).tagged(1, "-1"),
    F("producerEpoch", K::int16),
    F("nextProducerEpoch", K::int16).since(1).tagged(3, "-1"),
    F("transactionTimeoutMs", K::int32),
    F("transactionStatus", K::int8),
    AS("transactionPartitions", &kPartitionsS).nullable(),
    F("transactionLastUpdateTimestampMs", K::int64),
    F("transactionStartTimestampMs", K::int64),
    F("clientTransactionVersion", K::int16).since(1).tagged(2, "0"),
};
constexpr Struct kValueS{kValue};
constexpr Message kTransactionLogValue{"TransactionLogValue", 1, &kValueS};

constexpr RecordType kTypes[] = {{0, &kTransactionLogKey, &kTransactionLogValue, 0, 1}};

}  // namespace

std::span<const RecordType> transaction_record_types() { return kTypes; }

std::string transaction_state_name(int8_t status) {
  static constexpr const char* kNames[] = {"Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
                                           "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence"};
  if (status >= 0 && status < 8) return kNames[status];
  return std::to_string(status);
}

}  // namespace kseg::coordinator
