// SPDX-License-Identifier: Apache-2.0
// --format json / jsonl: every field of every batch, record, index entry and
// problem, with byte positions. One object per line (jsonl), or the same
// objects in one document {"schema": "kseg-dump/1", "tool", "version", "objects": [...]} (json).
// The schema is formats/kseg-dump.schema.json. Output is streamed: memory
// does not grow with the file. A .log's objects are written straight into
// text, no document tree, on the threads that print the text form
// (dump_log.cc); the rarer objects of the other files go through nlohmann.
#include <nlohmann/json.hpp>

#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/producer_snapshot.h"
#include "formats/txn_index.h"
#include "lib/base64.h"
#include "lib/codec.h"
#include "lib/mapped_file.h"
#include "lib/time_text.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/dump/log_printer.h"
#include "tools/ops/common/envelope.h"
#include "tools/ops/common/java_text.h"
#include "tools/ops/common/text_out.h"
#include "tools/ops/dump/record_text.h"

namespace kseg {

using json = nlohmann::ordered_json;

namespace {

json nullable(int64_t v, bool present) { return present ? json(v) : json(nullptr); }

}  // namespace

void Dumper::emit_object(std::string_view obj) {
  if (opts_.format == OutputFormat::jsonl) {
    out_.write(obj);
    out_.put('\n');
    return;
  }
  out_.write(emitted_ == 0 ? json_envelope_open("kseg-dump") + "\"objects\":[\n" : std::string(",\n"));
  out_.write(obj);
  ++emitted_;
}

void Dumper::emit(const json& obj) { emit_object(obj.dump(-1, ' ', false, json::error_handler_t::replace)); }

void Dumper::emit_problem(const std::string& path, std::optional<Code> code, const Error& e) {
  if (opts_.format == OutputFormat::text) return;
  fmt::memory_buffer b;
  JsonObject obj(b);
  json_problem_fields(obj, path, code, e);
  obj.close();
  emit_object({b.data(), b.size()});
}

void Dumper::close_json() {
  if (opts_.format != OutputFormat::json) return;
  out_.write(emitted_ == 0 ? json_envelope_open("kseg-dump") + "\"objects\":[]}\n" : std::string("\n]}\n"));
}

void json_problem_fields(JsonObject& obj, const std::string& path, std::optional<Code> code, const Error& e) {
  obj.field("type", "problem").field("file", path);
  if (e.position) obj.field("position", e.position->value);
  else obj.null("position");
  obj.field("code", errc_name(e.code));
  if (code) obj.field("problem_code", code_name(*code));
  else obj.null("problem_code");
  obj.field("severity", severity_name(code ? code_info(*code).severity : Severity::error)).field("message", e.message);
}

// Objects go into the run's text: in a json document each after a comma
// (the file's own object always comes first, written by the caller), in
// jsonl each on its line.
JsonObject LogPrinter::begin_object() {
  auto& b = r->text.buffer();
  if (o.format == OutputFormat::json) b.append(std::string_view(",\n"));
  return JsonObject(b);
}

void LogPrinter::end_object() {
  auto& b = r->text.buffer();
  b.push_back('}');
  if (o.format == OutputFormat::jsonl) b.push_back('\n');
  ++r->objects;
  bound_text();
}

// --time-format iso: a timestamp as an ISO 8601 string; none (-1) stays a number.
void json_time(JsonObject& obj, std::string_view name, int64_t ms, TimeFormat f) {
  if (f == TimeFormat::ms || ms < 0) {
    obj.field(name, ms);
    return;
  }
  char buf[40];
  obj.plain_string(name, std::string_view(buf, static_cast<size_t>(format_iso_ms(ms, buf) - buf)));
}

namespace {

std::string_view json_bool(bool b) { return b ? "true" : "false"; }

// Tagged fields the value's schema does not name, which Kafka 4.4.0's
// converter (and so `value`) leaves out: [{"path", "tag", "bytes": base64}].
void unknown_tags_field(JsonObject& obj, const std::vector<schema::UnknownTag>& tags) {  // every one: keep is unbounded
  obj.key("unknown_tagged_fields");
  auto& out = obj.raw();
  out.push_back('[');
  std::string b64;
  for (size_t i = 0; i < tags.size(); ++i) {
    if (i > 0) out.push_back(',');
    b64.clear();
    append_base64(b64, tags[i].bytes);
    JsonObject t(out);
    t.field("path", tags[i].path).field("tag", tags[i].tag).field("bytes", b64);
    t.close();
  }
  out.push_back(']');
}

// The same as the other json_time, into a TextOut with room for 40 bytes.
void json_time(TextOut& t, int64_t ms, TimeFormat f) {
  if (f == TimeFormat::ms || ms < 0) {
    t << ms;
    return;
  }
  char buf[40];
  t << "\"" << std::string_view(buf, static_cast<size_t>(format_iso_ms(ms, buf) - buf)) << "\"";
}

}  // namespace

void LogPrinter::json_record(const EntryRef& e, JsonObject& obj, const RecordView& rv) {
  {
    // The fixed fields in one reservation, as for the batch object.
    TextOut t(r->text.room(256 + path_json.size()));
    t << ",\"file\":" << std::string_view(path_json) << ",\"batch_position\":" << e.position.value
      << ",\"offset\":" << rv.offset << ",\"timestamp\":";
    json_time(t, rv.timestamp, o.time_format);
    t << ",\"key_size\":" << rv.key.size() << ",\"value_size\":" << rv.value.size();
    r->text.commit(t.end());
  }
  if (o.print_data_log) {
    // Strings that are printable ASCII read the same through Java's
    // decoder and JSON: written as they are, not decoded, copied and escaped.
    auto direct = [&](const v2::Blob& b, ValueDecoder d) {
      return b.null || (d == ValueDecoder::string && json_plain_prefix(b.bytes.data(), b.bytes.size()) == b.bytes.size());
    };
    if (o.parser == RecordParser::plain && direct(rv.key, o.key_decoder) && direct(rv.value, o.value_decoder)) {
      for (const auto& [name, blob] : {std::pair{"key", &rv.key}, std::pair{"value", &rv.value}}) {
        if (blob->null) obj.null(name);
        else obj.plain_string(name, {reinterpret_cast<const char*>(blob->bytes.data()), blob->bytes.size()});
      }
      end_object();
      return;
    }
    parse_record(o, rv, parsed);
    if (parsed.key) obj.field("key", *parsed.key);
    else obj.null("key");
    if (parsed.payload) obj.field("value", *parsed.payload);
    else obj.null("value");
    if (!parsed.unknown_tags.kept.empty()) unknown_tags_field(obj, parsed.unknown_tags.kept);
  }
  end_object();
}

// The JSON form reads on past what the text form cannot print (an unknown
// codec, records that do not decode): each is a problem object, and only an
// entry too small to read ends the file, as Kafka's reader ends there.
bool LogPrinter::json_entry(const EntryRef& e) {
  const EntryCheck c = check_entry(e);
  return e.magic >= 2 ? json_v2(e, c) : json_legacy(e, c);
}

bool LogPrinter::json_v2(const EntryRef& e, const EntryCheck& c) {
  if (!c.decoded) {
    problem(Code::log_bad_size, Error{Errc::bad_length, e.position, too_small_text(e)});
    return false;
  }
  if (filtering && !entry_selected(e, c)) return true;
  const v2::BatchHeader& h = c.header;
  json_v2_header(e, c);
  if (!c.crc_ok())
    problem(Code::log_crc_mismatch, Error{Errc::bad_crc, e.position,
                                          fmt::format("batch at offset {}: {}", h.base_offset, crc_mismatch_text(c))});
  if (!deep) return true;
  const bool compressed = h.codec_id() != 0;
  const Status st = walker.batch(e, h, [&](const EntryRecord& rec) {
    const RecordView rv{rec.offset, rec.timestamp, rec.key, rec.value};
    if (filtering) {
      if (!record_wanted(rv)) return true;
      shown = true;
    }
    json_v2_record(e, h, *rec.v2, rv, compressed);
    return true;
  });
  if (!st.ok()) records_problem(e, h, st);
  return true;
}

void LogPrinter::json_v2_header(const EntryRef& e, const EntryCheck& c) {
  const v2::BatchHeader& h = c.header;
  const uint32_t crc = c.crc_computed;
  // One reservation for the whole object, as for the text line: field
  // by field through JsonObject, each a reservation and a resize, JSONL
  // took 1.65x the text dump's time on small batches.
  const char* codec = codec_name(h.codec_id());
  TextOut t(r->text.room(1024 + path_json.size()));
  if (o.format == OutputFormat::json) t << ",\n";
  t << "{\"type\":\"batch\",\"file\":" << std::string_view(path_json) << ",\"position\":" << e.position.value
    << ",\"size_bytes\":" << e.bytes.size() << ",\"magic\":" << h.magic << ",\"base_offset\":" << h.base_offset
    << ",\"last_offset\":" << h.last_offset() << ",\"count\":" << h.records_count
    << ",\"base_sequence\":" << h.base_sequence << ",\"last_sequence\":" << h.last_sequence()
    << ",\"producer_id\":" << h.producer_id << ",\"producer_epoch\":" << h.producer_epoch
    << ",\"partition_leader_epoch\":" << h.partition_leader_epoch << ",\"attributes\":" << h.attributes
    << ",\"codec\":";
  if (codec) t << "\"" << std::string_view(codec) << "\"";
  else t << "null";
  t << ",\"timestamp_type\":\"" << std::string_view(v2::timestamp_type_name(h.timestamp_type()))
    << "\",\"is_transactional\":" << json_bool(h.is_transactional()) << ",\"is_control\":" << json_bool(h.is_control())
    << ",\"delete_horizon_ms\":";
  if (h.has_delete_horizon()) json_time(t, h.base_timestamp, o.time_format);
  else t << "null";
  t << ",\"base_timestamp\":";
  json_time(t, h.base_timestamp, o.time_format);
  t << ",\"max_timestamp\":";
  json_time(t, h.max_timestamp, o.time_format);
  t << ",\"crc\":" << h.crc << ",\"crc_computed\":" << crc << ",\"crc_valid\":" << json_bool(crc == h.crc) << "}";
  if (o.format == OutputFormat::jsonl) t << "\n";
  r->text.commit(t.end());
  ++r->objects;
  bound_text();
}

void LogPrinter::json_v2_record(const EntryRef& e, const v2::BatchHeader& h, const v2::Record& rec, const RecordView& rv,
                                bool compressed) {
  // A control record that does not read is a problem before its record.
  std::optional<Result<std::string>> ctl;
  if (h.is_control()) {
    ctl = control::describe(rec.key, rec.value);
    if (!ctl->ok()) problem(Code::log_record_decode, Error{ctl->error().code, e.position, ctl->error().message});
  }
  auto& out = r->text.buffer();
  {
    TextOut t(r->text.room(256));  // at most 176 bytes: five 64-bit numbers at their longest
    if (o.format == OutputFormat::json) t << ",\n";
    t << "{\"type\":\"record\",";
    if (compressed) t << "\"stream_position\":";
    else t << "\"position\":";
    // The batch's producer fields on each record: a consumer of JSON lines
    // filters records by producer without pairing them with their batch.
    t << rec.position.value << ",\"sequence\":" << h.record_sequence(rec.offset_delta)
      << ",\"producer_id\":" << h.producer_id << ",\"producer_epoch\":" << h.producer_epoch
      << ",\"is_transactional\":" << json_bool(h.is_transactional()) << ",\"headers\":[";
    r->text.commit(t.end());
  }
  JsonObject ro = JsonObject::resume(out);
  v2::HeaderReader hr(rec);
  v2::Header hdr;
  for (bool first = true; hr.next(hdr); first = false) {
    if (!first) out.push_back(',');
    line.clear();
    append_java_utf8(line, {reinterpret_cast<const uint8_t*>(hdr.key.data()), hdr.key.size()});
    JsonObject ho(out);
    ho.field("key", line).field("value_size", hdr.value.size());
    ho.close();
  }
  out.push_back(']');
  if (ctl) {
    if (ctl->ok()) ro.field("control", std::string_view(**ctl).substr(1));
    else ro.null("control");
  }
  json_record(e, ro, rv);
}

bool LogPrinter::json_legacy(const EntryRef& e, const EntryCheck& c) {
  if (!c.decoded) {
    problem(Code::log_bad_size, legacy::decode(e).error());
    return false;
  }
  if (filtering && !entry_selected(e, c)) return true;
  const legacy::Message& m = *c.message;
  const uint32_t crc = c.crc_computed;
  // A wrapper's base offset is its first inner message's (a decompression of
  // its own; legacy data is rare). Null when the set does not read (the deep
  // walk reports why) or is empty.
  const auto base = walker.legacy_base_offset(m);
  {
    JsonObject b = begin_object();
    b.field("type", "batch").literal("file", path_json).field("position", e.position.value).field("size_bytes", e.bytes.size())
        .field("magic", m.magic);
    if (base.ok() && *base) b.field("base_offset", **base);
    else b.null("base_offset");
    b.field("last_offset", m.offset).field("attributes", m.attributes)
        .field("codec", codec_name(m.codec_id())).field("timestamp_type", v2::timestamp_type_name(m.timestamp_type()));
    json_time(b, "max_timestamp", m.timestamp, o.time_format);
    b.field("crc", m.crc).field("crc_computed", crc).field("crc_valid", crc == m.crc);
    end_object();
  }
  if (!c.crc_ok())
    problem(Code::log_crc_mismatch, Error{Errc::bad_crc, e.position,
                                          fmt::format("message at offset {}: {}", m.offset, crc_mismatch_text(c))});
  if (!deep) return true;
  const Status st = walker.message(m, [&](const EntryRecord& rec) {
    const RecordView rv{rec.offset, rec.timestamp, rec.key, rec.value};
    if (filtering) {
      if (!record_wanted(rv)) return true;
      shown = true;
    }
    JsonObject ro = begin_object();
    if (m.codec_id() == 0) ro.field("type", "record").field("position", e.position.value).field("crc_valid", crc == m.crc);
    else ro.field("type", "record").field("stream_position", rec.message->position.value).field("crc_valid", rec.crc_valid);
    json_record(e, ro, rv);
    return true;
  });
  if (!st.ok()) problem(Code::log_record_decode, st.error());
  return true;
}

void Dumper::state_json(const std::string& path, bool snapshot) {
  const auto f = mapped(path);
  if (!f) return;
  emit({{"type", "file"}, {"file", path}, {"kind", snapshot ? "snapshot" : "txnindex"}, {"size_bytes", f->size()}});
  if (snapshot) {
    auto snap = producer_snapshot::read(f->bytes());
    if (!snap.ok()) return problem(path, snapshot_code(snap.error()), snap.error());
    for (const auto& e : snap->entries)
      emit({{"type", "producer_entry"}, {"file", path}, {"producer_id", e.producer_id},
            {"producer_epoch", e.producer_epoch}, {"last_sequence", e.last_sequence}, {"last_offset", e.last_offset},
            {"offset_delta", e.offset_delta},
            {"timestamp", opts_.time_format == TimeFormat::iso && e.timestamp_ms >= 0 ? json(iso_ms(e.timestamp_ms))
                                                                                    : json(e.timestamp_ms)}, {"coordinator_epoch", e.coordinator_epoch},
            {"current_txn_first_offset", nullable(e.current_txn_first_offset, e.has_open_txn())}});
    return;
  }
  const txn_index::View v(f->bytes());
  for (int64_t i = 0; i < v.entry_count(); ++i) {
    // As the text form: Kafka's reader stops at an entry of another version.
    if (Status st = txn_index::check_version(v, i, absolute_path(path)); !st.ok())
      return problem(path, Code::txnindex_bad_version, st.error());
    const auto t = v.entry(i);
    emit({{"type", "aborted_txn"}, {"file", path}, {"position", v.entry_position(i).value}, {"version", t.version},
          {"producer_id", t.producer_id}, {"first_offset", t.first_offset}, {"last_offset", t.last_offset},
          {"last_stable_offset", t.last_stable_offset}});
  }
}

}  // namespace kseg
