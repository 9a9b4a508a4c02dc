// SPDX-License-Identifier: Apache-2.0
// The codec bound for the benchmarks: walks a segment's batches and only
// decompresses their payloads (no CRC, no record parsing), with the same
// libraries kseg uses. `kseg-verify --deep` on compressed data cannot beat it.
#include <cstdio>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"
#include "lib/mapped_file.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kseg_bench_decompress SEGMENT.log\n");
    return 2;
  }
  auto file = kseg::MappedFile::open(argv[1]);
  if (!file.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], file.error().message.c_str());
    return 3;
  }
  std::vector<uint8_t> out;
  size_t batches = 0, bytes = 0;
  kseg::EntryScanner scan(file->bytes(), kseg::Position{0});
  while (auto e = scan.next()) {
    file->release_before(e->position);
    kseg::Bytes payload;
    kseg::CodecOptions opts;
    int codec = 0;
    if (e->magic >= 2) {
      auto h = kseg::v2::decode_header(*e);
      if (!h.ok()) return 1;
      codec = h->codec_id();
      payload = e->bytes.subspan(kseg::v2::kRecordBatchOverhead);
    } else {
      auto m = kseg::legacy::decode(*e);
      if (!m.ok()) return 1;
      codec = m->codec_id();
      payload = m->value.bytes;
      opts.lz4_broken_header_checksum = m->magic == 0;
    }
    if (codec == 0) continue;
    opts.max_output = 256u << 20;
    if (!kseg::decompress(static_cast<kseg::Codec>(codec), payload, e->position, out, opts).ok()) return 1;
    ++batches;
    bytes += out.size();
  }
  std::printf("%zu batches, %zu bytes decompressed\n", batches, bytes);
  return 0;
}
