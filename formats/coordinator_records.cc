// SPDX-License-Identifier: Apache-2.0
#include "formats/coordinator_records.h"

#include <string>

#include <fmt/format.h>

#include "formats/message_reader.h"

namespace kseg::coordinator {

namespace {

const RecordType* find_type(Topic topic, int16_t id) {
  const auto types = topic == Topic::group         ? group_record_types()
                     : topic == Topic::transaction ? transaction_record_types()
                                                   : share_record_types();
  for (const RecordType& t : types)
    if (t.id == id) return &t;
  return nullptr;
}

// TransactionLogMessageParser replaces the numeric status by its state name
// in place. The field follows only numbers, so its first occurrence is it.
void name_transaction_status(std::string& json) {
  static constexpr std::string_view kField = "\"transactionStatus\":";
  const size_t at = json.find(kField);
  if (at == std::string::npos) return;
  const size_t start = at + kField.size();
  const size_t end = json.find_first_of(",}", start);
  const auto status = static_cast<int8_t>(std::stoi(json.substr(start, end - start)));
  std::string name;
  append_json_string(name, transaction_state_name(status));
  json.replace(start, end - start, name);
}

std::string skip_error(int64_t offset, std::string_view why) {
  return fmt::format("Error at offset {}, skipping. {}", offset, why);
}

// {"<label>":"<n>","data":<data>}, as DumpLogSegments prints a key or value
// (fmt::format here showed in profiles of --offsets-decoder dumps).
std::string wrap(std::string_view label, int16_t n, std::string_view data) {
  const std::string number = std::to_string(n);
  std::string s;
  s.reserve(label.size() + number.size() + data.size() + 16);
  s += "{\"";
  s += label;
  s += "\":\"";
  s += number;
  s += "\",\"data\":";
  s += data;
  s += '}';
  return s;
}

}  // namespace

Result<Text> parse(Topic topic, int64_t offset, Bytes key, std::optional<Bytes> value, schema::UnknownTags* unknown) {
  Text out;
  if (key.size() < 2) {
    out.key = skip_error(offset, "Could not read version from key's buffer.");
    return out;
  }
  const auto type = static_cast<int16_t>(load_be16(key.data()));
  const RecordType* t = find_type(topic, type);
  if (t == nullptr) {
    out.key = fmt::format("Unknown record type {} at offset {}, skipping.", type, offset);
    return out;
  }
  if (t->key == nullptr)
    return Error{Errc::unsupported, std::nullopt,
                 fmt::format("record at offset {}: coordinator record type {} is not supported yet", offset, type)};

  // The key message is read at version == type; keys are never flexible.
  auto k = schema::decode(*t->key, type, key.subspan(2));
  if (!k.ok()) {
    out.key = skip_error(offset, fmt::format("Could not read record with version {} from key's buffer due to: {}.",
                                             type, k.error().message));
    return out;
  }
  const std::string key_json = wrap("type", type, k.value().json);
  if (!value) {
    out.key = key_json;
    out.value = "<DELETE>";
    return out;
  }
  if (value->size() < 2) {
    out.key = skip_error(offset, "Could not read version from value's buffer.");
    return out;
  }
  const auto version = static_cast<int16_t>(load_be16(value->data()));
  if (version < t->min_value_version || version > t->max_value_version) {
    out.key = skip_error(offset, fmt::format("Found an unknown record version {} for {} type", version, type));
    return out;
  }
  const Bytes body = value->subspan(2);
  schema::UnknownTags tags;
  if (unknown) tags.keep = unknown->keep;
  auto v = schema::decode(*t->value, version, body, schema::Options{.unknown = &tags});
  if (v.ok() && topic == Topic::group && type == 2 && v.value().json.starts_with("{\"protocolType\":\"consumer\",")) {
    tags.count = 0;  // read again, expanded
    tags.kept.clear();
    v = schema::decode(*t->value, version, body, schema::Options{.expand_embedded = true, .unknown = &tags});
  }
  if (!v.ok()) {
    out.key = skip_error(offset, fmt::format("Could not read record with version {} from value's buffer due to: {}.",
                                             version, v.error().message));
    return out;
  }
  std::string data = std::move(v.value().json);
  if (topic == Topic::transaction) name_transaction_status(data);
  if (unknown) *unknown = std::move(tags);
  out.key = key_json;
  out.value = wrap("version", version, data);
  return out;
}

}  // namespace kseg::coordinator
