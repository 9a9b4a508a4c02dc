// SPDX-License-Identifier: Apache-2.0
// Fuzzes the decompressors. Byte 0 picks the codec (bits 0-2, id mod 5) and
// the magic-0 LZ4 header-checksum option (bit 3); the rest is the compressed
// region, decoded with a 1 MiB budget. Whatever decodes must survive a
// compress/decompress round trip.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lib/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto codec = static_cast<kseg::Codec>((data[0] & 7) % 5);
  kseg::CodecOptions opts;
  opts.max_output = 1u << 20;
  opts.lz4_broken_header_checksum = (data[0] & 8) != 0;
  const kseg::Bytes in(data + 1, size - 1);
  std::vector<uint8_t> out;
  const kseg::Status st = kseg::decompress(codec, in, kseg::Position{0}, out, opts);
  if (!st.ok()) {
    if (st.error().message.empty()) std::abort();
    return 0;
  }
  if (out.size() > opts.max_output) std::abort();
  std::vector<uint8_t> again, back;
  if (!kseg::compress(codec, out, again, opts).ok()) std::abort();
  if (!kseg::decompress(codec, again, kseg::Position{0}, back, opts).ok() || back != out) std::abort();
  return 0;
}
