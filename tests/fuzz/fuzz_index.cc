// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the search and round-trip properties of the offset and
// time indexes. fuzz_state_files already runs sanity_check, validate_entries
// and lookup over arbitrary images with fixed base offsets and targets; this
// target lets the input choose them and checks the answers:
//
//   byte 0      bit 0: offset index (0) or time index (1)
//   bytes 1..8  base offset (the segment file name: 0..INT64_MAX)
//   bytes 9..16 lookup target (offset or timestamp)
//   bytes 17..  the index file image (an offset index read at the width
//               offset_index::detect_width finds: 8, or KIP-1333's 12)
//
// Over the live entries (where the keys are strictly increasing) lookup must
// agree with a linear scan, and entries that pass validate_entries must be
// what Kafka's append would have written (Writer re-encodes them byte for
// byte). On all slots, lookup must return the base answer or a slot's entry.
// Base offsets so large that base + relative wraps are only checked for
// crashes and overflow (lib/types.h's Offset wraps like Java's long).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "formats/offset_index.h"
#include "formats/time_index.h"

using namespace kseg;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_offset_index(Bytes b, Offset base, Offset target) {
  offset_index::View v(b, base, Position{0});  // at the width detect_width finds (KIP-1333)
  check(v.entry_size() == offset_index::kEntrySize ||
        (v.entry_size() == offset_index::kWideEntrySize && b.size() % offset_index::kWideEntrySize == 0));
  const int64_t live = v.live_entry_count();
  check(live <= v.slot_count() && v.dump_entry_count() <= v.slot_count());

  // Any slot count: the answer is the base answer or some slot's entry.
  for (int64_t n : {v.slot_count(), v.dump_entry_count()}) {
    const auto got = offset_index::lookup(v, n, target);
    bool found = got == offset_index::OffsetPosition{base, 0};
    for (int64_t i = 0; i < n && !found; ++i) found = v.offset_position(i) == got;
    check(found);
  }

  // Below, offsets must not wrap past INT64_MAX (Kafka's would, too).
  if (base.value > INT64_MAX - INT32_MAX) return;

  // Sorted live entries: lookup is the largest offset <= target.
  offset_index::OffsetPosition expect{base, 0};
  for (int64_t i = 0; i < live && v.offset(i) <= target; ++i) expect = v.offset_position(i);
  check(offset_index::lookup(v, live, target) == expect);

  if (live > 0 && offset_index::validate_entries(v, live).ok()) {
    offset_index::Writer w(base, v.entry_size());
    for (int64_t i = 0; i < live; ++i) check(w.append(v.offset(i), v.entry(i).position).ok());
    check(w.bytes().size() == static_cast<size_t>(live * v.entry_size()) &&
          std::memcmp(w.bytes().data(), b.data(), w.bytes().size()) == 0);
  }
}

void fuzz_time_index(Bytes b, Offset base, int64_t target) {
  time_index::View v(b, base, Position{0});
  const int64_t live = v.live_entry_count();
  check(live <= v.slot_count() && v.dump_entry_count() <= v.slot_count());

  for (int64_t n : {v.slot_count(), v.dump_entry_count()}) {
    const auto got = time_index::lookup(v, n, target);
    bool found = got == time_index::TimestampOffset{time_index::kNoTimestamp, base};
    for (int64_t i = 0; i < n && !found; ++i) found = v.timestamp_offset(i) == got;
    check(found);
  }

  if (base.value > INT64_MAX - INT32_MAX) return;

  time_index::TimestampOffset expect{time_index::kNoTimestamp, base};
  for (int64_t i = 0; i < live && v.entry(i).timestamp_ms <= target; ++i) expect = v.timestamp_offset(i);
  check(time_index::lookup(v, live, target) == expect);

  // The writer skips timestamps <= -1 (its initial last timestamp).
  if (live > 0 && v.entry(0).timestamp_ms > time_index::kNoTimestamp && time_index::validate_entries(v, live).ok()) {
    time_index::Writer w(base);
    for (int64_t i = 0; i < live; ++i) {
      auto r = w.maybe_append(v.entry(i).timestamp_ms, v.offset(i));
      check(r.ok() && *r);
    }
    check(w.bytes().size() == static_cast<size_t>(live * time_index::kEntrySize) &&
          std::memcmp(w.bytes().data(), b.data(), w.bytes().size()) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 17) return 0;
  const Offset base{static_cast<int64_t>(load_be64(data + 1) & INT64_MAX)};
  const int64_t target = static_cast<int64_t>(load_be64(data + 9));
  const Bytes image(data + 17, size - 17);
  if (data[0] & 1) fuzz_time_index(image, base, target);
  else fuzz_offset_index(image, base, Offset{target});
  return 0;
}
