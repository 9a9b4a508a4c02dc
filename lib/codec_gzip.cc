// SPDX-License-Identifier: Apache-2.0
// gzip (codec 1): RFC 1952 members through zlib's gzip wrapper, with
// java.util.zip.GZIPInputStream's rules for what follows a member: another
// member is decoded only if a complete, valid gzip header starts right after
// the trailer; anything else there is ignored. Truncation is an error.
// Known difference: zlib rejects reserved FLG bits that Java (and ISA-L)
// ignore. gzip_decompress() prefers ISA-L (codec_gzip_isal.cc) when built with it.
#include <algorithm>
#include <climits>

#include <zlib.h>

#include "lib/checksum.h"
#include "lib/codec_internal.h"

namespace kseg::codec_detail {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // 32 KiB window, gzip wrapper only
constexpr uint8_t kFhcrc = 0x02, kFextra = 0x04, kFname = 0x08, kFcomment = 0x10;

// One inflate/deflate state per thread, reset between calls: zlib's state
// allocations (~7 KiB inflate, ~270 KiB deflate) are paid once.
struct Inflater {
  z_stream z{};
  bool ready = false;
  ~Inflater() { if (ready) inflateEnd(&z); }
  bool start() {
    if (ready) return inflateReset2(&z, kGzipWindowBits) == Z_OK;
    ready = inflateInit2(&z, kGzipWindowBits) == Z_OK;
    return ready;
  }
};

struct Deflater {
  z_stream z{};
  bool ready = false;
  gz_header header{};
  ~Deflater() { if (ready) deflateEnd(&z); }
  bool start() {
    if (ready) {
      if (deflateReset(&z) != Z_OK) return false;
    } else {
      ready = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                           Z_DEFAULT_STRATEGY) == Z_OK;
      if (!ready) return false;
    }
    header = gz_header{};
    header.os = 255;  // "unknown", as current JDKs write; MTIME 0, no name
    return deflateSetHeader(&z, &header) == Z_OK;
  }
};

}  // namespace

bool gzip_next_member_header_ok(Bytes rest) {
  if (rest.size() < 10 || rest[0] != 0x1F || rest[1] != 0x8B || rest[2] != 8) return false;
  const uint8_t flg = rest[3];
  size_t pos = 10;
  if (flg & kFextra) {
    if (rest.size() - pos < 2) return false;
    pos += 2 + (size_t{rest[pos]} | (size_t{rest[pos + 1]} << 8));
    if (pos > rest.size()) return false;
  }
  for (uint8_t field : {kFname, kFcomment}) {
    if (!(flg & field)) continue;
    while (pos < rest.size() && rest[pos] != 0) ++pos;
    if (pos == rest.size()) return false;
    ++pos;
  }
  if (flg & kFhcrc) {
    if (rest.size() - pos < 2) return false;
    const uint32_t stored = rest[pos] | (uint32_t{rest[pos + 1]} << 8);
    if ((crc32(rest.first(pos)) & 0xFFFF) != stored) return false;
  }
  return true;
}

size_t gzip_size_hint(Bytes in, size_t limit) {
  if (in.size() < 18) return 0;
  size_t isize = load_le32(in.data() + in.size() - 4);
  // Deflate cannot expand more than ~1032:1; ignore hints that could not be true.
  if (isize / 1032 > in.size()) isize = 0;
  return isize < limit ? isize : limit;
}

Status gzip_decompress_zlib(Bytes in, Position in_position, OutputBuffer& out) {
  thread_local Inflater inflater;
  if (!inflater.start()) return codec_error(in_position, 0, "gzip: cannot initialise zlib");
  z_stream& z = inflater.z;
  const uint8_t* const begin = in.data();
  const uint8_t* const end = begin + in.size();
  z.next_in = const_cast<Bytef*>(begin);  // zlib's API is not const-correct
  z.avail_in = 0;
  const auto at = [&] { return static_cast<size_t>(z.next_in - begin); };
  size_t want = gzip_size_hint(in, out.limit()) + 1;  // +1 so the end is seen without a second buffer
  for (;;) {
    if (z.avail_in == 0) z.avail_in = static_cast<uInt>(std::min<size_t>(end - z.next_in, UINT_MAX));
    auto span = out.writable(want);
    uint8_t probe = 0;  // when the budget is spent: does the stream have more?
    const bool probing = span.empty();
    z.next_out = probing ? &probe : span.data();
    z.avail_out = probing ? 1u : static_cast<uInt>(std::min<size_t>(span.size(), UINT_MAX));
    const uInt avail_before = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = avail_before - z.avail_out;
    if (probing && produced > 0) return too_large_error("gzip", in_position, at(), out.limit());
    if (!probing) out.commit(produced);
    want = 64u << 10;
    if (rc == Z_STREAM_END) {
      if (!gzip_next_member_header_ok(Bytes(z.next_in, static_cast<size_t>(end - z.next_in)))) return {};
      if (inflateReset(&z) != Z_OK) return codec_error(in_position, at(), "gzip: cannot reset zlib");
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      if (z.avail_out == 0) continue;  // output full: the loop grows it
      if (z.next_in == end)
        return codec_error(in_position, at(),
                           fmt::format("gzip: unexpected end of input after {} bytes", in.size()));
      if (z.avail_in == 0) continue;  // more than 4 GiB of input: refill
    }
    return codec_error(in_position, at(),
                       fmt::format("gzip: {} at compressed byte {}", z.msg ? z.msg : zError(rc), at()));
  }
}

Status gzip_decompress(Bytes in, Position in_position, OutputBuffer& out) {
#ifdef KSEG_HAVE_ISAL
  return gzip_decompress_isal(in, in_position, out);  // 2-3x faster, see codec_gzip_isal.cc
#else
  return gzip_decompress_zlib(in, in_position, out);
#endif
}

Status gzip_compress(Bytes in, std::vector<uint8_t>& out) {
  thread_local Deflater deflater;
  if (!deflater.start()) return Status::fail(Errc::internal, std::nullopt, "gzip: cannot initialise zlib");
  z_stream& z = deflater.z;
  const size_t old_size = out.size();
  out.resize(old_size + deflateBound(&z, static_cast<uLong>(in.size())));
  z.next_in = const_cast<Bytef*>(in.data());
  z.next_out = out.data() + old_size;
  size_t in_left = in.size();
  size_t out_left = out.size() - old_size;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.avail_in = static_cast<uInt>(std::min<size_t>(in_left, UINT_MAX));
    z.avail_out = static_cast<uInt>(std::min<size_t>(out_left, UINT_MAX));
    const uInt ai = z.avail_in, ao = z.avail_out;
    rc = deflate(&z, in_left == ai ? Z_FINISH : Z_NO_FLUSH);
    in_left -= ai - z.avail_in;
    out_left -= ao - z.avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END) {
      out.resize(old_size);
      return Status::fail(Errc::internal, std::nullopt, fmt::format("gzip: deflate failed: {}", zError(rc)));
    }
  }
  out.resize(out.size() - out_left);
  return {};
}

}  // namespace kseg::codec_detail
