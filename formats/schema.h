// SPDX-License-Identifier: Apache-2.0
// A compact, table-driven description of Kafka's generated-message schemas
// and a decoder that turns a message body into the JSON that Kafka's
// generated *JsonConverter.write(message, version) produces (compact Jackson
// output): fields in schema order, only those valid for the version, tagged
// fields only when present with a non-default value, int64 as numbers, uuids
// as Uuid.toString(), bytes as padded base64, nulls as `null`.
//
// The tables are ours (see group_records.cc, transaction_records.cc,
// metadata_records.cc); they hold just the facts the wire format and the
// converter need: name, type, version range, nullability, tag and default.
#pragma once

#include <cstdint>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/status.h"

namespace kseg::schema {

enum class Kind : uint8_t { boolean, int8, int16, uint16, int32, int64, float64, string, bytes, uuid, strct };

inline constexpr int16_t kMaxVersion = 0x7fff;  // upper bound of an open "N+" range
inline constexpr int16_t kNever = kMaxVersion;  // nullable_from for non-nullable fields

struct Struct;
struct Message;

struct Field {
  const char* name = "";
  Kind kind = Kind::int32;
  bool array = false;
  int16_t min_version = 0;  // "versions": min..max
  int16_t max_version = kMaxVersion;
  int16_t nullable_from = kNever;  // "nullableVersions": "N+"
  int16_t tag = -1;                // >= 0: a tagged field (taggedVersions == versions)
  const char* tag_default = "";    // JSON text of the default; a tagged value equal to it is not written
  const Struct* type = nullptr;    // element type for Kind::strct
  const Message* embedded = nullptr;  // bytes holding a version-prefixed message (expand_embedded)

  constexpr Field since(int16_t v) const { Field f = *this; f.min_version = v; return f; }
  constexpr Field only(int16_t lo, int16_t hi) const { Field f = *this; f.min_version = lo; f.max_version = hi; return f; }
  constexpr Field nullable(int16_t from = 0) const { Field f = *this; f.nullable_from = from; return f; }
  constexpr Field tagged(int16_t t, const char* dflt) const { Field f = *this; f.tag = t; f.tag_default = dflt; return f; }
  constexpr Field holding(const Message* m) const { Field f = *this; f.embedded = m; return f; }
  constexpr bool in(int16_t v) const { return v >= min_version && v <= max_version; }
};

struct Struct {
  std::span<const Field> fields;
};

struct Message {
  const char* name;
  int16_t flexible_from;  // first flexible version; kNever for none
  const Struct* body;
};

// Field builders, so that tables read like the schema: F("offset", Kind::int64).since(3).
constexpr Field F(const char* name, Kind k) { return Field{.name = name, .kind = k}; }
constexpr Field A(const char* name, Kind k) { return Field{.name = name, .kind = k, .array = true}; }
constexpr Field S(const char* name, const Struct* s) { return Field{.name = name, .kind = Kind::strct, .type = s}; }
constexpr Field AS(const char* name, const Struct* s) {
  return Field{.name = name, .kind = Kind::strct, .array = true, .type = s};
}

// What a record schema table is written with: `using namespace
// schema::tables;` in each file of tables.
namespace tables {
using schema::A;
using schema::AS;
using schema::F;
using schema::Field;
using schema::Message;
using schema::S;
using schema::Struct;
using K = schema::Kind;
}  // namespace tables

// A tagged field the schema does not name (a newer Kafka's, or another
// writer's). Kafka's converters drop it; kseg reports it, so it is never lost.
struct UnknownTag {
  std::string path;  // where: "" for the message itself, else fields and [index], e.g. "topics[0].partitions[2]"
  uint32_t tag = 0;
  Bytes bytes;  // in the decoded body: valid while it is
};

// The unknown tags of one message: the first `keep` of them, and how many.
struct UnknownTags {
  size_t keep = SIZE_MAX;
  size_t count = 0;
  std::vector<UnknownTag> kept;
  void add(const std::string& path, uint32_t tag, Bytes bytes) {
    if (count++ < keep) kept.push_back(UnknownTag{path, tag, bytes});
  }
};

struct Decoded {
  std::string json;
  size_t consumed = 0;  // bytes of `body` the message used (trailing bytes are the caller's business)
};

struct Options {
  // Replace bytes fields that declare an embedded message by that message's
  // JSON when the bytes parse (DumpLogSegments does this for consumer groups).
  bool expand_embedded = false;
  // Where tagged fields the schema does not name go (not in the JSON, as
  // Kafka's converter leaves them out); none: counted nowhere.
  UnknownTags* unknown = nullptr;
};

// Decodes `body` as message `m` at `version`. Fails with Kafka's message where
// the generated reader would throw (a null in a non-nullable field, a
// negative length) and with "null" for a plain buffer underflow, which is
// what Java's BufferUnderflowException carries.
Result<Decoded> decode(const Message& m, int16_t version, Bytes body, const Options& opts = {});


// Java's Double.toString, as Jackson writes a DoubleNode.
std::string java_double(double d);

}  // namespace kseg::schema
