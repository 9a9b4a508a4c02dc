// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/json_schema.h"

namespace kseg::test {

namespace {

bool type_matches(const std::string& t, const nlohmann::json& v) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  return false;
}

const nlohmann::json& resolve(const nlohmann::json& root, const std::string& ref) {
  // Only local references: "#/$defs/name".
  return root.at(nlohmann::json::json_pointer(ref.substr(1)));
}

}  // namespace

std::string schema_violation(const nlohmann::json& root, const nlohmann::json& s, const nlohmann::json& v,
                             const std::string& where) {
  if (s.contains("$ref")) return schema_violation(root, resolve(root, s["$ref"]), v, where);
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_array()) {
      for (const auto& t : s["type"]) ok = ok || type_matches(t, v);
    } else {
      ok = type_matches(s["type"], v);
    }
    if (!ok) return where + ": expected type " + s["type"].dump() + ", found " + v.dump();
  }
  if (s.contains("const") && s["const"] != v) return where + ": expected " + s["const"].dump() + ", found " + v.dump();
  if (s.contains("enum")) {
    bool found = false;
    for (const auto& e : s["enum"]) found = found || e == v;
    if (!found) return where + ": " + v.dump() + " is not one of " + s["enum"].dump();
  }
  if (s.contains("oneOf")) {
    int matches = 0;
    std::string last;
    for (const auto& alt : s["oneOf"]) {
      std::string why = schema_violation(root, alt, v, where);
      if (why.empty()) ++matches;
      else last = why;
    }
    if (matches != 1) return where + ": matches " + std::to_string(matches) + " of oneOf (last: " + last + ")";
  }
  if (v.is_object()) {
    for (const auto& r : s.value("required", nlohmann::json::array()))
      if (!v.contains(r.get<std::string>())) return where + ": missing required " + r.dump();
    const auto props = s.value("properties", nlohmann::json::object());
    for (const auto& [k, val] : v.items()) {
      if (props.contains(k)) {
        std::string why = schema_violation(root, props[k], val, where + "." + k);
        if (!why.empty()) return why;
      } else if (s.contains("additionalProperties") && s["additionalProperties"] == false) {
        return where + ": unexpected property " + k;
      } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
        std::string why = schema_violation(root, s["additionalProperties"], val, where + "." + k);
        if (!why.empty()) return why;
      }
    }
  }
  if (v.is_array() && s.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i) {
      std::string why = schema_violation(root, s["items"], v[i], where + "[" + std::to_string(i) + "]");
      if (!why.empty()) return why;
    }
  }
  return "";
}

}  // namespace kseg::test
