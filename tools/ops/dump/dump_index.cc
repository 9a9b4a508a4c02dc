// SPDX-License-Identifier: Apache-2.0
// .index and .timeindex files, with the checks DumpLogSegments makes against
// the segment's .log, in text or JSON: one walk, so both formats reach the
// same verdict and exit code.
#include <fmt/format.h>

#include "formats/batch_walk.h"
#include "formats/log_batch.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "lib/time_text.h"
#include "tools/ops/dump/dumper.h"

namespace kseg {

namespace {

// The first entry that lies wholly inside [from, from + max_len) of the log,
// as Kafka's FileRecords.slice(from, max_len).batches().iterator().next().
// nullopt with `err` set where Kafka would throw.
std::optional<EntryRef> first_entry_at(Bytes log, int64_t from, int64_t max_len, DumpProblem& err) {
  const int64_t size = static_cast<int64_t>(log.size());
  if (from < 0 || from > size) {
    err = {Code::index_past_log_end,
           Error{Errc::bad_value, Position{from},
                 fmt::format("index points at log position {}, past the end of the log ({} bytes)", from, size)}};
    return std::nullopt;
  }
  const int64_t end = (max_len > size - from) ? size : from + max_len;
  EntryScanner scan(log.subspan(static_cast<size_t>(from), static_cast<size_t>(end - from)), Position{from});
  auto e = scan.next();
  const bool cut = end < size && (scan.end() == SegmentEnd::partial_tail || scan.end() == SegmentEnd::short_tail);
  if (!e && cut && from + kLogOverhead <= size) {
    // The window, not the log, ended: the batch is larger than --max-message-size.
    const int64_t declared = kLogOverhead + static_cast<int32_t>(load_be32(log.data() + from + kOffsetFieldBytes));
    err = {Code::index_entry_mismatch,
           Error{Errc::too_large, Position{from},
                 fmt::format("the batch at log position {} is {} bytes, more than --max-message-size {}", from,
                             declared, max_len)}};
  } else if (!e) {
    err = {Code::index_entry_mismatch,
           Error{Errc::bad_value, Position{from},
                 fmt::format("no complete batch at log position {} (scan ended: {})", from,
                             segment_end_name(scan.end()))}};
  }
  return e;
}

// Whether the entries from log position `from` on reach `offset` as the last
// offset of one of them, every one before ending below it: an index entry of
// a multi-batch append (Kafka indexes an append at its first batch, with the
// append's last offset), which DumpLogSegments calls a mismatch.
bool ends_an_append(Bytes log, int64_t from, int64_t offset) {
  EntryScanner scan(log.subspan(static_cast<size_t>(from)), Position{from});
  bool reached = false;
  walk_entries(scan, [&](const WalkEntry& w) {
    auto last = entry_last_offset(w.ref());
    if (!last.ok() || *last > offset) return Step::stop;
    reached = *last == offset;
    return reached ? Step::stop_after : Step::accept;
  });
  return reached;
}

// The segment's file with another suffix, as Kafka derives it: the name up
// to its first dot, then the suffix.
std::string sibling(const std::string& path, const std::string& name, const char* suffix) {
  return dir_name(path) + "/" + name.substr(0, name.find('.')) + suffix;
}

}  // namespace

// DumpLogSegments reads every slot up to the first repeat of the base offset,
// so an index Kafka left all zeros (preallocated, nothing indexed yet) shows
// it one entry (base offset, position or timestamp 0) that matches nothing
// and sometimes crashes it. kseg-verify's rule says what that slot is: the
// preallocated tail of the active segment (info, or for a .timeindex Kafka
// loads as it is an error), or an untrimmed one of an older segment (error).
namespace {
struct ZeroSlot {
  const Dumper& d;
  const std::string& path;
  Offset base;
  bool all_zero;  // slot 0 is zeros and no entry follows it
  std::optional<Code> code(int64_t slot, Code preallocated, Code untrimmed) const {
    if (slot != 0 || !all_zero) return std::nullopt;
    return d.last_segment(path, base) ? d.active_code(path, preallocated) : untrimmed;
  }
};
}  // namespace

std::optional<MappedFile> Dumper::mapped_index(const std::string& path, std::string_view kind, Offset base) {
  auto f = mapped(path);
  if (f && opts_.format != OutputFormat::text)
    emit({{"type", "file"}, {"file", path}, {"kind", kind}, {"size_bytes", f->size()}, {"base_offset", base.value}});
  return f;
}

void Dumper::index_file(const std::string& path, const std::string& name, Offset base) {
  const bool text = opts_.format == OutputFormat::text;
  const std::string log_path = sibling(path, name, ".log");
  auto log = mapped(log_path, " (the index is checked against its segment)");
  if (!log) return;
  const auto idx = mapped_index(path, "index", base);
  if (!idx) return;
  const offset_index::View view(idx->bytes(), base, Position{0},
                                offset_index_width(idx->bytes(), base, log->bytes()));
  const int64_t entries = view.slot_count();
  if (view.wide()) {  // Kafka 4.4's tool would read 8-byte entries: say what is printed
    const Error e{Errc::bad_value, Position{0}, "12-byte entries (KIP-1333, experimental): read as such"};
    emit_problem(path, Code::index_wide_entries, e);
    if (text) err_.print("kseg-dump: {}: {} [{}]\n", path, e.message, code_name(Code::index_wide_entries));
  }
  if (entries == 0) {
    if (text) out_.print("{} is empty.\n", path);
    return;
  }
  if (opts_.index_sanity_check) {
    if (Status st = offset_index::sanity_check(view, absolute_path(path)); !st.ok())
      return problem(path, st.error().code == Errc::bad_length ? Code::index_size : Code::index_not_increasing, st.error());
    if (text) out_.print("{} passed sanity check.\n", path);
    return;
  }
  std::vector<std::pair<int64_t, int64_t>> mismatches;
  const ZeroSlot zero{*this, path, base,
                      view.live_entry_count() <= 1 && view.offset_position(0).offset == base &&
                          view.offset_position(0).position == 0};
  for (int64_t i = 0; i < entries; ++i) {
    const auto op = view.offset_position(i);
    if (i > 0 && op.offset == base) break;  // the zero tail of a preallocated index
    const auto zero_code = zero.code(i, Code::index_preallocated, Code::index_untrimmed);
    DumpProblem err{};
    auto e = first_entry_at(log->bytes(), op.position, opts_.max_message_size, err);
    if (!e) {
      problem(path, zero_code.value_or(err.code), Error{err.error.code, view.slot_position(i),
                                    fmt::format("entry {} (offset {}): {}", i, op.offset, err.error.message)});
      break;
    }
    auto last = entry_last_offset(*e);
    if (!last.ok()) {
      problem(path, Code::index_entry_mismatch, Error{last.error().code, view.slot_position(i),
                          fmt::format("entry {} (offset {}): {}", i, op.offset, last.error().message)});
      break;
    }
    if (*last != op.offset.value) {
      mismatches.emplace_back(op.offset.value, *last);
      const bool append = !zero_code && *last < op.offset.value &&
                          ends_an_append(log->bytes(), op.position, op.offset.value);
      index_problem(path, zero_code ? *zero_code : append ? Code::index_append_entry : Code::index_entry_mismatch,
                    Error{Errc::bad_value, view.slot_position(i),
                               fmt::format("entry {} maps offset {} to position {}, whose batch ends at offset {}", i,
                                           op.offset, op.position, *last)});
    }
    // Entries go forward through the log: let the pages behind go, so RSS
    // stays flat on large segments.
    log->release_before(Position{op.position});
    if (opts_.verify_index_only) continue;
    if (text)
      out_.print("offset: {} position: {}\n", op.offset, op.position);
    else
      emit({{"type", "index_entry"}, {"file", path}, {"slot", i}, {"position", view.slot_position(i).value},
            {"offset", op.offset.value}, {"log_position", op.position}});
  }
  if (!mismatches.empty()) {
    auto& dst = pairs_for(index_mismatches_, absolute_path(path)).pairs;
    dst.insert(dst.end(), mismatches.begin(), mismatches.end());
  }
}

void Dumper::time_index_file(const std::string& path, const std::string& name, Offset base) {
  const std::string log_path = sibling(path, name, ".log");
  const std::string index_path = sibling(path, name, ".index");
  auto log = mapped(log_path, " (the time index is checked against its segment)");
  if (!log) return;
  const auto idx = mapped(index_path, " (the time index is checked through it)");
  if (!idx) return;
  const auto tidx = mapped_index(path, "timeindex", base);
  if (!tidx) return;
  const offset_index::View oview(idx->bytes(), base, Position{0},
                                 offset_index_width(idx->bytes(), base, log->bytes()));
  const time_index::View view(tidx->bytes(), base);
  const int64_t live = view.live_entry_count();
  if (opts_.index_sanity_check) return time_index_sanity(path, base, view, live);
  const std::string abs = absolute_path(path);
  RecordWalker walker(opts_.max_decompressed_bytes);
  int64_t prev_timestamp = -1;
  const int64_t entries = view.slot_count();
  const ZeroSlot zero{*this, path, base,
                      entries > 0 && live <= 1 && view.timestamp_offset(0).timestamp_ms == 0 &&
                          view.timestamp_offset(0).offset == base};
  for (int64_t i = 0; i < entries; ++i) {
    const auto to = view.timestamp_offset(i);
    if (i > 0 && to.offset == base) break;
    const auto zero_code = zero.code(i, Code::timeindex_preallocated, Code::timeindex_untrimmed);
    const int64_t position = offset_index::lookup(oview, oview.slot_count(), to.offset).position;
    const int64_t size = log->size();
    if (position > size) {
      problem(path, Code::timeindex_past_log_end, Error{Errc::bad_value, view.slot_position(i),
                          fmt::format("entry {}: the offset index sends offset {} to log position {}, past the end ({} bytes)",
                                      i, to.offset, position, size)});
      break;
    }
    // Kafka 4.4 collects every batch from that position to the end before
    // searching, so a bad size anywhere after it aborts the entry.
    EntryScanner scan(log->bytes().subspan(static_cast<size_t>(position)), Position{position});
    std::optional<EntryRef> found;
    int64_t found_last = -1;
    const WalkEnd walked = walk_entries(scan, [&](const WalkEntry& w) {
      if (found) return Step::skip;
      auto last = entry_last_offset(w.ref());
      if (!last.ok()) {
        problem(path, Code::timeindex_entry_mismatch, last.error());
        return Step::stop;
      }
      if (*last >= to.offset.value) {
        found = w.ref();
        found_last = *last;
      }
      return Step::accept;
    });
    if (walked.stopped) break;
    if (scan.end() == SegmentEnd::bad_size || scan.end() == SegmentEnd::zero_tail) {
      const Code code = scan.end() == SegmentEnd::zero_tail ? zero_tail_code(log_path, base, log->file_size())
                                                            : Code::log_trailing_garbage;
      problem(log_path, code, Error{Errc::bad_length, scan.valid_end(),
                              fmt::format("size field {} below the minimum {} while looking for offset {}",
                                          scan.stop_size(), kMinRecordOverhead, to.offset)});
      break;
    }
    const Position slot = view.slot_position(i);
    if (!found || found_last != to.offset.value) {
      pairs_for(time_not_found_, abs).pairs.emplace_back(to.offset.value, found ? found_last : -1);
      index_problem(path, zero_code.value_or(Code::timeindex_entry_mismatch), Error{Errc::bad_value, slot,
                               found ? fmt::format("entry {}: indexed offset {} not found, the batch there ends at {}",
                                                   i, to.offset, found_last)
                                     : fmt::format("entry {}: indexed offset {} not found in the log", i, to.offset)});
    } else {
      int64_t max_ts = -1;
      Status st = walker.walk(*found, [&](const EntryRecord& r) {
        max_ts = std::max(max_ts, r.timestamp);
        return true;
      });
      if (!st.ok()) { problem(log_path, Code::log_record_decode, st.error()); break; }
      if (max_ts != to.timestamp_ms) {
        pairs_for(time_mismatches_, abs).pairs.emplace_back(to.timestamp_ms, max_ts);
        // A batch the cleaner emptied keeps its header's max timestamp, which
        // the entry names; Kafka's dump finds no record to take it from.
        auto h = found->magic >= 2 ? v2::decode_header(*found) : Result<v2::BatchHeader>(Error{});
        const bool emptied = h.ok() && h->records_count == 0 && h->max_timestamp == to.timestamp_ms;
        index_problem(path,
                      zero_code ? *zero_code : emptied ? Code::timeindex_empty_batch : Code::timeindex_entry_mismatch,
                      Error{Errc::bad_value, slot,
                                 fmt::format("entry {}: timestamp {} for offset {}, but the batch's max timestamp is {}",
                                             i, to.timestamp_ms, to.offset, max_ts)});
      }
      if (prev_timestamp >= to.timestamp_ms) {
        pairs_for(time_out_of_order_, abs).pairs.emplace_back(to.timestamp_ms, prev_timestamp);
        index_problem(path, zero_code.value_or(Code::timeindex_not_monotonic), Error{Errc::bad_value, slot,
                                 fmt::format("entry {}: timestamp {} is not above the previous entry's {}", i,
                                             to.timestamp_ms, prev_timestamp)});
      }
    }
    if (!opts_.verify_index_only) print_time_entry(path, i, slot, to);
    prev_timestamp = to.timestamp_ms;
  }
}

void Dumper::time_index_sanity(const std::string& path, Offset base, const time_index::View& view, int64_t live) {
  // Kafka's check compares the last slot with the first: on a zero tail it
  // throws where kseg-verify finds a preallocated or untrimmed index.
  if (Status st = time_index::sanity_check(view, absolute_path(path)); !st.ok()) {
    const bool zero_tail = st.error().code != Errc::bad_length && live < view.slot_count();
    return problem(path,
                   zero_tail ? (last_segment(path, base) ? active_code(path, Code::timeindex_preallocated)
                                                         : Code::timeindex_untrimmed)
                   : st.error().code == Errc::bad_length ? Code::timeindex_size
                                                         : Code::timeindex_not_monotonic,
                   st.error());
  }
  if (opts_.format == OutputFormat::text) out_.print("{} passed sanity check.\n", path);
}

void Dumper::print_time_entry(const std::string& path, int64_t slot_number, Position slot,
                              const time_index::TimestampOffset& to) {
  if (opts_.format == OutputFormat::text) {
    out_.print("timestamp: {} offset: {}\n", to.timestamp_ms, to.offset);
    return;
  }
  emit({{"type", "time_index_entry"}, {"file", path}, {"slot", slot_number}, {"position", slot.value},
        {"timestamp", opts_.time_format == TimeFormat::iso && to.timestamp_ms >= 0
                          ? nlohmann::ordered_json(iso_ms(to.timestamp_ms))
                          : nlohmann::ordered_json(to.timestamp_ms)},
        {"offset", to.offset.value}});
}

}  // namespace kseg
