// SPDX-License-Identifier: Apache-2.0
#include "formats/schema.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "formats/message_reader.h"
#include "lib/base64.h"

namespace kseg::schema {

namespace {

void append_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// `"name":`. Field names are the schemas' identifiers: nothing to escape.
void append_name(std::string& out, std::string_view name) {
  out += '"';
  out += name;
  out += "\":";
}

// One message body being decoded. The first error wins; later reads are
// skipped, so callers check `failed()` only where they branch on a value.
class Decoder {
 public:
  Decoder(int16_t version, bool flexible, const Options& opts) : v_(version), flexible_(flexible), opts_(opts) {}

  void decode_struct(const Struct& s, MessageReader& m, std::string& out);
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  void fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
  }
  // Kafka's readers throw BufferUnderflowException, whose message is null.
  bool check(MessageReader& m) {
    if (!m.ok()) fail("null");
    return !failed();
  }
  // Length prefix of a string, bytes or array; -1 is null. nullopt after an error.
  std::optional<int32_t> length(MessageReader& m, bool wide) {
    int32_t n = 0;
    if (flexible_) n = static_cast<int32_t>(m.raw().uvarint()) - 1;
    else n = wide ? m.i32() : m.i16();
    if (!check(m)) return std::nullopt;
    return n;
  }
  void value(const Field& f, MessageReader& m, std::string& out);
  void scalar(const Field& f, MessageReader& m, std::string& out);
  void text(const Field& f, MessageReader& m, std::string& out);
  void binary(const Field& f, MessageReader& m, std::string& out);
  void tagged_section(const Struct& s, MessageReader& m, std::vector<std::string>& values, std::vector<bool>& seen);

  // Where the struct being read is (UnknownTag::path), kept for structs only.
  class Within {
   public:
    Within(std::string& path, std::string_view name, int32_t index = -1) : path_(path), size_(path.size()) {
      if (!name.empty()) {
        if (!path_.empty()) path_ += '.';
        path_ += name;
      }
      if (index >= 0) fmt::format_to(std::back_inserter(path_), "[{}]", index);
    }
    ~Within() { path_.resize(size_); }

   private:
    std::string& path_;
    size_t size_;
  };

  int16_t v_;
  bool flexible_;
  const Options& opts_;
  std::string error_;
  std::string path_;
};

void Decoder::decode_struct(const Struct& s, MessageReader& m, std::string& out) {
  // Without tagged fields the values come in the order they are printed:
  // written straight out. On an error the text is left unfinished, and
  // decode() returns the error instead of it.
  if (std::none_of(s.fields.begin(), s.fields.end(), [](const Field& f) { return f.tag >= 0; })) {
    out += '{';
    bool first = true;
    for (const Field& f : s.fields) {
      if (!f.in(v_)) continue;
      if (!first) out += ',';
      first = false;
      append_name(out, f.name);
      value(f, m, out);
      if (failed()) return;
    }
    if (flexible_) {
      std::vector<std::string> none;
      std::vector<bool> unseen;
      tagged_section(s, m, none, unseen);  // unknown tags: read past
      if (failed()) return;
    }
    out += '}';
    return;
  }
  std::vector<std::string> values(s.fields.size());
  std::vector<bool> seen(s.fields.size(), false);
  for (size_t i = 0; i < s.fields.size() && !failed(); ++i) {
    const Field& f = s.fields[i];
    if (f.tag >= 0 || !f.in(v_)) continue;
    value(f, m, values[i]);
    seen[i] = true;
  }
  if (flexible_ && !failed()) tagged_section(s, m, values, seen);
  if (failed()) return;
  out += '{';
  bool first = true;
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const Field& f = s.fields[i];
    if (!seen[i] || (f.tag >= 0 && values[i] == f.tag_default)) continue;
    if (!first) out += ',';
    first = false;
    append_name(out, f.name);
    out += values[i];
  }
  out += '}';
}

void Decoder::tagged_section(const Struct& s, MessageReader& m, std::vector<std::string>& values,
                             std::vector<bool>& seen) {
  const uint32_t count = m.raw().uvarint();
  if (!check(m)) return;
  if (Length{static_cast<int64_t>(count)} > m.raw().remaining()) {
    fail(fmt::format("Tried to read {} tagged fields, but there are only {} bytes remaining.", count,
                     m.raw().remaining().bytes));
    return;
  }
  for (uint32_t i = 0; i < count && !failed(); ++i) {
    const uint32_t tag = m.raw().uvarint();
    const uint32_t size = m.raw().uvarint();
    if (!check(m)) return;
    ByteReader body = m.raw().sub(Length{static_cast<int64_t>(size)});
    if (!check(m)) return;
    bool known = false;
    for (size_t k = 0; k < s.fields.size(); ++k) {
      const Field& f = s.fields[k];
      if (f.tag < 0 || static_cast<uint32_t>(f.tag) != tag) continue;
      // The generated readers throw on a tag their schema has at other versions only.
      if (!f.in(v_)) return fail(fmt::format("Tag {} is not valid for version {}", tag, v_));
      MessageReader sub(body.rest(), true);
      values[k].clear();
      value(f, sub, values[k]);
      seen[k] = known = true;
    }
    if (!known && opts_.unknown) opts_.unknown->add(path_, tag, body.rest());
  }
}

void Decoder::value(const Field& f, MessageReader& m, std::string& out) {
  const bool nullable = v_ >= f.nullable_from;
  if (f.array) {
    const auto n = length(m, /*wide=*/true);
    if (!n) return;
    if (*n < 0) {
      if (nullable) out += "null";
      else fail(fmt::format("non-nullable field {} was serialized as null", f.name));
      return;
    }
    if (Length{*n} > m.raw().remaining()) {
      fail(fmt::format("Tried to allocate a collection of size {}, but there are only {} bytes remaining.", *n,
                       m.raw().remaining().bytes));
      return;
    }
    out += '[';
    for (int32_t i = 0; i < *n && !failed(); ++i) {
      if (i > 0) out += ',';
      if (f.kind == Kind::strct) {
        const Within at(path_, f.name, i);
        scalar(f, m, out);
      } else {
        scalar(f, m, out);
      }
    }
    out += ']';
    return;
  }
  if (f.kind == Kind::strct && nullable) {
    // A nullable struct carries a presence marker: an int8 (-1 = null) in
    // the body, an unsigned varint (0 = null) inside a tagged field.
    const bool present = f.tag >= 0 ? m.raw().uvarint() > 0 : m.i8() >= 0;
    if (!check(m)) return;
    if (!present) { out += "null"; return; }
  }
  if (f.kind == Kind::strct) {
    const Within at(path_, f.name);
    scalar(f, m, out);
    return;
  }
  scalar(f, m, out);
}

void Decoder::scalar(const Field& f, MessageReader& m, std::string& out) {
  switch (f.kind) {
    case Kind::boolean: out += m.boolean() ? "true" : "false"; break;
    case Kind::int8: append_int(out, m.i8()); break;
    case Kind::int16: append_int(out, m.i16()); break;
    case Kind::uint16: append_int(out, m.u16()); break;
    case Kind::int32: append_int(out, m.i32()); break;
    case Kind::int64: append_int(out, m.i64()); break;
    case Kind::float64: out += java_double(std::bit_cast<double>(m.raw().u64())); break;
    case Kind::uuid:
      out += '"';
      m.append_uuid(out);
      out += '"';
      break;
    case Kind::string: text(f, m, out); return;
    case Kind::bytes: binary(f, m, out); return;
    case Kind::strct: decode_struct(*f.type, m, out); return;
  }
  check(m);
}

void Decoder::text(const Field& f, MessageReader& m, std::string& out) {
  const auto n = length(m, /*wide=*/false);
  if (!n) return;
  if (*n < 0) {
    // Array elements are never null; a nullable string field may be.
    if (!f.array && v_ >= f.nullable_from) out += "null";
    else fail(fmt::format("non-nullable field {} was serialized as null", f.name));
    return;
  }
  if (*n > 0x7fff) { fail(fmt::format("string field {} had invalid length {}", f.name, *n)); return; }
  if (Length{*n} > m.raw().remaining()) {
    fail(fmt::format("Error reading byte array of {} byte(s): only {} byte(s) available", *n,
                     m.raw().remaining().bytes));
    return;
  }
  append_json_string(out, as_chars(m.raw().bytes(Length{*n})));
}

void Decoder::binary(const Field& f, MessageReader& m, std::string& out) {
  const auto n = length(m, /*wide=*/true);
  if (!n) return;
  if (*n < 0) {
    if (v_ >= f.nullable_from) out += "null";
    else fail(fmt::format("non-nullable field {} was serialized as null", f.name));
    return;
  }
  if (Length{*n} > m.raw().remaining()) {
    fail(fmt::format("Error reading byte array of {} byte(s): only {} byte(s) available", *n,
                     m.raw().remaining().bytes));
    return;
  }
  const Bytes b = m.raw().bytes(Length{*n});
  if (opts_.expand_embedded && f.embedded != nullptr && b.size() >= 2) {
    // The embedded message starts with its int16 version; on any failure
    // Kafka keeps the original bytes.
    const auto version = static_cast<int16_t>(load_be16(b.data()));
    auto inner = decode(*f.embedded, version, b.subspan(2));
    if (inner.ok()) { out += inner.value().json; return; }
  }
  out += '"';
  append_base64(out, b);
  out += '"';
}

}  // namespace

Result<Decoded> decode(const Message& msg, int16_t version, Bytes body, const Options& opts) {
  MessageReader m(body, version >= msg.flexible_from);
  Decoder d(version, version >= msg.flexible_from, opts);
  Decoded out;
  d.decode_struct(*msg.body, m, out.json);
  if (d.failed()) return Error{Errc::bad_value, std::nullopt, d.error()};
  out.consumed = static_cast<size_t>(m.raw().position().value);
  return out;
}

std::string java_double(double d) {
  if (std::isnan(d)) return "\"NaN\"";  // Jackson quotes non-finite numbers by default
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits (as Java 19+ picks them), then Java's layout:
  // plain notation for 1e-3 <= |d| < 1e7, else d.dddE<exp>. fmt's "{}" gives
  // the shortest digits in either plain or e-notation; normalize both.
  const bool negative = d < 0;
  const std::string shortest = fmt::format("{}", std::fabs(d));
  const size_t e_at = shortest.find('e');
  const std::string mantissa = shortest.substr(0, e_at);
  int exp = e_at == std::string::npos ? 0 : std::stoi(shortest.substr(e_at + 1));
  const size_t dot = mantissa.find('.');
  exp += static_cast<int>(dot == std::string::npos ? mantissa.size() : dot) - 1;
  std::string digits;
  for (char c : mantissa) if (c != '.') digits += c;
  while (digits.size() > 1 && digits.front() == '0') { digits.erase(0, 1); --exp; }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  if (exp >= -3 && exp < 7) {
    if (exp < 0) {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else {
      const auto int_len = static_cast<size_t>(exp + 1);
      if (digits.size() <= int_len) out += digits + std::string(int_len - digits.size(), '0') + ".0";
      else out += digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" + std::to_string(exp);
  }
  return out;
}

}  // namespace kseg::schema
