// Buffered output to a file descriptor. Tools format into it with fmt and it
// writes in large blocks, so printing millions of lines costs little.
#pragma once

#include <cstdio>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace kseg {

class Sink {
 public:
  explicit Sink(std::FILE* f) : f_(f) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { flush(); }

  void write(std::string_view s) {
    buf_.append(s.data(), s.data() + s.size());
    if (buf_.size() >= kFlushAt) flush();
  }
  void put(char c) {
    buf_.push_back(c);
    if (buf_.size() >= kFlushAt) flush();
  }
  template <class... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<Args>(args)...);
    if (buf_.size() >= kFlushAt) flush();
  }
  // A format string compiled with FMT_COMPILE: no parsing per call, for
  // lines printed per batch.
  template <class S, class... Args, std::enable_if_t<fmt::detail::is_compiled_string<S>::value, int> = 0>
  void print(const S& f, Args&&... args) {
    fmt::format_to(fmt::appender(buf_), f, std::forward<Args>(args)...);
    if (buf_.size() >= kFlushAt) flush();
  }
  void flush() {
    if (buf_.size() > 0) std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
    std::fflush(f_);
  }

 private:
  static constexpr size_t kFlushAt = 1u << 16;
  std::FILE* f_;
  fmt::memory_buffer buf_;
};

}  // namespace kseg
