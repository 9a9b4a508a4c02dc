// SPDX-License-Identifier: Apache-2.0
// Test support: a segment re-encoded through kseg's encoders. Every entry whose
// CRC holds and whose records decode is rebuilt from its decoded fields (v2
// batches through v2::append_record/append_batch, legacy messages and wrappers
// through legacy::append_message/append_wrapper); anything else, and the tail
// after the last entry, is copied as it is. Used by test_encode.cc and by
// tests/kafka/encoder-oracle.sh (through kseg_reencode), which has Kafka load
// the result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/codec.h"
#include "lib/status.h"

namespace kseg::test {

struct ReencodeStats {
  int64_t v2_plain = 0;        // uncompressed v2 batches rebuilt
  int64_t v2_plain_same = 0;   //   of which byte-identical to the input
  int64_t v2_packed = 0;       // compressed v2 batches rebuilt (records region identical, re-compressed)
  int64_t legacy_plain = 0;    // uncompressed v0/v1 messages rebuilt
  int64_t legacy_plain_same = 0;
  int64_t legacy_packed = 0;   // wrappers rebuilt (inner set identical, re-compressed)
  int64_t region_same = 0;     // compressed entries whose re-encoded records or inner set was identical
  int64_t copied = 0;          // entries copied unchanged (CRC mismatch, undecodable records)
  std::string summary() const;
};

// Re-encodes `log` into `out`. `codec`, when set, replaces the codec of every
// v2 batch and of every compressed legacy wrapper (a legacy wrapper keeps its
// codec when `codec` is zstd or none, which magic 0/1 cannot hold). A
// wrapper with a key (Kafka writes none) is copied, as the encoder writes
// Kafka's shape only.
Status reencode_log(Bytes log, std::optional<Codec> codec, std::vector<uint8_t>& out, ReencodeStats& stats,
                    size_t max_decompressed = 256u << 20);

// One line per record of an encoded segment, position-free (offset, timestamp,
// key, value, headers, batch fields), for comparing two encodings of the same
// records.
std::vector<std::string> record_lines(Bytes log, size_t max_decompressed = 256u << 20);

}  // namespace kseg::test
