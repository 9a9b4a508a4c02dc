// SPDX-License-Identifier: Apache-2.0
// kseg_reencode [--codec NAME] IN OUT: writes IN (a .log or KRaft .checkpoint)
// re-encoded through kseg's encoders to OUT (tests/unit/reencode.h says how),
// and prints what it rebuilt. For encoder-oracle.sh, which has Kafka load it.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/reencode.h"

int main(int argc, char** argv) {
  std::optional<kseg::Codec> codec;
  int i = 1;
  if (argc == 5 && std::strcmp(argv[1], "--codec") == 0) {
    for (int id = 0; id <= 4; ++id)
      if (std::strcmp(argv[2], kseg::codec_name(id)) == 0) codec = static_cast<kseg::Codec>(id);
    if (!codec) { std::fprintf(stderr, "kseg_reencode: unknown codec %s\n", argv[2]); return 2; }
    i = 3;
  } else if (argc != 3) {
    std::fprintf(stderr, "usage: kseg_reencode [--codec none|gzip|snappy|lz4|zstd] IN OUT\n");
    return 2;
  }
  std::ifstream in(argv[i], std::ios::binary);
  if (!in) { std::fprintf(stderr, "kseg_reencode: cannot open %s\n", argv[i]); return 3; }
  const std::vector<uint8_t> log{std::istreambuf_iterator<char>(in), {}};
  std::vector<uint8_t> out;
  kseg::test::ReencodeStats st;
  const kseg::Status s = kseg::test::reencode_log(log, codec, out, st);
  if (!s.ok()) { std::fprintf(stderr, "kseg_reencode: %s\n", s.error().message.c_str()); return 1; }
  std::ofstream o(argv[i + 1], std::ios::binary | std::ios::trunc);
  o.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
  if (!o.flush()) { std::fprintf(stderr, "kseg_reencode: cannot write %s\n", argv[i + 1]); return 3; }
  std::printf("%s: %s\n", argv[i], st.summary().c_str());
  return 0;
}
