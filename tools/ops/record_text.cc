#include "tools/ops/record_text.h"

#include <fmt/format.h>

#include "tools/ops/java_text.h"

namespace kseg {

namespace {

// Decodes with one of the Decoder classes; nullopt where Kafka's decoder
// would throw (Integer/LongDecoder on too few bytes).
std::optional<std::string> decode_with(ValueDecoder d, Bytes b) {
  std::string s;
  switch (d) {
    case ValueDecoder::string: append_java_utf8(s, b); break;
    case ValueDecoder::hex: append_hex(s, b); break;
    case ValueDecoder::base64: append_base64(s, b); break;
    case ValueDecoder::integer:
      if (b.size() < 4) return std::nullopt;
      s = fmt::format("{}", static_cast<int32_t>(load_be32(b.data())));
      break;
    case ValueDecoder::long_int:
      if (b.size() < 8) return std::nullopt;
      s = fmt::format("{}", static_cast<int64_t>(load_be64(b.data())));
      break;
  }
  return s;
}

}  // namespace

void parse_record(const DumpOptions& o, const RecordView& r, ParsedRecord& out) {
  out = ParsedRecord{};
  switch (o.parser) {
    case RecordParser::offsets: parse_offsets_record(r, out); return;
    case RecordParser::transaction_log: parse_transaction_log_record(r, out); return;
    case RecordParser::cluster_metadata: parse_cluster_metadata_record(r, out); return;
    case RecordParser::plain: break;
  }
  if (!r.key.null) {
    out.key = decode_with(o.key_decoder, r.key.bytes);
    if (!out.key) {
      out.error = Error{Errc::bad_value, Position{-1},
                        fmt::format("record at offset {}: key of {} bytes is too short for the decoder", r.offset,
                                    r.key.bytes.size())};
      return;
    }
  }
  if (!r.value.null) {
    out.payload = decode_with(o.value_decoder, r.value.bytes);
    if (!out.payload)
      out.error = Error{Errc::bad_value, Position{-1},
                        fmt::format("record at offset {}: value of {} bytes is too short for the decoder", r.offset,
                                    r.value.bytes.size())};
  }
}

}  // namespace kseg
