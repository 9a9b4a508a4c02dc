// SPDX-License-Identifier: Apache-2.0
// TextOut writes integers as std::to_chars (and fmt) write them.
#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "tools/ops/common/text_out.h"

namespace {

template <class T>
void same_as_to_chars(T v) {
  char ours[32], theirs[32];
  kseg::TextOut t(ours);
  t << v;
  const char* end = std::to_chars(theirs, theirs + sizeof theirs, v).ptr;
  REQUIRE(std::string(ours, static_cast<size_t>(t.end() - ours)) == std::string(theirs, static_cast<size_t>(end - theirs)));
}

template <class T>
void every_width() {
  using L = std::numeric_limits<T>;
  for (T v : {L::min(), L::max(), T(0), T(1), T(9), T(10), T(99), T(100)}) same_as_to_chars(v);
  if constexpr (std::is_signed_v<T>) {
    same_as_to_chars(T(-1));
    same_as_to_chars(T(L::min() + 1));
  }
  // Each power of ten and its neighbours, as far as T goes.
  for (uint64_t p = 1; p <= static_cast<uint64_t>(L::max()) / 10 + 1 && p != 0; p *= 10) {
    for (uint64_t v : {p - 1, p, p + 1})
      if (v <= static_cast<uint64_t>(L::max())) {
        same_as_to_chars(static_cast<T>(v));
        if constexpr (std::is_signed_v<T>) same_as_to_chars(static_cast<T>(-static_cast<int64_t>(v)));
      }
    if (p > static_cast<uint64_t>(L::max()) / 10) break;
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) same_as_to_chars(static_cast<T>(rng() >> (rng() % 64)));
}

}  // namespace

TEST_CASE("TextOut writes every integer as std::to_chars does", "[text]") {
  every_width<int8_t>();
  every_width<uint8_t>();
  every_width<int16_t>();
  every_width<uint16_t>();
  every_width<int32_t>();
  every_width<uint32_t>();
  every_width<int64_t>();
  every_width<uint64_t>();
  every_width<long long>();
  every_width<unsigned long long>();
}
