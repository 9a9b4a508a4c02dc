// SPDX-License-Identifier: Apache-2.0
// Helpers for corruption tests: copy real bytes, then flip, set or cut them,
// and fix a CRC after a change so a non-CRC fault can be tested on its own.
// Everything works on copies (Buf); positions are byte indexes into them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/scratch.h"
#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"
#include "lib/byte_reader.h"
#include "lib/checksum.h"

namespace kseg::corrupt {

using Buf = std::vector<uint8_t>;

// The first segment of a Kafka-written corpus case (testdata/kafka/<name>/orders-0).
inline std::filesystem::path corpus_log_path(const std::string& name) {
  return std::filesystem::path(KSEG_SOURCE_DIR) / "testdata/kafka" / name / "orders-0/00000000000000000000.log";
}
inline Buf corpus_log(const std::string& name) { return test::read_bytes(corpus_log_path(name)); }

inline Bytes view(const Buf& b) { return Bytes(b.data(), b.size()); }

// A copy of `in` with in[at] ^= mask.
inline Buf flip(Bytes in, size_t at, uint8_t mask) {
  Buf out(in.begin(), in.end());
  out.at(at) ^= mask;
  return out;
}

// Overwrites bytes at `at` (big-endian for the integer overloads).
inline void set(Buf& b, size_t at, Bytes value) {
  if (at + value.size() > b.size()) throw std::out_of_range("corrupt::set past the end");
  std::copy(value.begin(), value.end(), b.begin() + static_cast<std::ptrdiff_t>(at));
}
inline void set_be32(Buf& b, size_t at, uint32_t v) {
  const uint8_t raw[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  set(b, at, Bytes(raw, 4));
}
inline void set_be64(Buf& b, size_t at, uint64_t v) {
  set_be32(b, at, static_cast<uint32_t>(v >> 32));
  set_be32(b, at + 4, static_cast<uint32_t>(v));
}

// The first n bytes of `in`.
inline Buf cut(Bytes in, size_t n) { return Buf(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n)); }

// Entry boundaries found by EntryScanner: starts of the entries plus the end
// of the last whole one.
inline std::vector<size_t> entry_bounds(Bytes file, size_t max_entries = SIZE_MAX) {
  std::vector<size_t> bounds{0};
  EntryScanner scan(file, Position{0});
  while (bounds.size() <= max_entries) {
    auto e = scan.next();
    if (!e) break;
    bounds.push_back(static_cast<size_t>((e->position + e->total()).value));
  }
  return bounds;
}

// The first n whole entries of a segment file.
inline Buf first_entries(Bytes file, size_t n) { return cut(file, entry_bounds(file, n).back()); }

// Recomputes and stores the CRC of the entry at b[at..]: CRC-32C of bytes
// 21..end at 17 for magic 2, CRC-32 of bytes 16..end at 12 for magic 0/1.
// The entry's extent comes from its size field, which must fit in b.
inline void fix_crc(Buf& b, size_t at = 0) {
  const size_t total = kLogOverhead + load_be32(b.data() + at + kOffsetFieldBytes);
  if (at + total > b.size()) throw std::out_of_range("corrupt::fix_crc: entry runs past the buffer");
  const Bytes entry(b.data() + at, total);
  if (static_cast<int8_t>(b.at(at + kMagicOffset)) >= 2)
    set_be32(b, at + v2::kCrcOffset, v2::compute_crc(entry));
  else
    set_be32(b, at + legacy::kCrcOffset, legacy::compute_crc(entry));
}

// A v2 segment of at least `min_bytes`: the Kafka-written batches of `input`
// repeated, each copy's offsets moved up so that they keep increasing (CRCs
// fixed). `starts` gets the position of every entry.
inline Buf repeated_log(const std::string& input, size_t min_bytes, std::vector<size_t>& starts) {
  const Buf one = corpus_log(input);
  const auto bounds = entry_bounds(view(one));
  int64_t last = -1;
  EntryScanner sc(view(one), Position{0});
  while (auto e = sc.next()) last = v2::decode_header(*e)->last_offset();
  Buf file;
  for (int64_t copy = 0; file.size() < min_bytes; ++copy)
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      const size_t at = file.size();
      starts.push_back(at);
      file.insert(file.end(), one.begin() + static_cast<std::ptrdiff_t>(bounds[i]),
                  one.begin() + static_cast<std::ptrdiff_t>(bounds[i + 1]));
      set_be64(file, at, load_be64(&one[bounds[i]]) + static_cast<uint64_t>(copy * (last + 1)));
      fix_crc(file, at);
    }
  return file;
}

// The CRC stored in an entry, read straight from its bytes (no decoding).
inline uint32_t stored_crc(Bytes entry) {
  return load_be32(entry.data() + (static_cast<int8_t>(entry[kMagicOffset]) >= 2 ? v2::kCrcOffset : legacy::kCrcOffset));
}
inline uint32_t computed_crc(Bytes entry) {
  return static_cast<int8_t>(entry[kMagicOffset]) >= 2 ? v2::compute_crc(entry) : legacy::compute_crc(entry);
}

}  // namespace kseg::corrupt
