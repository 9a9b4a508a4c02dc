// SPDX-License-Identifier: Apache-2.0
// Buffered output to a file descriptor. Tools format into it with fmt and it
// writes in large blocks, so printing millions of lines costs little.
#pragma once

#include <cassert>
#include <cstdio>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "tools/ops/common/progress.h"

namespace kseg {

class Sink {
 public:
  explicit Sink(std::FILE* f) : f_(f) {}
  // A sink that only collects: text formatted on one thread and written
  // out in order on another.
  Sink() : f_(nullptr) {}
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
  // Large text already formatted elsewhere goes to the file without a copy
  // into the buffer.
  void write_large(std::string_view s) {
    if (s.size() < kFlushAt || f_ == nullptr) return write(s);
    flush();
    progress_clear_line(f_);
    std::fwrite(s.data(), 1, s.size(), f_);
  }
  void flush() {
    if (f_ == nullptr) return;
    if (buf_.size() > 0) progress_clear_line(f_);
    if (buf_.size() > 0) std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
    std::fflush(f_);
  }
  // For a collecting sink.
  std::string_view contents() const { return {buf_.data(), buf_.size()}; }
  size_t capacity() const { return buf_.capacity(); }
  void clear() { buf_.clear(); }
  // A collecting sink: drops what was written after the first `n` bytes.
  void truncate(size_t n) {
    assert(f_ == nullptr && n <= buf_.size());
    buf_.resize(n);
  }
  // A collecting sink's buffer, so large text can be decoded straight into
  // it instead of through a line that is then copied. Only a collecting
  // sink: appending here skips the flush a writing one needs.
  fmt::memory_buffer& buffer() {
    assert(f_ == nullptr);
    return buf_;
  }
  void shrink() { buf_ = fmt::memory_buffer(); }
  // Room for `n` bytes at the end, to format into in place (no copy through
  // a line buffer); commit() takes the end of what was written there.
  char* room(size_t n) {
    buf_.reserve(buf_.size() + n);
    return buf_.data() + buf_.size();
  }
  void commit(const char* end) {
    buf_.resize(static_cast<size_t>(end - buf_.data()));
    if (buf_.size() >= kFlushAt) flush();
  }

 private:
  static constexpr size_t kFlushAt = 1u << 16;
  std::FILE* f_;
  fmt::memory_buffer buf_;
};

}  // namespace kseg
