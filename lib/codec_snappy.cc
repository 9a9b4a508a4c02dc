// SPDX-License-Identifier: Apache-2.0
// snappy (codec 2): snappy-java's ("xerial") stream framing, and raw snappy
// blocks as sent by non-Java clients. Read rules follow SnappyInputStream
// 1.1.10.5 (compression.md §4.2):
//   framed iff the region has >= 16 bytes and starts with the 8-byte magic;
//   chunks are a BE int32 length + one raw block; a 1-3 byte tail is ignored;
//   a "length" equal to the first four magic bytes starts a concatenated
//   stream header; the stream ends there if that header's magic differs.
#include <snappy.h>

#include <algorithm>
#include <cstring>

#include "lib/codec_internal.h"

namespace kseg::codec_detail {
namespace {

constexpr uint8_t kMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kHeaderSize = 16;
constexpr uint32_t kMagicPrefix = 0x82534E41u;  // kMagic[0..3] read as a BE int32
constexpr uint32_t kMaxChunkSize = 512u << 20;
constexpr size_t kChunkInput = 32u << 10;  // snappy-java's DEFAULT_BLOCK_SIZE
constexpr size_t kMaxExpansion = 22;       // 64 output bytes per 3-byte copy element

// Decodes one raw snappy block, in[start, start+len), appending to out.
Status raw_block(Bytes in, size_t start, size_t len, Position in_position, OutputBuffer& out) {
  const char* src = reinterpret_cast<const char*>(in.data() + start);
  size_t n = 0;
  if (!snappy::GetUncompressedLength(src, len, &n))
    return codec_error(in_position, start,
                       fmt::format("snappy: bad uncompressed-length varint in block at compressed byte {}", start));
  // A snappy element expands at most 64 bytes out of 3 in, so a larger claim
  // is corrupt, not a bomb. Check the claim against the budget before
  // allocating anything.
  if (n / kMaxExpansion > len)
    return codec_error(in_position, start,
                       fmt::format("snappy: block at compressed byte {} declares {} bytes, more than its {} bytes can hold",
                                   start, n, len));
  if (n > out.room()) return too_large_error("snappy", in_position, start, out.limit());
  auto span = out.writable(n);
  if (!snappy::RawUncompress(src, len, reinterpret_cast<char*>(span.data())))
    return codec_error(in_position, start,
                       fmt::format("snappy: corrupt block of {} bytes at compressed byte {}", len, start));
  out.commit(n);
  return {};
}

bool has_magic(Bytes b) { return b.size() >= 8 && std::memcmp(b.data(), kMagic, 8) == 0; }

}  // namespace

Status snappy_decompress(Bytes in, Position in_position, OutputBuffer& out) {
  if (in.empty()) return codec_error(in_position, 0, "snappy: cannot decompress empty stream");
  if (in.size() < kHeaderSize || !has_magic(in)) return raw_block(in, 0, in.size(), in_position, out);
  size_t pos = kHeaderSize;  // the first header's version ints are not checked (as snappy-java)
  while (in.size() - pos >= 4) {
    const size_t at = pos;
    const uint32_t len = load_be32(in.data() + pos);
    pos += 4;
    if (len == kMagicPrefix) {  // a concatenated stream's header
      if (in.size() - at < kHeaderSize)
        return codec_error(in_position, at,
                           fmt::format("snappy: insufficient header size in a concatenated block at compressed byte {}", at));
      if (!has_magic(in.subspan(at))) return {};
      const auto version = static_cast<int32_t>(load_be32(in.data() + at + 8));
      if (version < 1)
        return codec_error(in_position, at + 8,
                           fmt::format("snappy: unsupported stream version {} at compressed byte {}", version, at + 8));
      pos = at + kHeaderSize;
      continue;
    }
    if (len > kMaxChunkSize)  // also catches negative int32 lengths
      return codec_error(in_position, at,
                         fmt::format("snappy: chunk size {} is too big or negative at compressed byte {}",
                                     static_cast<int32_t>(len), at));
    if (len > in.size() - pos)
      return codec_error(in_position, at,
                         fmt::format("snappy: failed to read chunk: {} bytes announced at compressed byte {}, {} left",
                                     len, at, in.size() - pos));
    KSEG_RETURN_IF_ERROR(raw_block(in, pos, len, in_position, out));
    pos += len;
  }
  return {};
}

Status snappy_compress(Bytes in, std::vector<uint8_t>& out) {
  const size_t chunks = (in.size() + kChunkInput - 1) / kChunkInput;
  out.reserve(out.size() + kHeaderSize + chunks * (4 + snappy::MaxCompressedLength(kChunkInput)));
  out.insert(out.end(), kMagic, kMagic + 8);
  const uint8_t versions[8] = {0, 0, 0, 1, 0, 0, 0, 1};  // version 1, min compatible 1
  out.insert(out.end(), versions, versions + 8);
  for (size_t pos = 0; pos < in.size(); pos += kChunkInput) {
    const size_t n = std::min(kChunkInput, in.size() - pos);
    const size_t len_at = out.size();
    out.resize(len_at + 4 + snappy::MaxCompressedLength(n));
    size_t written = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data() + pos), n,
                        reinterpret_cast<char*>(out.data() + len_at + 4), &written);
    store_be32(out.data() + len_at, static_cast<uint32_t>(written));
    out.resize(len_at + 4 + written);
  }
  return {};
}

}  // namespace kseg::codec_detail
