// SPDX-License-Identifier: Apache-2.0
// Distinct value types for file positions, byte lengths and Kafka offsets.
//
// A position minus a position is a length; a position plus a length is a
// position; nothing else mixes. This keeps "a length passed where a position
// was expected" from compiling (see STYLE.md, librdkafka's old bug).
#pragma once

#include <compare>
#include <cstdint>

#include <fmt/format.h>

namespace kseg {

struct Length {
  int64_t bytes = 0;
  constexpr auto operator<=>(const Length&) const = default;
  constexpr Length operator+(Length o) const { return {bytes + o.bytes}; }
  constexpr Length operator-(Length o) const { return {bytes - o.bytes}; }
};

// Absolute byte position in a file.
struct Position {
  int64_t value = 0;
  constexpr auto operator<=>(const Position&) const = default;
  constexpr Position operator+(Length l) const { return {value + l.bytes}; }
  constexpr Position operator-(Length l) const { return {value - l.bytes}; }
  constexpr Length operator-(Position o) const { return {value - o.value}; }
  Position& operator+=(Length l) { value += l.bytes; return *this; }
};

// An absolute Kafka offset. Relative offsets (index entries, offset deltas)
// stay plain int32 at the decoding layer and become Offset via base + delta.
struct Offset {
  int64_t value = 0;
  constexpr auto operator<=>(const Offset&) const = default;
  // Java's wrapping long arithmetic: a base offset near INT64_MAX (a file
  // name allows it) plus a corrupt relative offset must not overflow (UB).
  constexpr Offset operator+(int64_t delta) const {
    return {static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(delta))};
  }
  constexpr int64_t operator-(Offset o) const {
    return static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(o.value));
  }
};

inline int64_t format_as(Length l) { return l.bytes; }
inline int64_t format_as(Position p) { return p.value; }
inline int64_t format_as(Offset o) { return o.value; }

}  // namespace kseg

// fmt 9 (Debian 12) predates format_as: format each type as its number. Only
// "{}" is accepted: inheriting formatter<int64_t>'s spec parser instead makes
// GCC 12 at -O3 with assertions on warn falsely (-Wstringop-overflow) inside
// fmt's fill parsing, in every file that formats one of these.
#define KSEG_FORMAT_AS_INT64(T)                                                 \
  template <>                                                                   \
  struct fmt::formatter<T> {                                                    \
    constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); } \
    template <class Ctx>                                                        \
    auto format(T v, Ctx& ctx) const {                                          \
      return fmt::formatter<int64_t>().format(kseg::format_as(v), ctx);        \
    }                                                                           \
  };
KSEG_FORMAT_AS_INT64(kseg::Length)
KSEG_FORMAT_AS_INT64(kseg::Position)
KSEG_FORMAT_AS_INT64(kseg::Offset)
#undef KSEG_FORMAT_AS_INT64
