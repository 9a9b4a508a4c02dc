// SPDX-License-Identifier: Apache-2.0
// Codec dispatch; the framings live in codec_gzip.cc, codec_snappy.cc,
// codec_lz4.cc and codec_zstd.cc.
#include "lib/codec.h"

#include <cstring>

#include "lib/codec_internal.h"

namespace kseg {

using codec_detail::OutputBuffer;

const char* codec_name(int id) {
  switch (id) {
    case 0: return "none";
    case 1: return "gzip";
    case 2: return "snappy";
    case 3: return "lz4";
    case 4: return "zstd";
    default: return nullptr;
  }
}

Status decompress(Codec codec, Bytes in, Position in_position, std::vector<uint8_t>& out,
                  const CodecOptions& opts) {
  OutputBuffer buf(out, opts.max_output);
  switch (codec) {
    case Codec::none: {
      if (in.size() > buf.limit()) return codec_detail::too_large_error("none", in_position, buf.limit(), buf.limit());
      auto span = buf.writable(in.size());
      if (!in.empty()) std::memcpy(span.data(), in.data(), in.size());
      buf.commit(in.size());
      return {};
    }
    case Codec::gzip: return codec_detail::gzip_decompress(in, in_position, buf);
    case Codec::snappy: return codec_detail::snappy_decompress(in, in_position, buf);
    case Codec::lz4:
      return codec_detail::lz4_decompress(in, in_position, buf, opts.lz4_broken_header_checksum);
    case Codec::zstd: return codec_detail::zstd_decompress(in, in_position, buf);
  }
  return Status::fail(Errc::bad_codec, in_position,
                      fmt::format("unknown compression codec id {}", static_cast<int>(codec)));
}

Status compress(Codec codec, Bytes in, std::vector<uint8_t>& out, const CodecOptions& opts) {
  switch (codec) {
    case Codec::none: out.insert(out.end(), in.begin(), in.end()); return {};
    case Codec::gzip: return codec_detail::gzip_compress(in, out);
    case Codec::snappy: return codec_detail::snappy_compress(in, out);
    case Codec::lz4: return codec_detail::lz4_compress(in, out, opts.lz4_broken_header_checksum);
    case Codec::zstd: return codec_detail::zstd_compress(in, out);
  }
  return Status::fail(Errc::bad_codec, std::nullopt,
                      fmt::format("unknown compression codec id {}", static_cast<int>(codec)));
}

}  // namespace kseg
