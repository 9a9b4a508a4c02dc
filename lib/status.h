// SPDX-License-Identifier: Apache-2.0
// Status and Result<T>: corruption is data, not an exception.
//
// An Error carries a stable code, the absolute file position it concerns and
// a message that says what was expected and what was found. File names are
// added at the tool boundary (Error::in), not here.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "lib/types.h"

namespace kseg {

enum class Errc {
  ok = 0,
  truncated,        // fewer bytes than a field or a declared length needs
  bad_length,       // a length or count that is impossible
  bad_magic,        // unknown format version
  bad_crc,          // checksum mismatch
  bad_codec,        // unknown or disallowed compression codec
  decompress,       // the codec rejected the payload
  too_large,        // over a configured size limit (decompression bomb)
  bad_varint,       // overlong or truncated varint
  bad_value,        // a field holds a value the format forbids
  trailing_bytes,   // bytes left over where the format says none
  io,               // the operating system refused
  usage,            // the command line asked for something impossible
  refused,          // data Kafka itself refuses (its code throws and the broker fails): no tool may go on
  unsupported,      // valid data kseg cannot read yet
  internal,         // a library kseg calls failed (a compressor, an allocation)
};

const char* errc_name(Errc c);

struct Error {
  Errc code = Errc::ok;
  std::optional<Position> position;  // none where no position applies (a name, an option, an open)
  std::string message;
  // The stable name of the problem code a tool reports this error under
  // (tools/ops/common/problem.h: "refuse.locked", "dir.not_a_file"), or null.
  const char* problem = nullptr;
  // The same error named by the file it concerns: "<path>: <message>".
  Error in(const std::string& path) const { return Error{code, position, path + ": " + message, problem}; }
};

class Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)), ok_(false) {}  // NOLINT: implicit by design
  static Status fail(Errc c, std::optional<Position> p, std::string msg) { return Status(Error{c, p, std::move(msg)}); }
  bool ok() const { return ok_; }
  const Error& error() const { return error_; }
 private:
  Error error_;
  bool ok_ = true;
};

template <class T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}         // NOLINT: implicit by design
  Result(Error e) : v_(std::move(e)) {}     // NOLINT
  Result(Status s) : v_(s.error()) {}       // NOLINT: only from a failed Status
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }
  Status status() const { return ok() ? Status() : Status(error()); }
 private:
  std::variant<T, Error> v_;
};

// RETURN_IF_ERROR(expr): return the failed Status of expr from the enclosing
// function.   Example: RETURN_IF_ERROR(decompress(...));
#define KSEG_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::kseg::Status kseg_st_ = (expr);         \
    if (!kseg_st_.ok()) return kseg_st_;      \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): evaluates expr (a Result<T>); on failure
// returns its error from the enclosing function, else moves the value into
// lhs, which may declare a variable.
//   KSEG_ASSIGN_OR_RETURN(auto file, MappedFile::open(path));
//   KSEG_ASSIGN_OR_RETURN(header, v2::decode_header(entry));
#define KSEG_ASSIGN_OR_RETURN(lhs, expr) KSEG_ASSIGN_OR_RETURN_IMPL(KSEG_CONCAT(kseg_r_, __LINE__), lhs, expr)
#define KSEG_CONCAT_INNER(a, b) a##b
#define KSEG_CONCAT(a, b) KSEG_CONCAT_INNER(a, b)
#define KSEG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.error();               \
  lhs = std::move(*tmp)

}  // namespace kseg
