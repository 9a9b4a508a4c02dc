// SPDX-License-Identifier: Apache-2.0
// Turns a record's key and value into the text kafka-dump-log prints for
// them: the Decoder classes (StringDecoder …) or a topic-specific parser
// (--offsets-decoder, --transaction-log-decoder, --cluster-metadata-decoder).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/schema.h"
#include "tools/ops/dump/dump.h"

namespace kseg {

struct RecordView {
  int64_t offset = 0;
  int64_t timestamp = -1;
  v2::Blob key;
  v2::Blob value;
};

struct ParsedRecord {
  std::optional<std::string> key;
  std::optional<std::string> payload;
  std::optional<Error> error;  // where Kafka's parser would throw
  // Tagged fields of the value the parser's schema does not name: not in
  // `payload` (Kafka 4.4.0 drops them), in the JSON form's unknown_tagged_fields;
  // the text form keeps only the first (it counts them, and names the first).
  schema::UnknownTags unknown_tags;
};

void parse_record(const DumpOptions& o, const RecordView& r, ParsedRecord& out);

// Appends `b` as Decoder `d` prints it; false (nothing appended) where
// Kafka's decoder throws (Integer/LongDecoder on too few bytes).
bool append_decoded(std::string& out, ValueDecoder d, Bytes b);
// The error for a key or value `append_decoded` refused.
Error decoder_error(int64_t offset, const char* what, size_t size);

// Topic-specific parsers (internal_topics.cc). Each fills `out` exactly as
// the matching DumpLogSegments parser prints, or sets out.error where Kafka
// would abort.
void parse_offsets_record(const RecordView& r, ParsedRecord& out);
void parse_transaction_log_record(const RecordView& r, ParsedRecord& out);
void parse_share_group_state_record(const RecordView& r, ParsedRecord& out);
void parse_cluster_metadata_record(const RecordView& r, ParsedRecord& out);
void parse_remote_log_metadata_record(const RecordView& r, ParsedRecord& out);

}  // namespace kseg
