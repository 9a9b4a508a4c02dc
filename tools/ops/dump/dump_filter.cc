// SPDX-License-Identifier: Apache-2.0
// --from-offset/--to-offset, --from-time/--to-time, --producer-id, --key:
// which entries and records of a .log kseg-dump prints, and where in the
// .log it starts reading (the seek with the segment's indexes).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/mapped_file.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/dump/log_printer.h"

namespace kseg {

std::optional<bool> LogPrinter::header_verdict(const EntryCheck& c) const {
  const DumpFilter& f = o.filter;
  // A compressed v0/v1 wrapper carries its last inner offset only.
  const bool first_known = c.v2() || c.codec_id == 0;
  const int64_t first = first_known ? c.base_offset : INT64_MIN, last = c.last_offset;
  if (f.to_offset && first > *f.to_offset) return false;
  if (f.from_offset && last < *f.from_offset) return false;
  if (f.producer_id && (!c.v2() || c.header.producer_id != *f.producer_id)) return false;
  // The max timestamp bounds every record's (LogAppendTime: is every record's).
  if (f.from_time && c.max_timestamp < *f.from_time) return false;
  const bool inside = first_known && (!f.from_offset || first >= *f.from_offset) && (!f.to_offset || last <= *f.to_offset);
  if (inside && !f.from_time && !f.to_time && !f.key) return true;
  return std::nullopt;
}

bool LogPrinter::record_wanted(const RecordView& rv) const {
  const DumpFilter& f = o.filter;
  if (f.from_offset && rv.offset < *f.from_offset) return false;
  if (f.to_offset && rv.offset > *f.to_offset) return false;
  if (f.from_time && rv.timestamp < *f.from_time) return false;
  if (f.to_time && rv.timestamp > *f.to_time) return false;
  if (f.key && (rv.key.null || rv.key.bytes.size() != f.key->size() ||
                (!f.key->empty() && std::memcmp(rv.key.bytes.data(), f.key->data(), f.key->size()) != 0)))
    return false;
  return true;
}

bool LogPrinter::any_record_wanted(const EntryRef& e, const EntryCheck& c) {
  if (!c.v2() && !c.message) return true;  // callers pass decoded entries only; shown, as an undecoded one is
  bool wanted = false;
  auto test = [&](const EntryRecord& rec) {
    wanted = record_wanted(RecordView{rec.offset, rec.timestamp, rec.key, rec.value});
    return !wanted;
  };
  const Status st = c.v2() ? walker.batch(e, c.header, test) : walker.message(*c.message, test);
  return wanted || !st.ok();  // a batch whose records do not all read is shown, with its problem
}

bool LogPrinter::entry_selected(const EntryRef& e, const EntryCheck& c) {
  if (!filtering) return true;
  const std::optional<bool> v = header_verdict(c);
  if (v == false) return false;
  if (!deep) shown = v == true || any_record_wanted(e, c);
  return !deep ? shown : true;
}

// Prints the entry into the run's text, then takes it back if the filters
// selected none of it and it showed no problem.
bool LogPrinter::filtered_entry(const EntryRef& e) {
  const size_t mark = r->text.contents().size();
  const int64_t objects = r->objects;
  const size_t problems = r->problems.size();
  hold = true;
  shown = false;
  const bool ok = o.format != OutputFormat::text ? json_entry(e) : e.magic >= 2 ? batch_v2(e) : legacy_entry(e);
  hold = false;
  if (ok && !shown && r->problems.size() == problems) {
    r->text.truncate(mark);
    r->objects = objects;
  }
  bound_text();
  return ok;
}

// The first position worth reading for the filters' lower bounds, from the
// segment's .index (and .timeindex for --from-time), as a consumer's fetch
// finds it: every entry before it holds only offsets (and timestamps) below
// the bounds. An index that is missing, or whose entry does not land on an
// entry of the .log at or below its offset, is not trusted: the .log is then
// read from the start, and stderr says why.
Position Dumper::seek_position(const std::string& path, Offset base, const MappedFile& log) {
  const DumpFilter& f = opts_.filter;
  if (!f.seek || base.value < 0 || (!f.from_offset && !f.from_time) || !path.ends_with(".log")) return Position{0};
  const std::string stem = path.substr(0, path.size() - 4);
  auto index = MappedFile::open(stem + ".index");
  if (!index.ok()) return Position{0};
  std::optional<int64_t> target = f.from_offset;
  if (f.from_time) {
    auto time = MappedFile::open(stem + ".timeindex");
    if (!time.ok()) return Position{0};
    const time_index::View tv(time->bytes(), base);
    // Entry (t, o): every batch before o's has a max timestamp below t.
    const auto found = time_index::lookup(tv, tv.live_entry_count(), *f.from_time);
    target = std::max(target.value_or(INT64_MIN), found.offset.value);
  }
  const offset_index::View iv(index->bytes(), base, Position{0}, offset_index_width(index->bytes(), base, log.bytes()));
  const auto at = offset_index::lookup(iv, iv.live_entry_count(), Offset{*target});
  if (at.position == 0) return Position{0};
  const Bytes b = log.bytes();
  std::string why;
  if (at.position < 0 || static_cast<int64_t>(at.position) + kHeaderSizeUpToMagic > log.size()) {
    why = fmt::format("past the {} bytes read", log.size());
  } else {
    const uint8_t* p = b.data() + at.position;
    const auto offset = static_cast<int64_t>(load_be64(p));
    const auto size = static_cast<int32_t>(load_be32(p + kOffsetFieldBytes));
    const auto magic = static_cast<int8_t>(p[kMagicOffset]);
    if (size < kMinRecordOverhead || magic < 0 || magic > 2 || offset < base.value || offset > at.offset.value)
      why = fmt::format("no entry at or below offset {} starts there (offset field {}, size {}, magic {})",
                        at.offset.value, offset, size, magic);
  }
  if (why.empty()) return Position{at.position};
  err_.print("kseg-dump: {}: not seeking: the .index entry for offset {} points at position {}: {}; reading from "
             "the start\n", path, at.offset.value, at.position, why);
  return Position{0};
}

}  // namespace kseg
