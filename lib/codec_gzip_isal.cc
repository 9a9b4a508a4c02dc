// SPDX-License-Identifier: Apache-2.0
// gzip decoding with ISA-L's isal_inflate (gzip wrapper: header parsed,
// CRC-32 and ISIZE verified), same member/trailing-bytes rules as the zlib
// decoder in codec_gzip.cc. Chosen when built with ISA-L because it measured
// 2-3x faster than zlib on Kafka-like payloads.
#include <algorithm>
#include <memory>

#include "lib/codec_internal.h"

#ifdef KSEG_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace kseg::codec_detail {

#ifdef KSEG_HAVE_ISAL
namespace {

const char* isal_error_name(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid lookback distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "corrupt gzip trailer (CRC-32 or ISIZE)";
    case ISAL_NEED_DICT: return "needs a dictionary";
    default: return "inflate failed";
  }
}

void start_member(inflate_state& st) {
  isal_inflate_reset(&st);
  st.crc_flag = ISAL_GZIP;
}

}  // namespace

bool gzip_isal_available() { return true; }

Status gzip_decompress_isal(Bytes in, Position in_position, OutputBuffer& out) {
  // inflate_state is ~40 KiB: one per thread, on the heap.
  thread_local std::unique_ptr<inflate_state> state = [] {
    auto s = std::make_unique<inflate_state>();
    isal_inflate_init(s.get());
    return s;
  }();
  inflate_state& st = *state;
  start_member(st);
  uint8_t* const begin = const_cast<uint8_t*>(in.data());  // ISA-L only reads it
  uint8_t* const end = begin + in.size();
  st.next_in = begin;
  st.avail_in = 0;
  const auto at = [&] { return static_cast<size_t>(st.next_in - begin); };
  size_t want = gzip_size_hint(in, out.limit()) + 1;
  for (;;) {
    if (st.avail_in == 0) st.avail_in = static_cast<uint32_t>(std::min<size_t>(end - st.next_in, UINT32_MAX));
    auto span = out.writable(want);
    uint8_t probe = 0;  // when the budget is spent: does the stream have more?
    const bool probing = span.empty();
    st.next_out = probing ? &probe : span.data();
    st.avail_out = probing ? 1u : static_cast<uint32_t>(std::min<size_t>(span.size(), UINT32_MAX));
    const uint32_t avail_before = st.avail_out;
    const int rc = isal_inflate(&st);
    const size_t produced = avail_before - st.avail_out;
    if (rc < 0 || rc == ISAL_NEED_DICT)
      return codec_error(in_position, at(), fmt::format("gzip: {} near compressed byte {}", isal_error_name(rc), at()));
    if (probing && produced > 0) return too_large_error("gzip", in_position, at(), out.limit());
    if (!probing) out.commit(produced);
    want = 64u << 10;
    if (st.block_state == ISAL_BLOCK_FINISH) {
      if (!gzip_next_member_header_ok(Bytes(st.next_in, static_cast<size_t>(end - st.next_in)))) return {};
      start_member(st);
      continue;
    }
    if (st.avail_out == 0) continue;  // output full: the loop grows it
    if (st.next_in == end)
      return codec_error(in_position, at(), fmt::format("gzip: unexpected end of input after {} bytes", in.size()));
  }
}
#else
bool gzip_isal_available() { return false; }
Status gzip_decompress_isal(Bytes in, Position in_position, OutputBuffer& out) {
  return gzip_decompress_zlib(in, in_position, out);
}
#endif

}  // namespace kseg::codec_detail
