// SPDX-License-Identifier: Apache-2.0
#include "formats/meta_properties.h"

#include <fmt/format.h>

#include "formats/java_text.h"

namespace kseg::meta_properties {

namespace {

bool is_white(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// Properties.loadConvert: resolves escapes; bytes are ISO-8859-1.
Result<std::string> unescape(std::string_view s, Position at) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c != '\\' || i + 1 == s.size()) {  // a lone trailing backslash is dropped by Java; keep it simple
      if (c != '\\') append_utf8(out, c);
      continue;
    }
    const char e = s[++i];
    if (e == 'u') {
      if (s.size() - i - 1 < 4)
        return Error{Errc::bad_value, at, "Malformed \\uxxxx encoding."};
      uint32_t cp = 0;
      for (int k = 1; k <= 4; ++k) {
        const char h = s[i + static_cast<size_t>(k)];
        const int v = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                      : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
        if (v < 0) return Error{Errc::bad_value, at, "Malformed \\uxxxx encoding."};
        cp = (cp << 4) | static_cast<uint32_t>(v);
      }
      i += 4;
      append_utf8(out, cp);
    } else {
      append_utf8(out, static_cast<uint8_t>(e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 'f' ? '\f' : e));
    }
  }
  return out;
}

// One logical line: leading white space skipped, continuation lines joined.
struct Logical {
  std::string text;
  Position position;
};

std::vector<Logical> logical_lines(std::string_view text, Position base) {
  std::vector<Logical> out;
  const auto lines = java::read_lines(text, base);
  bool continuing = false;
  for (const auto& line : lines) {
    std::string_view t = line.text;
    while (!t.empty() && is_white(t.front())) t.remove_prefix(1);
    if (!continuing) {
      if (t.empty() || t.front() == '#' || t.front() == '!') continue;
      out.push_back({"", line.position});
    }
    size_t backslashes = 0;
    while (backslashes < t.size() && t[t.size() - 1 - backslashes] == '\\') ++backslashes;
    continuing = backslashes % 2 == 1;
    if (continuing) t.remove_suffix(1);
    out.back().text += t;
  }
  return out;
}

Error kafka_error(std::string msg, std::optional<Position> at = std::nullopt) {
  return Error{Errc::bad_value, at, std::move(msg)};
}

}  // namespace

std::optional<Position> Properties::position_of(std::string_view key) const {
  for (size_t i = entries.size(); i-- > 0;)
    if (entries[i].first == key) return i < positions.size() ? std::optional<Position>(positions[i]) : std::nullopt;
  return std::nullopt;
}

const std::string* Properties::get(std::string_view key) const {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

Result<Properties> load(std::string_view text, Position base) {
  Properties props;
  for (const Logical& line : logical_lines(text, base)) {
    const std::string& s = line.text;
    size_t key_end = 0;
    bool escaped = false;
    for (; key_end < s.size(); ++key_end) {
      const char c = s[key_end];
      if (escaped) { escaped = false; continue; }
      if (c == '\\') { escaped = true; continue; }
      if (c == '=' || c == ':' || is_white(c)) break;
    }
    size_t v = key_end;
    while (v < s.size() && is_white(s[v])) ++v;
    if (v < s.size() && (s[v] == '=' || s[v] == ':')) ++v;
    while (v < s.size() && is_white(s[v])) ++v;
    auto key = unescape(std::string_view(s).substr(0, key_end), line.position);
    if (!key.ok()) return key.error();
    auto value = unescape(std::string_view(s).substr(v), line.position);
    if (!value.ok()) return value.error();
    props.entries.emplace_back(std::move(key.value()), std::move(value.value()));
    props.positions.push_back(line.position);
  }
  return props;
}

Result<MetaProperties> parse(std::string_view text, Position base) {
  auto props = load(text, base);
  if (!props.ok()) return props.error();
  MetaProperties m;
  m.raw = std::move(props.value());
  const std::string* version = m.raw.get("version");
  std::string_view vtext = version ? std::string_view(*version) : "0";
  while (!vtext.empty() && static_cast<uint8_t>(vtext.front()) <= ' ') vtext.remove_prefix(1);  // String.trim
  while (!vtext.empty() && static_cast<uint8_t>(vtext.back()) <= ' ') vtext.remove_suffix(1);
  const auto v = java::parse_int(vtext);
  if (!v) return kafka_error(fmt::format("Invalid meta.properties version string '{}'", vtext), m.raw.position_of("version"));
  if (*v != 0 && *v != 1)
    return kafka_error(fmt::format("Unknown meta.properties version number {}", *v), m.raw.position_of("version"));
  m.version = *v;
  const char* id_key = m.version == 0 ? "broker.id" : "node.id";
  if (const std::string* id = m.raw.get(id_key)) {
    const auto n = java::parse_int(*id);
    if (!n) return kafka_error(fmt::format("Unable to read {} as a base-10 number.", id_key), m.raw.position_of(id_key));
    m.node_id = *n;
  } else if (m.version == 1) {
    return kafka_error("Failed to find node.id");
  }
  if (const std::string* c = m.raw.get("cluster.id")) m.cluster_id = *c;
  if (const std::string* d = m.raw.get("directory.id")) {
    auto u = parse_kafka_uuid(*d);
    if (!u.ok())
      return kafka_error(fmt::format("Unable to read directory.id as a Uuid: {}", u.error().message),
                         m.raw.position_of("directory.id"));
    m.directory_id = u.value();
  }
  if (m.version == 1 && !m.cluster_id) return kafka_error("cluster.id was not found.");
  return m;
}

std::string serialize(const std::vector<std::pair<std::string, std::string>>& entries,
                      std::string_view date_comment) {
  const auto escape = [](std::string_view s, bool is_key) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      switch (c) {
        case ' ': out += (i == 0 || is_key) ? "\\ " : " "; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\f': out += "\\f"; break;
        case '=': case ':': case '#': case '!': case '\\': out += '\\'; out += c; break;
        default:
          if (static_cast<uint8_t>(c) < 0x20 || static_cast<uint8_t>(c) > 0x7e)
            out += fmt::format("\\u{:04X}", static_cast<uint8_t>(c));
          else
            out += c;
      }
    }
    return out;
  };
  std::string out = fmt::format("#\n#{}\n", date_comment);
  for (const auto& [k, v] : entries) out += fmt::format("{}={}\n", escape(k, true), escape(v, false));
  return out;
}

}  // namespace kseg::meta_properties
