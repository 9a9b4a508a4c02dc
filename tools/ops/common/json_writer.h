// SPDX-License-Identifier: Apache-2.0
// Compact JSON written straight into a buffer, one object at a time, with
// no document tree: what kseg-dump prints per batch and per record. The bytes
// are those nlohmann::ordered_json's dump() prints for the same object
// (fields in the order written, no spaces, invalid UTF-8 replaced by
// U+FFFD), so output validated against the schema with nlohmann reads the
// same; a unit test holds the two to each other.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace kseg {

// Appends `s` as a JSON string, quotes included.
void append_json_string(fmt::memory_buffer& out, std::string_view s);
// How many of the first `n` bytes at `p` are printable ASCII that JSON
// writes as they are (no '"' or '\\').
size_t json_plain_prefix(const uint8_t* p, size_t n);

// One object: JsonObject o(buf); o.field("a", 1).field("b", "x"); o.close();
// Keys are literals that need no escaping. Each field is one reservation
// and one write: per-character appends were a third of a dump's time on
// small batches.
class JsonObject {
 public:
  explicit JsonObject(fmt::memory_buffer& out) : out_(out) { out_.push_back('{'); }
  // Goes on with an object whose opening and first fields are already in `out`.
  static JsonObject resume(fmt::memory_buffer& out) { return JsonObject(out, false); }
  JsonObject& key(std::string_view k) {
    commit(put_key(room(k.size() + 4), k));
    return *this;
  }
  template <class T>
    requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
  JsonObject& field(std::string_view k, T v) {
    char* p = put_key(room(k.size() + 4 + 20), k);
    commit(fmt::format_to(p, FMT_COMPILE("{}"), v));
    return *this;
  }
  JsonObject& field(std::string_view k, bool v) { return literal(k, v ? std::string_view("true") : std::string_view("false")); }
  JsonObject& field(std::string_view k, std::string_view v) {
    key(k);
    append_json_string(out_, v);
    return *this;
  }
  JsonObject& field(std::string_view k, const char* v) { return v ? field(k, std::string_view(v)) : null(k); }
  JsonObject& null(std::string_view k) { return literal(k, "null"); }
  // A value already written as JSON (a string escaped once for many objects).
  JsonObject& literal(std::string_view k, std::string_view json) {
    char* p = put_key(room(k.size() + 4 + json.size()), k);
    commit(std::copy(json.begin(), json.end(), p));
    return *this;
  }
  // A string the caller knows needs no escaping (json_plain_prefix).
  JsonObject& plain_string(std::string_view k, std::string_view v) {
    char* p = put_key(room(k.size() + 6 + v.size()), k);
    *p++ = '"';
    p = std::copy(v.begin(), v.end(), p);
    *p++ = '"';
    commit(p);
    return *this;
  }
  // The value written by the caller after key(k), for arrays and the like.
  fmt::memory_buffer& raw() { return out_; }
  void close() { out_.push_back('}'); }

 private:
  // Room for n more characters past the end; commit() says how many were used.
  char* room(size_t n) {
    out_.try_reserve(out_.size() + n);
    return out_.data() + out_.size();
  }
  void commit(char* end) { out_.try_resize(static_cast<size_t>(end - out_.data())); }
  char* put_key(char* p, std::string_view k) {
    if (!first_) *p++ = ',';
    first_ = false;
    *p++ = '"';
    p = std::copy(k.begin(), k.end(), p);
    *p++ = '"';
    *p++ = ':';
    return p;
  }
  JsonObject(fmt::memory_buffer& out, bool first) : out_(out), first_(first) {}
  fmt::memory_buffer& out_;
  bool first_ = true;
};

}  // namespace kseg
