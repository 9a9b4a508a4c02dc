// SPDX-License-Identifier: Apache-2.0
// zstd (codec 4, magic 2 only): plain zstd frames, no Kafka framing. Reading
// follows zstd-jni's ZstdInputStream: any number of concatenated frames,
// skippable frames skipped, an input ending inside a frame is an error
// ("Truncated source"), an empty region is an empty stream. The decoder's
// window limit stays at libzstd's default (2^27), as in Kafka.
#include <zstd.h>

#include <algorithm>

#include "lib/codec_internal.h"

namespace kseg::codec_detail {
namespace {

constexpr int kLevel = 3;  // compression.zstd.level default

struct DCtx {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~DCtx() { ZSTD_freeDCtx(ctx); }
};
struct CCtx {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ~CCtx() { ZSTD_freeCCtx(ctx); }
};

// The declared content size of the first frame when it has one and it fits
// the budget; a first output-buffer size that usually avoids regrowth.
size_t size_hint(Bytes in, size_t limit) {
  const unsigned long long n = ZSTD_getFrameContentSize(in.data(), in.size());
  if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || n >= limit) return 0;
  return static_cast<size_t>(n);
}

}  // namespace

Status zstd_decompress(Bytes in, Position in_position, OutputBuffer& out) {
  thread_local DCtx dctx;
  if (dctx.ctx == nullptr) return codec_error(in_position, 0, "zstd: cannot create a decompression context");
  ZSTD_DCtx_reset(dctx.ctx, ZSTD_reset_session_only);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  // Kafka's producer writes no content size; then guess 4x the input, and
  // double after, not ZSTD_DStreamOutSize(): every byte the output grows by
  // is zero-filled, per batch.
  const size_t hint = size_hint(in, out.limit());
  size_t want = hint > 0 ? hint + 1 : std::max<size_t>(4096, 4 * in.size());  // +1: see the end in one pass
  bool between_frames = true;  // libzstd returned 0: the last frame is complete and flushed
  for (;;) {
    if (between_frames && src.pos == src.size) return {};
    auto span = out.writable(want);
    uint8_t probe = 0;  // when the budget is spent: does the stream have more?
    const bool probing = span.empty();
    ZSTD_outBuffer dst{probing ? &probe : span.data(), probing ? 1 : span.size(), 0};
    const size_t rc = ZSTD_decompressStream(dctx.ctx, &dst, &src);
    if (ZSTD_isError(rc))
      return codec_error(in_position, src.pos,
                         fmt::format("zstd: {} at compressed byte {}", ZSTD_getErrorName(rc), src.pos));
    if (probing && dst.pos > 0) return too_large_error("zstd", in_position, src.pos, out.limit());
    if (!probing) out.commit(dst.pos);
    want = std::max<size_t>(4096, out.size());
    between_frames = rc == 0;
    if (!between_frames && src.pos == src.size && dst.pos < dst.size)  // waiting for input that is not there
      return codec_error(in_position, in.size(),
                         fmt::format("zstd: truncated source: input ends inside a frame after {} bytes", in.size()));
  }
}

Status zstd_compress(Bytes in, std::vector<uint8_t>& out) {
  thread_local CCtx cctx;
  if (cctx.ctx == nullptr) return Status::fail(Errc::internal, std::nullopt, "zstd: cannot create a compression context");
  const size_t start = out.size();
  out.resize(start + ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compressCCtx(cctx.ctx, out.data() + start, out.size() - start, in.data(), in.size(), kLevel);
  if (ZSTD_isError(n)) {
    out.resize(start);
    return Status::fail(Errc::internal, std::nullopt, fmt::format("zstd: {}", ZSTD_getErrorName(n)));
  }
  out.resize(start + n);
  return {};
}

}  // namespace kseg::codec_detail
