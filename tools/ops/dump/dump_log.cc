// SPDX-License-Identifier: Apache-2.0
// Text dump of .log and KRaft .checkpoint files, as DumpLogSegments prints them.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "formats/batch_walk.h"
#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/file_names.h"
#include "formats/legacy.h"
#include "lib/codec.h"
#include "lib/cpus.h"
#include "lib/mapped_file.h"
#include "lib/ordered_pool.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/dump/log_printer.h"
#include "tools/ops/common/java_text.h"
#include "tools/ops/common/text_out.h"
#include "tools/ops/dump/record_text.h"

namespace kseg {

using namespace std::string_view_literals;  // appends of literals without strlen

namespace {
std::string_view tf(bool b) { return b ? "true"sv : "false"sv; }
}  // namespace

void LogPrinter::problem(Code c, Error e) {
  if (o.format != OutputFormat::text) {
    // In JSON the problem is an object where it was found, among the others.
    JsonObject obj = begin_object();
    json_problem_fields(obj, path, c, e);
    end_object();
  }
  r->problems.push_back({c, std::move(e)});
}

bool LogPrinter::entry(const EntryRef& e) {
  if (filtering) return filtered_entry(e);
  if (o.format != OutputFormat::text) return json_entry(e);
  return e.magic >= 2 ? batch_v2(e) : legacy_entry(e);
}

void LogPrinter::print(PrintedRun& run) {
  r = &run;
  for (const EntryRef& e : run.entries) {
    if (!entry(e)) {
      run.aborted = true;
      break;
    }
    if (run.again) break;  // printed again in its turn (dump_log.cc)
  }
  if (scratch.capacity() > (64u << 20)) std::vector<uint8_t>().swap(scratch);
}

void LogPrinter::note_offset(int64_t offset) {
  if (filtering) return;  // the gaps are the filter's
  if (!r->any_offset) {
    r->any_offset = true;
    r->first_offset = offset;
  } else if (offset != r->last_offset + 1) {
    r->gaps.emplace_back(r->last_offset, offset);
  }
  r->last_offset = offset;
}

// The key/payload part and the newline of a record line. `prefix` is what
// Kafka's running prefix holds at this point.
bool LogPrinter::finish_record(const RecordView& rv, bool control, std::string_view prefix) {
  if (o.print_data_log && !control && o.parser == RecordParser::plain) {
    // The common case, decoded straight into the line.
    const size_t bare = line.size();
    for (const auto& [blob, name, label, decoder] :
         {std::tuple{&rv.key, "key", "key: "sv, o.key_decoder}, std::tuple{&rv.value, "value", "payload: "sv, o.value_decoder}}) {
      if (blob->null) continue;
      line += prefix;
      line += label;
      prefix = " ";
      // A large string value, the last field, is decoded straight into
      // the run's text: copied once, not into the line and then again.
      // Below kDirectValueBytes the extra write of the line costs more.
      if (blob == &rv.value && decoder == ValueDecoder::string && blob->bytes.size() >= kDirectValueBytes) {
        r->text.write(line);
        line.clear();
        append_java_utf8(r->text.buffer(), blob->bytes);
        break;
      }
      if (!append_decoded(line, decoder, blob->bytes)) {
        line.resize(bare);
        line += '\n';
        r->text.write(line);
        problem(Code::log_record_decode, decoder_error(rv.offset, name, blob->bytes.size()));
        return false;
      }
    }
  } else if (o.print_data_log && !control) {
    parse_record(o, rv, parsed);
    if (parsed.error) {
      line += '\n';
      r->text.write(line);
      problem(Code::log_record_decode, *parsed.error);
      return false;
    }
    // Kafka 4.4 puts the running prefix before the payload too, so a
    // keyless record under --skip-record-metadata starts "| payload:".
    if (parsed.key) {
      line += prefix;
      line += "key: "sv;
      line += *parsed.key;
      prefix = " ";
    }
    if (parsed.payload) {
      line += prefix;
      line += "payload: "sv;
      line += *parsed.payload;
    }
    if (parsed.unknown_tags.count > 0 && r->unknown_tag_records++ == 0) {
      const auto& t = parsed.unknown_tags.kept.front();
      r->first_unknown_tag = fmt::format("offset {}: tag {} in {} ({} byte{})", rv.offset, t.tag,
                                         t.path.empty() ? "the value" : t.path, t.bytes.size(),
                                         t.bytes.size() == 1 ? "" : "s");
    }
  }
  line += '\n';
  r->text.write(line);
  bound_text();
  return true;
}

bool LogPrinter::batch_v2(const EntryRef& e) {
  const EntryCheck c = check_entry(e);
  if (!c.decoded) {
    problem(Code::log_bad_size, Error{Errc::bad_length, e.position, too_small_text(e)});
    return false;
  }
  if (filtering && !entry_selected(e, c)) return true;
  const v2::BatchHeader& h = c.header;
  const char* codec = codec_name(h.codec_id());
  // Formatted in place at the end of the run's text. Through fmt's appender
  // every literal piece and number was a call of its own, and through a stack
  // buffer the line was copied once more. The longest line is under 700
  // bytes (twelve numbers of at most 20 digits, the longest names).
  TextOut t(r->text.room(1024));
  t << "baseOffset: " << h.base_offset << " lastOffset: " << h.last_offset() << " count: " << h.records_count
    << " baseSequence: " << h.base_sequence << " lastSequence: " << h.last_sequence() << " producerId: "
    << h.producer_id << " producerEpoch: " << h.producer_epoch << " partitionLeaderEpoch: "
    << h.partition_leader_epoch << " isTransactional: " << tf(h.is_transactional())
    << " isControl: " << tf(h.is_control()) << " deleteHorizonMs: ";
  if (h.has_delete_horizon())
    t << "OptionalLong[" << h.base_timestamp << "]";
  else
    t << "OptionalLong.empty";
  if (!c.codec_known) {
    r->text.commit(t.end());
    problem(Code::log_bad_codec, Error{Errc::bad_codec, e.position + Length{v2::kAttributesOffset}, unknown_codec_text(c)});
    return false;
  }
  const bool valid = c.crc_ok();
  t << " position: " << e.position.value << " " << std::string_view(v2::timestamp_type_name(h.timestamp_type()))
    << ": " << h.max_timestamp << " size: " << e.bytes.size() << " magic: " << h.magic
    << " compresscodec: " << std::string_view(codec) << " crc: " << h.crc << " isvalid: " << tf(valid) << "\n";
  r->text.commit(t.end());
  if (!valid)
    problem(Code::log_crc_mismatch, Error{Errc::bad_crc, e.position, fmt::format("batch at offset {}: {}", h.base_offset, crc_mismatch_text(c))});
  bound_text();
  if (!deep) return true;
  bool printed = true;
  const Status st = walker.batch(e, h, [&](const EntryRecord& rec) {
    const RecordView rv{rec.offset, rec.timestamp, rec.key, rec.value};
    if (!begin_record(rv)) return true;
    std::string_view prefix = "| ";
    if (!o.skip_record_metadata) {
      if (!record_v2_metadata(e, h, *rec.v2, rv)) return printed = false;
      prefix = " ";
    }
    return printed = finish_record(rv, h.is_control(), prefix);
  });
  if (!printed) return false;
  if (st.ok()) return true;
  records_problem(e, h, st);
  return false;
}

void LogPrinter::records_problem(const EntryRef& e, const v2::BatchHeader& h, const Status& st) {
  switch (walker.stage()) {
    case RecordWalker::Stage::count:
      problem(Code::log_record_count, Error{Errc::bad_length, e.position + Length{v2::kRecordsCountOffset},
                                            fmt::format("invalid record count {} in v2 batch", h.records_count)});
      return;
    case RecordWalker::Stage::records:
      problem(Code::log_record_decode, Error{st.error().code, e.position,
                                             fmt::format("batch at offset {}: {}", h.base_offset, st.error().message)});
      return;
    default:
      problem(Code::log_record_decode,
              Error{st.error().code, e.position,
                    fmt::format("batch at offset {}{}: {}", h.base_offset,
                                h.codec_id() != 0 ? " (decompressed stream)" : "", st.error().message)});
  }
}

bool LogPrinter::record_v2_metadata(const EntryRef& e, const v2::BatchHeader& h, const v2::Record& rec,
                                    const RecordView& rv) {
  // Compiled format through a pointer into a stack buffer, one append:
  // printed per record (under 160 bytes).
  char head[256];
  TextOut rt(head);
  rt << "| offset: " << rv.offset << " " << std::string_view(v2::timestamp_type_name(h.timestamp_type())) << ": "
     << rv.timestamp << " keySize: " << rec.key.size() << " valueSize: " << rec.value.size()
     << " sequence: " << h.record_sequence(rec.offset_delta) << " headerKeys: [";
  line.append(head, rt.end());
  v2::HeaderReader hr(rec);
  v2::Header hdr;
  for (bool first = true; hr.next(hdr); first = false) {
    if (!first) line += ',';
    append_header_key(hdr.key);
  }
  line += ']';
  if (h.is_control()) {
    auto ctl = control::describe(rec.key, rec.value);
    if (!ctl.ok()) {
      r->text.write(line);
      problem(Code::log_record_decode, Error{ctl.error().code, e.position,
                                             fmt::format("control record at offset {}: {}", rv.offset, ctl.error().message)});
      return false;
    }
    line += *ctl;
  }
  return true;
}

bool LogPrinter::legacy_entry(const EntryRef& e) {
  const EntryCheck c = check_entry(e);
  if (!c.decoded) {
    problem(Code::log_bad_size, legacy::decode(e).error());
    return false;
  }
  if (filtering && !entry_selected(e, c)) return true;
  const legacy::Message& m = *c.message;
  const char* codec = codec_name(m.codec_id());
  if (codec == nullptr) {  // ids 5..7; zstd (4) is printed, as Kafka prints it, and fails deep iteration
    r->text.print("offset: {}", m.offset);
    problem(Code::log_bad_codec, Error{Errc::bad_codec, e.position + Length{legacy::kAttributesOffset},
                  fmt::format("unknown compression type id {} in message attributes", m.codec_id())});
    return false;
  }
  const bool valid = c.crc_ok();
  const char* ts_name = v2::timestamp_type_name(m.timestamp_type());
  r->text.print(FMT_COMPILE("offset: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}\n"), m.offset,
            e.position.value, ts_name, m.timestamp, e.bytes.size(), m.magic, codec, m.crc, tf(valid));
  if (!valid)
    problem(Code::log_crc_mismatch, Error{Errc::bad_crc, e.position, fmt::format("message at offset {}: {}", m.offset, crc_mismatch_text(c))});
  bound_text();
  if (!deep) return true;
  bool printed = true;
  const Status st = walker.message(m, [&](const EntryRecord& rec) {
    const RecordView rv{rec.offset, rec.timestamp, rec.key, rec.value};
    return printed = legacy_record(rv, ts_name, m.codec_id() == 0 ? valid : rec.crc_valid, rec.message->crc);
  });
  if (!st.ok()) {
    problem(Code::log_record_decode, Error{st.error().code, e.position,
                  fmt::format("compressed message set at offset {}: {}", m.offset, st.error().message)});
    return false;
  }
  return printed;
}

bool LogPrinter::begin_record(const RecordView& rv) {
  if (filtering) {
    if (!record_wanted(rv)) return false;
    shown = true;
  }
  note_offset(rv.offset);
  line.clear();
  return true;
}

bool LogPrinter::legacy_record(const RecordView& rv, const char* ts_name, bool valid, uint32_t crc) {
  if (!begin_record(rv)) return true;
  std::string_view prefix = "| ";
  if (!o.skip_record_metadata) {
    // Kafka 4.4 no longer prints the stray "}" older releases put after the crc.
    char head[256];
    char* end = fmt::format_to(head, FMT_COMPILE("| offset: {} {}: {} keySize: {} valueSize: {} isValid: {} crc: {}"),
                               rv.offset, std::string_view(ts_name), rv.timestamp, rv.key.size(), rv.value.size(),
                               tf(valid), crc);
    line.append(head, end);
    prefix = " ";
  }
  return finish_record(rv, false, prefix);
}

void LogPrinter::append_header_key(std::string_view key) {
  append_java_utf8(line, Bytes{reinterpret_cast<const uint8_t*>(key.data()), key.size()});
}

namespace {

// Cuts the next run of entries off the scan: about `bytes` of the file, and
// few enough batches and records that the text it prints stays small.
// With --to-offset the walk ends after the entry that reaches it (`past`).
bool cut_run(EntryScanner& scan, PrintedRun& run, size_t bytes, std::optional<int64_t> to_offset, bool& past) {
  constexpr size_t kMaxEntries = 1024;
  constexpr int64_t kMaxRecords = 16384;
  if (bytes == 0 || past) return false;
  size_t taken = 0;
  int64_t records = 0;
  // The walk stops after the entry that fills the run; the next run resumes
  // the scanner there. The entries are checked where they are printed.
  walk_entries(scan, [&](const WalkEntry& w) {
    const EntryRef& e = w.ref();
    taken += e.bytes.size();
    if (e.magic >= 2 && e.bytes.size() >= static_cast<size_t>(v2::kRecordBatchOverhead)) {
      const auto count = static_cast<int32_t>(load_be32(e.bytes.data() + v2::kRecordsCountOffset));
      records += std::max(count, 1);
    } else {
      records += 1;
    }
    run.entries.push_back(e);
    // Offsets rise through a segment: nothing after this entry is wanted.
    if (to_offset && v2::last_offset_of(e) >= *to_offset) {
      past = true;
      return Step::stop_after;
    }
    const bool full = taken >= bytes || run.entries.size() >= kMaxEntries || records >= kMaxRecords;
    return full ? Step::stop_after : Step::accept;
  });
  return !run.entries.empty();
}

// The entries that start in [start, to) of `data` (whose first byte is at
// `base`), for a block run.
void scan_block(PrintedRun& r, Bytes data, Position base, int64_t start, int64_t to) {
  EntryScanner sc(data.subspan(static_cast<size_t>(start)), base + Length{start});
  const Position stop = base + Length{to};
  while (sc.valid_end() < stop) {
    auto e = sc.next();
    if (!e) break;
    r.entries.push_back(*e);
  }
  r.end = (sc.valid_end() - base).bytes;
  r.ended = sc.end() != SegmentEnd::none;
}

// A printer per thread, for its decompression and line buffers; made on
// first use.
class Printers {
 public:
  Printers(const DumpOptions& o, bool deep, const std::string& path, unsigned threads)
      : o_(o), deep_(deep), path_(path), printers_(threads) {}
  LogPrinter& operator[](unsigned t) {
    if (!printers_[t]) printers_[t].emplace(o_, deep_, path_);
    return *printers_[t];
  }

 private:
  const DumpOptions& o_;
  bool deep_;
  const std::string& path_;
  std::vector<std::optional<LogPrinter>> printers_;
};

// Runs printed at once: enough to keep every thread busy while the oldest
// is written; each holds at most about run_text_cap of text.
size_t runs_in_flight(unsigned threads) { return threads > 1 ? threads + 3 : 1; }

// Block mode (lib/block_walk.h): each thread finds the entries of the blocks
// it claims itself, from a guessed start, and prints them; a block whose
// guess missed is printed again in its turn. For small entries: with the
// scan on one thread, every header a first touch of memory, that thread was
// the bottleneck (tests/bench/README.md). Every run goes to `write_out`;
// true when it said the file ends (aborted).
bool print_blocks(const DumpOptions& opts, Sink& out, bool deep, const std::string& path, EntryScanner& scan,
                  unsigned threads, int64_t run_bytes, const std::function<bool(PrintedRun&)>& write_out) {
  const Bytes data = scan.remaining();
  const Position base = scan.valid_end();
  const int64_t block = detail::block_bytes(run_bytes);
  EntryScanner peek = scan;
  const auto first = peek.next();
  const int64_t min_offset = first ? first->offset : 0;
  Printers printers(opts, deep, path, threads);
  std::optional<EntryRef> last;  // the last entry written out
  bool aborted = false;
  const BlockWalkEnd w = walk_blocks<PrintedRun>(
      BlockWalkShape{static_cast<int64_t>(data.size()), block, threads, runs_in_flight(threads)},
      [&](int64_t from, int64_t to) {
        return detail::guess_start(data, base, static_cast<size_t>(from), static_cast<size_t>(to), min_offset, block);
      },
      [&](PrintedRun& r, int64_t, int64_t start, int64_t to, unsigned t, bool in_order) {
        r.reset();
        scan_block(r, data, base, start, to);
        LogPrinter& p = printers[t];
        if (in_order) {  // every run before it is written: its text may go out now
          p.spill = [&out, &p] {
            out.write_large(p.r->text.contents());
            p.r->text.clear();
          };
        } else {
          p.spill = [&p] {
            p.r->again = true;
            p.r->text.clear();
          };
        }
        p.print(r);
      },
      [&](PrintedRun& r, int64_t, unsigned) {
        if (!write_out(r)) return !(aborted = true);
        if (!r.entries.empty()) last = r.entries.back();
        return true;
      });
  if (last) scan.resume_after(*last);
  else scan.resume_at(base + Length{w.end});
  if (!aborted) static_cast<void>(scan.next());  // for its end(), where the scan ends
  return aborted;
}

// Runs cut off the scan in order, printed on any thread, written out in
// order (lib/ordered_pool.h); true when `write_out` said the file ends
// (aborted). A run whose text passes the cap waits for its turn and writes
// it out itself.
bool print_runs(const DumpOptions& opts, Sink& out, bool deep, const std::string& path, EntryScanner& scan,
                unsigned threads, bool& past, const std::function<bool(PrintedRun&)>& write_out) {
  Printers printers(opts, deep, path, threads);
  OrderedRun<PrintedRun> run(threads, runs_in_flight(threads));
  bool aborted = false;
  run.run(
      std::numeric_limits<size_t>::max(),
      [&](size_t, PrintedRun& r) {
        r.reset();
        return cut_run(scan, r, opts.run_bytes, opts.filter.to_offset, past);
      },
      [&](size_t i, unsigned t, PrintedRun& r) {
        LogPrinter& p = printers[t];
        p.spill = [&run, &out, &p, i] {
          // Not written when an earlier run ended the file.
          if (run.wait_turn(i)) out.write_large(p.r->text.contents());
          p.r->text.clear();
        };
        p.print(r);
      },
      [&](size_t, unsigned, PrintedRun& r) { return write_out(r) || !(aborted = true); });
  return aborted;
}

}  // namespace

// A .log or KRaft .checkpoint opened for the dump, its heading printed (or
// its file object emitted); none when it cannot be (the problem reported).
std::optional<MappedFile> Dumper::open_log(const std::string& path, const std::string& name, Offset base) {
  const bool text = opts_.format == OutputFormat::text;
  std::optional<MappedFile> file;
  if (text) {
    if (name.ends_with(".log")) {
      out_.print("Log starting offset: {}\n", base);
    } else if (name == "bootstrap.checkpoint") {
      out_.print("KRaft bootstrap snapshot\n");
    } else {
      auto snap = file_names::parse_kraft_snapshot_name(name);
      if (!snap.ok() || snap->state != file_names::SnapshotState::complete) {
        problem(path, Code::dir_file_name, Error{Errc::bad_value, std::nullopt,
                            "not a KRaft snapshot name (<20-digit offset>-<10-digit epoch>.checkpoint)"});
        return std::nullopt;
      }
      out_.print("Snapshot end offset: {}, epoch: {}\n", snap->end_offset, snap->epoch);
    }
    if (opts_.max_bytes < 0) {
      report(path, std::nullopt, Error{Errc::usage, std::nullopt, fmt::format("invalid --max-bytes {}", opts_.max_bytes)});
      return std::nullopt;
    }
    file = mapped(path, {}, opts_.max_bytes);
    if (!file) return std::nullopt;
  } else {
    // The JSON form reads a negative --max-bytes as no limit.
    file = mapped(path, {}, opts_.max_bytes < 0 ? 0 : opts_.max_bytes);
    if (!file) return std::nullopt;
    fmt::memory_buffer b;
    JsonObject obj(b);
    obj.field("type", "file").field("file", path).field("kind", "log").field("size_bytes", file->file_size())
        .field("base_offset", base.value);
    obj.close();
    emit_object({b.data(), b.size()});
  }
  return file;
}

namespace {

// A file under two runs is not worth a thread.
unsigned threads_for(const DumpOptions& o, int64_t size) {
  const unsigned threads = std::min(o.threads > 0 ? o.threads : usable_cpus(), kMaxDumpThreads);
  return size < 2 * static_cast<int64_t>(o.run_bytes) ? 1 : threads;
}

}  // namespace

void Dumper::log_file(const std::string& path, const std::string& name, Offset base) {
  const bool text = opts_.format == OutputFormat::text;
  std::optional<MappedFile> file = open_log(path, name, base);
  if (!file) return;
  const bool deep = opts_.deep_iteration || opts_.print_data_log;
  const unsigned threads = threads_for(opts_, file->size());
  const Position start = seek_position(path, base, *file);
  EntryScanner scan(file->bytes().subspan(static_cast<size_t>(start.value)), start);
  bool past = false;  // the scan stopped at --to-offset
  // Kafka 4.4 starts from -1, so a file whose first record is not offset 0
  // reports (-1, first) too.
  int64_t last_offset = -1;
  std::vector<std::pair<int64_t, int64_t>> gaps;
  int64_t printed_to = 0;  // the end of the last entry written out
  int64_t unknown_tag_records = 0;
  std::string first_unknown_tag;
  // Writes a printed run out; false if the file ends there.
  auto write_out = [&](PrintedRun& r) {
    out_.write_large(r.text.contents());
    if (r.unknown_tag_records > 0 && unknown_tag_records == 0) first_unknown_tag = r.first_unknown_tag;
    unknown_tag_records += r.unknown_tag_records;
    emitted_ += r.objects;
    for (const DumpProblem& p : r.problems) report(path, p.code, p.error, text);
    if (r.any_offset) {
      if (r.first_offset != last_offset + 1) gaps.emplace_back(last_offset, r.first_offset);
      gaps.insert(gaps.end(), r.gaps.begin(), r.gaps.end());
      last_offset = r.last_offset;
    }
    if (!r.entries.empty()) {
      file->release_before(r.entries.back().position);
      const int64_t end = (r.entries.back().position + r.entries.back().total()).value;
      if (progress_) progress_->add(end - printed_to);
      printed_to = end;
    }
    return !r.aborted;
  };
  // Small entries: block mode (print_blocks). At least 512 bytes a block.
  const int64_t run_bytes = std::max<int64_t>(512, static_cast<int64_t>(opts_.run_bytes));
  const bool blocks = threads > 1 && !opts_.filter.any() && detail::uses_blocks(scan, threads, run_bytes);
  const bool aborted = blocks ? print_blocks(opts_, out_, deep, path, scan, threads, run_bytes, write_out)
                              : print_runs(opts_, out_, deep, path, scan, threads, past, write_out);
  if (progress_ && file->size() > printed_to) progress_->add(file->size() - printed_to);  // what was not printed
  if (unknown_tag_records > 0)  // said once a file: the text is Kafka 4.4.0's, which leaves them out
    report(path, Code::log_unknown_tagged_fields,
           Error{Errc::bad_value, std::nullopt,
                 fmt::format("{} {} tagged fields Kafka 4.4.0's schema does not name, the first at {}: "
                             "printed as Kafka 4.4.0 prints them, without; --format json keeps them",
                             unknown_tag_records, unknown_tag_records == 1 ? "record carries" : "records carry",
                             first_unknown_tag)},
           text);
  if (!gaps.empty()) {
    auto& dst = pairs_for(non_consecutive_, absolute_path(path));
    dst.pairs.insert(dst.pairs.end(), gaps.begin(), gaps.end());
  }
  if (aborted || past) return;
  auto end = log_end_problem(scan, path, base, file->file_size());
  if (!end) return;
  if (text && end->error.code == Errc::truncated) out_.print("Found {} invalid bytes at the end of {}\n", scan.trailing().bytes, name);
  problem(path, *end);
}

}  // namespace kseg
