// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the encoders: the input is a .log image whose first byte
// picks a codec (0..4, or keep each entry's). Every entry kseg can decode is
// re-encoded through v2::append_batch / legacy::append_message and
// append_wrapper (tests/unit/reencode.h), the rest copied; decoding the
// result must give the same records, fields and tail as the input.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "tests/unit/reencode.h"

using namespace kseg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  constexpr size_t kMax = 1u << 20;
  std::optional<Codec> codec;
  if (data[0] < 5) codec = static_cast<Codec>(data[0]);
  const Bytes log(data + 1, size - 1);
  std::vector<uint8_t> out;
  test::ReencodeStats st;
  if (!test::reencode_log(log, codec, out, st, kMax).ok()) std::abort();
  if (test::record_lines(out, kMax) != test::record_lines(log, kMax)) std::abort();
  return 0;
}
