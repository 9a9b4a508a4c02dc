// Parsers for Kafka's internal topics (__consumer_offsets,
// __transaction_state, __cluster_metadata), printing what DumpLogSegments'
// --offsets-decoder, --transaction-log-decoder and --cluster-metadata-decoder print.
#include <fmt/format.h>

#include "tools/ops/record_text.h"

namespace kseg {

namespace {
void unsupported(const char* what, const RecordView& r, ParsedRecord& out) {
  out.error = Error{Errc::usage, Position{-1}, fmt::format("record at offset {}: {} is not supported yet", r.offset, what)};
}
}  // namespace

void parse_offsets_record(const RecordView& r, ParsedRecord& out) { unsupported("--offsets-decoder", r, out); }
void parse_transaction_log_record(const RecordView& r, ParsedRecord& out) {
  unsupported("--transaction-log-decoder", r, out);
}
void parse_cluster_metadata_record(const RecordView& r, ParsedRecord& out) {
  unsupported("--cluster-metadata-decoder", r, out);
}

}  // namespace kseg
