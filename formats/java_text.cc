// SPDX-License-Identifier: Apache-2.0
#include "formats/java_text.h"

#include <fmt/format.h>

namespace kseg::java {

namespace {

// Accumulates negatively like Java so that the minimum value parses.
std::optional<int64_t> parse_signed(std::string_view s, int64_t min_value, int64_t max_value) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    i = 1;
    if (s.size() == 1) return std::nullopt;
  }
  const int64_t limit = negative ? min_value : -max_value;
  int64_t acc = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (acc < limit / 10) return std::nullopt;
    acc *= 10;
    if (acc < limit + digit) return std::nullopt;
    acc -= digit;
  }
  return negative ? acc : -acc;
}

}  // namespace

std::optional<int32_t> parse_int(std::string_view s) {
  auto v = parse_signed(s, INT32_MIN, INT32_MAX);
  if (!v) return std::nullopt;
  return static_cast<int32_t>(*v);
}

std::optional<int64_t> parse_long(std::string_view s) { return parse_signed(s, INT64_MIN, INT64_MAX); }

std::string number_format_message(std::string_view s) { return fmt::format("For input string: \"{}\"", s); }

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    if (!is_space(s[i])) { ++i; continue; }
    out.push_back(s.substr(start, i - start));
    while (i < s.size() && is_space(s[i])) ++i;
    start = i;
  }
  out.push_back(s.substr(start));
  while (out.size() > 1 && out.back().empty()) out.pop_back();
  // Java drops every trailing empty string, even a lone one from "  ".
  if (out.size() == 1 && out[0].empty() && !s.empty()) out.clear();
  return out;
}

std::vector<Line> read_lines(std::string_view text, Position base) {
  std::vector<Line> lines;
  size_t start = 0;
  int64_t number = 1;
  while (start < text.size()) {
    size_t end = start;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    lines.push_back({text.substr(start, end - start), base + Length{static_cast<int64_t>(start)}, number++});
    if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
    start = end + 1;
  }
  return lines;
}

}  // namespace kseg::java
