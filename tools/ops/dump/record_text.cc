// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/dump/record_text.h"

#include <fmt/format.h>

#include "lib/base64.h"
#include "tools/ops/common/java_text.h"

namespace kseg {

bool append_decoded(std::string& out, ValueDecoder d, Bytes b) {
  switch (d) {
    case ValueDecoder::string: append_java_utf8(out, b); break;
    case ValueDecoder::hex: append_hex(out, b); break;
    case ValueDecoder::base64: append_base64(out, b); break;
    case ValueDecoder::integer:
      if (b.size() < 4) return false;
      out += fmt::format_int(static_cast<int32_t>(load_be32(b.data()))).c_str();
      break;
    case ValueDecoder::long_int:
      if (b.size() < 8) return false;
      out += fmt::format_int(static_cast<int64_t>(load_be64(b.data()))).c_str();
      break;
  }
  return true;
}

Error decoder_error(int64_t offset, const char* what, size_t size) {
  return Error{Errc::bad_value, std::nullopt,
               fmt::format("record at offset {}: {} of {} bytes is too short for the decoder", offset, what, size)};
}

void parse_record(const DumpOptions& o, const RecordView& r, ParsedRecord& out) {
  out = ParsedRecord{};
  out.unknown_tags.keep = o.format == OutputFormat::text ? 1 : SIZE_MAX;
  switch (o.parser) {
    case RecordParser::offsets: parse_offsets_record(r, out); return;
    case RecordParser::transaction_log: parse_transaction_log_record(r, out); return;
    case RecordParser::cluster_metadata: parse_cluster_metadata_record(r, out); return;
    case RecordParser::share_group_state: parse_share_group_state_record(r, out); return;
    case RecordParser::remote_log_metadata: parse_remote_log_metadata_record(r, out); return;
    case RecordParser::plain: break;
  }
  if (!r.key.null) {
    out.key.emplace();
    if (!append_decoded(*out.key, o.key_decoder, r.key.bytes)) {
      out.key.reset();
      out.error = decoder_error(r.offset, "key", r.key.bytes.size());
      return;
    }
  }
  if (!r.value.null) {
    out.payload.emplace();
    if (!append_decoded(*out.payload, o.value_decoder, r.value.bytes)) {
      out.payload.reset();
      out.error = decoder_error(r.offset, "value", r.value.bytes.size());
    }
  }
}

}  // namespace kseg
