// SPDX-License-Identifier: Apache-2.0
// Shared plumbing of the codec implementations (codec_*.cc); not a public
// interface. Each codec decompresses into an OutputBuffer, which enforces
// CodecOptions::max_output as it grows, and reports errors through
// codec_error() so every message starts with the codec name and every
// position is in_position + the byte index inside the compressed region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lib/codec.h"

namespace kseg::codec_detail {

// Grows `out` on demand without ever holding more than `limit` bytes, so a
// decompression bomb costs at most the budget. Bytes are written straight
// into the vector; its existing capacity is reused.
class OutputBuffer {
 public:
  OutputBuffer(std::vector<uint8_t>& out, size_t limit) : out_(out), limit_(limit) { out_.clear(); }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer() { out_.resize(used_); }  // trims to what was committed

  size_t size() const { return used_; }
  size_t limit() const { return limit_; }
  size_t room() const { return limit_ - used_; }  // budget left

  // At least min(want, room()) writable bytes after size() (possibly more);
  // empty only when the budget is spent.
  std::span<uint8_t> writable(size_t want) {
    const size_t need = used_ + (want < room() ? want : room());
    if (out_.size() < need) grow(need);
    return {out_.data() + used_, out_.size() - used_};
  }
  void commit(size_t n) { used_ += n; }

 private:
  void grow(size_t need) {
    size_t target = out_.size() * 2;
    if (target < 4096) target = 4096;
    if (target < need) target = need;
    if (target > limit_) target = limit_;
    out_.reserve(target);  // exact allocation: resize() alone may overshoot
    out_.resize(target);
  }

  std::vector<uint8_t>& out_;
  size_t limit_;
  size_t used_ = 0;
};

inline Status codec_error(Position in_position, size_t at, std::string message) {
  return Status::fail(Errc::decompress, in_position + Length{static_cast<int64_t>(at)},
                      std::move(message));
}

inline Status too_large_error(const char* codec, Position in_position, size_t at, size_t limit) {
  return Status::fail(Errc::too_large, in_position + Length{static_cast<int64_t>(at)},
                      fmt::format("{}: decompressed size exceeds the limit of {} bytes (--max-decompressed-bytes)",
                                  codec, limit));
}

inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline void store_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_be32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

Status gzip_decompress(Bytes in, Position in_position, OutputBuffer& out);  // picks one of:
Status gzip_decompress_zlib(Bytes in, Position in_position, OutputBuffer& out);
bool gzip_isal_available();
Status gzip_decompress_isal(Bytes in, Position in_position, OutputBuffer& out);  // zlib without ISA-L
// Java's GZIPInputStream.readHeader on the bytes after a member's trailer:
// true if they start with a complete gzip header it would accept.
bool gzip_next_member_header_ok(Bytes rest);
// ISIZE of the last member when plausible (<= limit), a first guess of the output size.
size_t gzip_size_hint(Bytes in, size_t limit);
Status gzip_compress(Bytes in, std::vector<uint8_t>& out);
Status snappy_decompress(Bytes in, Position in_position, OutputBuffer& out);
Status snappy_compress(Bytes in, std::vector<uint8_t>& out);
Status lz4_decompress(Bytes in, Position in_position, OutputBuffer& out, bool broken_header_checksum);
Status lz4_compress(Bytes in, std::vector<uint8_t>& out, bool broken_header_checksum);
Status zstd_decompress(Bytes in, Position in_position, OutputBuffer& out);
Status zstd_compress(Bytes in, std::vector<uint8_t>& out);

}  // namespace kseg::codec_detail
