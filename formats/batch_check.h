// SPDX-License-Identifier: Apache-2.0
// The checks of one segment entry that every reader makes, made once: the
// v2 batch header or v0/v1 message decoded, its checksum stored against
// computed, its codec id known for its magic, and the offsets and timestamp
// readers take from it. Kafka's recovery (RecordBatch.ensureValid) looks at
// size and checksum only; a dump and verify go on to the records. What to do
// about a fault (print it and go on, stop, cut) is the caller's; how it is
// worded is here, so dump, verify and recovery say the same thing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"

namespace kseg {

struct EntryCheck;
EntryCheck check_entry(const EntryRef& e);

struct EntryCheck {
  EntryCheck() = default;

  int8_t magic = 0;
  // v2: the 61-byte header was there to decode. v0/v1: the key and value
  // lengths fit the entry (Kafka's recovery does not look at them).
  bool decoded = false;
  v2::BatchHeader header;   // magic >= 2 (Kafka reads any magic above 1 as v2), when decoded
  std::optional<legacy::Message> message;  // magic 0/1, when decoded
  uint32_t crc_stored = 0;
  uint32_t crc_computed = 0;
  int codec_id = 0;          // attributes & 0x07
  bool codec_known = false;  // v2: ids 0..4; v0/v1: 0..3 (no zstd)
  // From the header, or for v0/v1 the message's own offset and (v1) timestamp.
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t max_timestamp = -1;

  bool v2() const { return magic >= 2; }
  bool crc_ok() const { return crc_stored == crc_computed; }
  // The fault that makes Kafka's recovery stop here (too_small, bad_crc), or
  // clean: the entry is one Kafka keeps.
  SegmentEnd fault() const;

 private:
  friend EntryCheck check_entry(const EntryRef& e);
  // For check_entry, on a v2 entry of at least 61 bytes: the header decoded
  // straight into place, as clearing the whole check first and copying in a
  // header built on the stack were half of check_entry on small batches.
  explicit EntryCheck(const EntryRef& v2_entry)
      : magic(v2_entry.magic), decoded(true), header(v2::header_at(v2_entry.bytes.data())) {}
};

// Fields Kafka could have written for an entry at byte `p` of `data`: an
// offset in [min_offset, min_offset + 2^31], a size field of at most
// `max_size` that fits, magic 0-2 and the header fields of that magic that
// no writer sets otherwise. Cheap, and sometimes true of other bytes: a
// guess of where an entry starts, for a CRC or the entries before it to
// confirm.
bool plausible_entry(Bytes data, size_t p, int64_t min_offset, int64_t max_size);

// A v2 control batch with a producer id and records is read by Kafka's
// producer state (ProducerAppendInfo) as an end-transaction marker in its
// first record. Errc::refused when that record is another control type
// (Kafka fails loading the log); another error when the marker does not
// decode (recovery keeps the batch and stops after it); ok otherwise.
bool needs_marker_check(const EntryCheck& c);
// `h` is the entry's decoded header (EntryCheck::header).
Status check_control_marker(const EntryRef& e, const v2::BatchHeader& h, size_t max_decompressed);

// The wording of each fault, without the entry's position or file (callers
// add those where they report): "CRC-32C mismatch: stored 0x..., computed 0x...".
std::string crc_mismatch_text(const EntryCheck& c);
const char* crc_name(const EntryCheck& c);  // "CRC-32C" (v2) or "CRC-32" (v0/v1)
std::string too_small_text(const EntryRef& e);
std::string unknown_codec_text(const EntryCheck& c);

}  // namespace kseg
