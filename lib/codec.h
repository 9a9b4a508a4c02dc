// SPDX-License-Identifier: Apache-2.0
// Kafka's compression codecs, with Kafka's framings:
//   gzip   RFC 1952 stream (Java's GZIPOutputStream)
//   snappy snappy-java (xerial) stream framing on write; on read also raw
//          snappy blocks, as snappy-java accepts both
//   lz4    Kafka's LZ4 frame (KafkaLZ4BlockInputStream); magic 0 stores a
//          header checksum computed over the magic bytes too (KIP-57)
//   zstd   zstd frames (magic 2 only)
// Decompressed output is bounded: passing max_output guards against
// decompression bombs; exceeding it is Errc::too_large, never an OOM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/status.h"

namespace kseg {

enum class Codec : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };

// Kafka's lower-case name for a codec id 0..4; nullptr for anything else.
const char* codec_name(int id);

struct CodecOptions {
  size_t max_output = 64u << 20;  // bytes of decompressed output allowed
  bool lz4_broken_header_checksum = false;  // true for magic 0 (KIP-57)
};

// Decompresses all of `in` into `out` (replacing its contents; its capacity
// is reused). Errors carry `in_position` (the absolute file position of
// in[0]) plus the byte index in `in` where the codec failed, when known. On
// failure `out` holds what was decoded before the error.
Status decompress(Codec codec, Bytes in, Position in_position, std::vector<uint8_t>& out,
                  const CodecOptions& opts = {});

// Compresses `in` the way Kafka's producer would for this codec, appending to `out`.
Status compress(Codec codec, Bytes in, std::vector<uint8_t>& out, const CodecOptions& opts = {});

}  // namespace kseg
