// SPDX-License-Identifier: Apache-2.0
// Records of __remote_log_metadata, the topic TopicBasedRemoteLogMetadataManager
// keeps tiered storage's segment metadata in, as DumpLogSegments'
// --remote-log-metadata-decoder prints them: Kafka's RemoteLogMetadataSerde
// reads the value and the payload is the resulting object's toString().
//
//   value = uvarint frame version (1) | uvarint api key | uvarint version | body
//
// api key 0 RemoteLogSegmentMetadataRecord, 1 ...UpdateRecord,
// 2 RemotePartitionDeleteMetadataRecord, 3 RemoteLogSegmentMetadataSnapshotRecord:
// flexible messages (storage/src/main/resources/message/*.json in Kafka 4.4).
// The key is not read. Tagged fields the schema does not name (a newer
// Kafka's: KIP-1266 adds some) are left out of the text, as Kafka's reader
// drops them, and handed back in `unknown` (when the value reads).
#pragma once

#include <string>
#include <vector>

#include "formats/schema.h"
#include "lib/byte_reader.h"
#include "lib/status.h"

namespace kseg::remote_log_metadata {

// The object's toString(), or an error whose message is the exception
// message Kafka prints after "Error at offset N, skipping. ".
Result<std::string> describe(Bytes value, schema::UnknownTags* unknown = nullptr);

}  // namespace kseg::remote_log_metadata
