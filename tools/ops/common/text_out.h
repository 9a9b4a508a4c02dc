// SPDX-License-Identifier: Apache-2.0
// Appends text at a pointer into a buffer the caller made large enough:
// literals copied with a length known at compile time (a few moves, not a
// call per piece) and integers two digits at a time. For the lines the dump
// prints per batch and per record, where fmt's compiled formats spent much
// of their time in a libc call per literal piece.
#pragma once

#include <bit>
#include <cstdint>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace kseg {

class TextOut {
 public:
  explicit TextOut(char* p) : p_(p) {}
  template <size_t N>
  TextOut& operator<<(const char (&s)[N]) {
    std::memcpy(p_, s, N - 1);
    p_ += N - 1;
    return *this;
  }
  TextOut& operator<<(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    return *this;
  }
  // Every integer in decimal, int8_t and uint8_t as numbers (as fmt prints
  // them). Digits counted first, then written two at a time from the end:
  // std::to_chars, which counts by repeated division, was a quarter of a
  // dump of small batches (a dozen numbers a line).
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  TextOut& operator<<(T v) {
    uint64_t u = static_cast<uint64_t>(v);
    if constexpr (std::is_signed_v<T>) {
      if (v < 0) {
        *p_++ = '-';
        u = uint64_t{0} - u;  // the magnitude, INT64_MIN's too
      }
    }
    char* const end = p_ + digits(u);
    char* q = end;
    while (u >= 100) {
      q -= 2;
      std::memcpy(q, &kPairs[2 * (u % 100)], 2);
      u /= 100;
    }
    if (u >= 10) {
      q -= 2;
      std::memcpy(q, &kPairs[2 * u], 2);
    } else {
      *--q = static_cast<char>('0' + u);
    }
    p_ = end;
    return *this;
  }
  char* end() const { return p_; }

 private:
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // Decimal digits of u: floor(log10) from the bit width, then one compare.
  static size_t digits(uint64_t u) {
    static constexpr uint64_t kPow10[20] = {0,          10,          100,          1000,          10000,
                                            100000,     1000000,     10000000,     100000000,     1000000000,
                                            10000000000, 100000000000, 1000000000000, 10000000000000,
                                            100000000000000, 1000000000000000, 10000000000000000,
                                            100000000000000000, 1000000000000000000, 10000000000000000000u};
    const size_t t = (static_cast<size_t>(std::bit_width(u | 1)) * 1233) >> 12;
    return t + 1 - (u < kPow10[t] ? 1 : 0);
  }
  char* p_;
};

}  // namespace kseg
