// SPDX-License-Identifier: Apache-2.0
// lz4 (codec 3): Kafka's own LZ4 frame (Lz4BlockInputStream /
// Lz4BlockOutputStream) over liblz4's block API. compression.md §5.
//
//   04 22 4D 18   magic 0x184D2204 (LE)
//   FLG           version 01, block independence 1, block/content checksum
//                 flags, content-size flag, bits 1-0 reserved
//   BD            block max size code 4..7 in bits 6-4; other bits 0
//   [8 bytes]     content size, only if flagged; skipped
//   HC            (XXH32(FLG..descriptor end) >> 8) & 0xFF; magic 0 (KIP-57)
//                 writes it over the magic too and readers skip it
//   blocks        LE uint32 size word (bit 31: stored uncompressed), data,
//                 [XXH32 of the stored data if flagged]
//   00 00 00 00   EndMark (a zero size after masking bit 31), [content
//                 checksum if flagged: consumed, not verified]; later bytes
//                 are ignored
#include <lz4.h>

#include <algorithm>

#include "lib/codec_internal.h"
#include "lib/xxhash32.h"

namespace kseg::codec_detail {
namespace {

constexpr uint32_t kMagic = 0x184D2204u;
constexpr uint8_t kFlgWritten = 0x60;  // version 01, independent blocks, no checksums
constexpr uint8_t kBdWritten = 0x40;   // 64 KiB blocks
constexpr size_t kWriteBlock = 64u << 10;
constexpr uint32_t kUncompressedBit = 0x80000000u;

struct FrameHeader {
  bool block_checksum = false;
  bool content_checksum = false;
  size_t block_max = 0;
  size_t size = 0;  // bytes up to and including HC
};

Status premature(Position in_position, size_t at, const char* what) {
  return codec_error(in_position, at,
                     fmt::format("lz4: stream ended prematurely: {} at frame byte {}", what, at));
}

Status read_header(Bytes in, Position in_position, bool skip_hc, FrameHeader& h) {
  if (in.size() < 6) return premature(in_position, in.size(), "need 6 bytes of magic, FLG and BD");
  const uint32_t magic = load_le32(in.data());
  if (magic != kMagic)
    return codec_error(in_position, 0,
                       fmt::format("lz4: invalid magic 0x{:08x}, expected 0x{:08x} at frame byte 0", magic, kMagic));
  const uint8_t flg = in[4], bd = in[5];
  if (flg & 0x03)
    return codec_error(in_position, 4, fmt::format("lz4: FLG 0x{:02x}: reserved bits must be 0 at frame byte 4", flg));
  if (!(flg & 0x20))
    return codec_error(in_position, 4, fmt::format("lz4: FLG 0x{:02x}: dependent block stream is unsupported at frame byte 4", flg));
  if ((flg >> 6) != 1)
    return codec_error(in_position, 4, fmt::format("lz4: FLG 0x{:02x}: version {} is unsupported at frame byte 4", flg, flg >> 6));
  if (bd & 0x8F)
    return codec_error(in_position, 5, fmt::format("lz4: BD 0x{:02x}: reserved bits must be 0 at frame byte 5", bd));
  const int code = (bd >> 4) & 7;
  if (code < 4)
    return codec_error(in_position, 5, fmt::format("lz4: BD 0x{:02x}: block size code {} is unsupported (4..7) at frame byte 5", bd, code));
  h.block_max = size_t{1} << (2 * code + 8);
  h.block_checksum = flg & 0x10;
  h.content_checksum = flg & 0x04;
  size_t pos = 6;
  if (flg & 0x08) {  // content size: skipped, as Kafka does
    if (in.size() - pos < 8) return premature(in_position, in.size(), "content size field cut short");
    pos += 8;
  }
  if (in.size() - pos < 1) return premature(in_position, in.size(), "header checksum missing");
  if (!skip_hc) {
    const auto computed = static_cast<uint8_t>(xxh32(in.subspan(4, pos - 4)) >> 8);
    if (in[pos] != computed)
      return codec_error(in_position, pos,
                         fmt::format("lz4: frame descriptor corrupted: header checksum 0x{:02x}, computed 0x{:02x} at frame byte {}",
                                     in[pos], computed, pos));
  }
  h.size = pos + 1;
  return {};
}

// Decodes one compressed block straight into `out`. When the budget left is
// smaller than a block could be, decode into scratch to tell a bomb from a
// corrupt block.
Status decode_block(Bytes data, size_t at, size_t block_max, Position in_position, OutputBuffer& out) {
  const char* src = reinterpret_cast<const char*>(data.data());
  const int src_len = static_cast<int>(data.size());
  if (out.room() >= block_max) {
    auto span = out.writable(block_max);
    const int n = LZ4_decompress_safe(src, reinterpret_cast<char*>(span.data()), src_len, static_cast<int>(block_max));
    if (n < 0) return codec_error(in_position, at, fmt::format("lz4: corrupt compressed block of {} bytes at frame byte {}", data.size(), at));
    out.commit(static_cast<size_t>(n));
    return {};
  }
  thread_local std::vector<uint8_t> scratch;
  scratch.resize(block_max);
  const int n = LZ4_decompress_safe(src, reinterpret_cast<char*>(scratch.data()), src_len, static_cast<int>(block_max));
  if (n < 0) return codec_error(in_position, at, fmt::format("lz4: corrupt compressed block of {} bytes at frame byte {}", data.size(), at));
  const auto len = static_cast<size_t>(n);
  if (len > out.room()) return too_large_error("lz4", in_position, at, out.limit());
  auto span = out.writable(len);
  std::copy_n(scratch.data(), len, span.data());
  out.commit(len);
  return {};
}

}  // namespace

Status lz4_decompress(Bytes in, Position in_position, OutputBuffer& out, bool broken_header_checksum) {
  FrameHeader h;
  KSEG_RETURN_IF_ERROR(read_header(in, in_position, broken_header_checksum, h));
  size_t pos = h.size;
  for (;;) {
    if (in.size() - pos < 4) return premature(in_position, pos, "block size word missing");
    const size_t at = pos;
    const uint32_t word = load_le32(in.data() + pos);
    pos += 4;
    const size_t size = word & ~kUncompressedBit;
    if (size == 0) {  // EndMark
      if (h.content_checksum && in.size() - pos < 4) return premature(in_position, pos, "content checksum missing");
      return {};
    }
    if (size > h.block_max)
      return codec_error(in_position, at,
                         fmt::format("lz4: block size {} exceeds max {} at frame byte {}", size, h.block_max, at));
    if (in.size() - pos < size) return premature(in_position, at, "block data cut short");
    const Bytes data = in.subspan(pos, size);
    if (word & kUncompressedBit) {
      if (size > out.room()) return too_large_error("lz4", in_position, at, out.limit());
      auto span = out.writable(size);
      std::copy_n(data.data(), size, span.data());
      out.commit(size);
    } else {
      KSEG_RETURN_IF_ERROR(decode_block(data, at, h.block_max, in_position, out));
    }
    pos += size;
    if (h.block_checksum) {
      if (in.size() - pos < 4) return premature(in_position, pos, "block checksum missing");
      const uint32_t stored = load_le32(in.data() + pos), computed = xxh32(data);
      if (stored != computed)
        return codec_error(in_position, pos,
                           fmt::format("lz4: block checksum mismatch: stored 0x{:08x}, computed 0x{:08x} at frame byte {}",
                                       stored, computed, pos));
      pos += 4;
    }
  }
}

Status lz4_compress(Bytes in, std::vector<uint8_t>& out, bool broken_header_checksum) {
  thread_local std::vector<uint8_t> state(static_cast<size_t>(LZ4_sizeofState()));
  const size_t blocks = (in.size() + kWriteBlock - 1) / kWriteBlock;
  const auto bound = static_cast<size_t>(LZ4_compressBound(static_cast<int>(kWriteBlock)));
  const size_t start = out.size();
  out.reserve(start + 7 + blocks * (4 + bound) + 4);
  const uint8_t header[6] = {0x04, 0x22, 0x4D, 0x18, kFlgWritten, kBdWritten};
  out.insert(out.end(), header, header + 6);
  // KIP-57: magic 0 writers hashed the magic bytes too.
  const Bytes hashed = broken_header_checksum ? Bytes(header, 6) : Bytes(header + 4, 2);
  out.push_back(static_cast<uint8_t>(xxh32(hashed) >> 8));
  for (size_t pos = 0; pos < in.size(); pos += kWriteBlock) {
    const size_t n = std::min(kWriteBlock, in.size() - pos);
    const size_t word_at = out.size();
    out.resize(word_at + 4 + bound);
    const int written = LZ4_compress_fast_extState(
        state.data(), reinterpret_cast<const char*>(in.data() + pos),
        reinterpret_cast<char*>(out.data() + word_at + 4), static_cast<int>(n), static_cast<int>(bound), 1);
    if (written > 0 && static_cast<size_t>(written) < n) {
      store_le32(out.data() + word_at, static_cast<uint32_t>(written));
      out.resize(word_at + 4 + static_cast<size_t>(written));
    } else {  // not smaller: store raw, as Kafka does
      store_le32(out.data() + word_at, static_cast<uint32_t>(n) | kUncompressedBit);
      std::copy_n(in.data() + pos, n, out.data() + word_at + 4);
      out.resize(word_at + 4 + n);
    }
  }
  const uint8_t end_mark[4] = {0, 0, 0, 0};
  out.insert(out.end(), end_mark, end_mark + 4);
  return {};
}

}  // namespace kseg::codec_detail
