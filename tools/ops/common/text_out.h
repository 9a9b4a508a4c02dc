// Appends text at a pointer into a buffer the caller made large enough:
// literals copied with a length known at compile time (a few moves, not a
// call per piece) and integers by std::to_chars. For the lines the dump
// prints per batch and per record, where fmt's compiled formats spent much
// of their time in a libc call per literal piece.
#pragma once

#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <string_view>

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
  // Every integer in decimal, int8_t and uint8_t as numbers (as fmt prints them).
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  TextOut& operator<<(T v) {
    p_ = std::to_chars(p_, p_ + 24, v).ptr;
    return *this;
  }
  char* end() const { return p_; }

 private:
  char* p_;
};

}  // namespace kseg
