// --format json / jsonl: every field of every batch, record, index entry and
// problem, with byte positions. One object per line (jsonl), or the same
// objects in one document {"schema": "kseg-dump/1", "objects": [...]} (json).
// The schema is formats/kseg-dump.schema.json. Output is streamed: memory
// does not grow with the file.
#include <nlohmann/json.hpp>

#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "formats/log_batch.h"
#include "formats/producer_snapshot.h"
#include "formats/txn_index.h"
#include "lib/codec.h"
#include "lib/mapped_file.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/common/java_text.h"
#include "tools/ops/dump/record_text.h"

namespace kseg {

using json = nlohmann::ordered_json;

namespace {

std::string text(Bytes b) {
  std::string s;
  append_java_utf8(s, b);
  return s;
}

json nullable(int64_t v, bool present) { return present ? json(v) : json(nullptr); }

}  // namespace

void Dumper::emit(const json& obj) {
  if (opts_.format == OutputFormat::jsonl) {
    out_.write(obj.dump(-1, ' ', false, json::error_handler_t::replace));
    out_.put('\n');
    return;
  }
  out_.write(emitted_ == 0 ? "{\"schema\":\"kseg-dump/1\",\"objects\":[\n" : ",\n");
  out_.write(obj.dump(-1, ' ', false, json::error_handler_t::replace));
  ++emitted_;
}

void Dumper::emit_problem(const std::string& path, std::optional<Code> code, const Error& e) {
  if (opts_.format == OutputFormat::text) return;
  json p = {{"type", "problem"}, {"file", path}, {"position", e.position ? json(e.position->value) : json(nullptr)},
            {"code", errc_name(e.code)},
            {"problem_code", code ? json(code_name(*code)) : json(nullptr)},
            {"severity", severity_name(code ? code_info(*code).severity : Severity::error)},
            {"message", e.message}};
  emit(p);
}

void Dumper::close_json() {
  if (opts_.format != OutputFormat::json) return;
  out_.write(emitted_ == 0 ? "{\"schema\":\"kseg-dump/1\",\"objects\":[]}\n" : "\n]}\n");
}

void Dumper::log_json(const std::string& path, Offset base_offset) {
  auto file = MappedFile::open(path, opts_.max_bytes < 0 ? 0 : opts_.max_bytes);
  if (!file.ok()) return io_problem(path, file.error().message);
  emit({{"type", "file"}, {"file", path}, {"kind", "log"}, {"size_bytes", file->file_size()},
        {"base_offset", base_offset.value}});
  const bool deep = opts_.deep_iteration || opts_.print_data_log;
  std::vector<uint8_t> scratch;
  std::vector<legacy::InnerMessage> inner;
  EntryScanner scan(file->bytes(), Position{0});
  ParsedRecord parsed;
  auto record = [&](const EntryRef& e, json r, const RecordView& rv) {
    r["file"] = path;
    r["batch_position"] = e.position.value;
    r["offset"] = rv.offset;
    r["timestamp"] = rv.timestamp;
    r["key_size"] = rv.key.size();
    r["value_size"] = rv.value.size();
    if (opts_.print_data_log) {
      parse_record(opts_, rv, parsed);
      r["key"] = parsed.key ? json(*parsed.key) : json(nullptr);
      r["value"] = parsed.payload ? json(*parsed.payload) : json(nullptr);
    }
    emit(r);
  };
  // Kafka's reader goes on past a checksum mismatch (the entry is skipped
  // as data, still dumped) and stops at an entry too small to read.
  const WalkEnd walked = walk_entries(scan, [&](const WalkEntry& w) {
    const EntryRef* e = &w.ref();
    file->release_before(e->position);
    const EntryCheck& c = w.check();
    const Step step = c.crc_ok() ? Step::accept : Step::skip;
    if (c.v2()) {
      if (!c.decoded) {
        problem(path, Code::log_bad_size, Error{Errc::bad_length, e->position, too_small_text(*e)});
        return Step::stop;
      }
      const v2::BatchHeader& h = c.header;
      const uint32_t crc = c.crc_computed;
      const char* codec = codec_name(h.codec_id());
      emit({{"type", "batch"}, {"file", path}, {"position", e->position.value}, {"size_bytes", e->bytes.size()},
            {"magic", h.magic}, {"base_offset", h.base_offset}, {"last_offset", h.last_offset()},
            {"count", h.records_count}, {"base_sequence", h.base_sequence}, {"last_sequence", h.last_sequence()},
            {"producer_id", h.producer_id}, {"producer_epoch", h.producer_epoch},
            {"partition_leader_epoch", h.partition_leader_epoch}, {"attributes", h.attributes},
            {"codec", codec ? json(codec) : json(nullptr)}, {"timestamp_type", v2::timestamp_type_name(h.timestamp_type())},
            {"is_transactional", h.is_transactional()}, {"is_control", h.is_control()},
            {"delete_horizon_ms", nullable(h.base_timestamp, h.has_delete_horizon())},
            {"base_timestamp", h.base_timestamp}, {"max_timestamp", h.max_timestamp}, {"crc", h.crc},
            {"crc_computed", crc}, {"crc_valid", crc == h.crc}});
      if (!c.crc_ok())
        problem(path, Code::log_crc_mismatch, Error{Errc::bad_crc, e->position,
                            fmt::format("batch at offset {}: {}", h.base_offset, crc_mismatch_text(c))});
      if (!deep) return step;
      auto records = v2::records_bytes(*e, h, scratch, opts_.max_decompressed_bytes);
      if (!records.ok()) {
        problem(path, Code::log_record_decode, records.error());
        return step;
      }
      const bool compressed = h.codec_id() != 0;
      v2::RecordReader rr(*records, compressed ? Position{0} : e->position + Length{v2::kRecordBatchOverhead},
                          h.records_count < 0 ? 0 : h.records_count);
      v2::Record rec;
      while (rr.next(rec)) {
        RecordView rv{h.record_offset(rec.offset_delta), h.record_timestamp(rec.timestamp_delta),
                      rec.key, rec.value};
        json r = {{"type", "record"}};
        r[compressed ? "stream_position" : "position"] = rec.position.value;
        r["sequence"] = h.record_sequence(rec.offset_delta);
        json headers = json::array();
        v2::HeaderReader hr(rec);
        v2::Header hdr;
        while (hr.next(hdr))
          headers.push_back({{"key", text({reinterpret_cast<const uint8_t*>(hdr.key.data()), hdr.key.size()})},
                             {"value_size", hdr.value.size()}});
        r["headers"] = headers;
        if (h.is_control()) {
          auto ctl = control::describe(rec.key, rec.value);
          r["control"] = ctl.ok() ? json(ctl->substr(1)) : json(nullptr);
          if (!ctl.ok()) problem(path, Code::log_record_decode, Error{ctl.error().code, e->position, ctl.error().message});
        }
        record(*e, std::move(r), rv);
      }
      if (Status st = rr.finish(); !st.ok())
        problem(path, Code::log_record_decode, Error{st.error().code, e->position,
                            fmt::format("batch at offset {}: {}", h.base_offset, st.error().message)});
    } else {
      if (!c.decoded) {
        problem(path, Code::log_bad_size, legacy::decode(*e).error());
        return Step::stop;
      }
      const legacy::Message& m = c.message;
      const uint32_t crc = c.crc_computed;
      const char* codec = codec_name(m.codec_id());
      emit({{"type", "batch"}, {"file", path}, {"position", e->position.value}, {"size_bytes", e->bytes.size()},
            {"magic", m.magic}, {"last_offset", m.offset}, {"attributes", m.attributes},
            {"codec", codec ? json(codec) : json(nullptr)}, {"timestamp_type", v2::timestamp_type_name(m.timestamp_type())},
            {"max_timestamp", m.timestamp}, {"crc", m.crc}, {"crc_computed", crc}, {"crc_valid", crc == m.crc}});
      if (!c.crc_ok())
        problem(path, Code::log_crc_mismatch, Error{Errc::bad_crc, e->position,
                            fmt::format("message at offset {}: {}", m.offset, crc_mismatch_text(c))});
      if (!deep) return step;
      if (m.codec_id() == 0) {
        record(*e, {{"type", "record"}, {"position", e->position.value}, {"crc_valid", crc == m.crc}},
               RecordView{m.offset, m.timestamp, m.key, m.value});
        return step;
      }
      if (Status st = legacy::inner_messages(m, scratch, opts_.max_decompressed_bytes, inner); !st.ok()) {
        problem(path, Code::log_record_decode, st.error());
        return step;
      }
      for (const auto& im : inner)
        record(*e, {{"type", "record"}, {"stream_position", im.message.position.value}, {"crc_valid", im.crc_valid}},
               RecordView{im.absolute_offset, im.timestamp, im.message.key, im.message.value});
    }
    return step;
  });
  if (walked.stopped) return;
  if (auto end = log_end_problem(scan, path, base_offset, file->file_size())) problem(path, *end);
}

void Dumper::state_json(const std::string& path, bool snapshot) {
  auto f = MappedFile::open(path);
  if (!f.ok()) return io_problem(path, f.error().message);
  emit({{"type", "file"}, {"file", path}, {"kind", snapshot ? "snapshot" : "txnindex"}, {"size_bytes", f->size()}});
  if (snapshot) {
    auto snap = producer_snapshot::read(f->bytes());
    if (!snap.ok()) return problem(path, snapshot_code(snap.error()), snap.error());
    for (const auto& e : snap->entries)
      emit({{"type", "producer_entry"}, {"file", path}, {"producer_id", e.producer_id},
            {"producer_epoch", e.producer_epoch}, {"last_sequence", e.last_sequence}, {"last_offset", e.last_offset},
            {"offset_delta", e.offset_delta}, {"timestamp", e.timestamp_ms}, {"coordinator_epoch", e.coordinator_epoch},
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
