// SPDX-License-Identifier: Apache-2.0
// Java's text-parsing rules as Kafka's text state files rely on them:
// Integer.parseInt / Long.parseLong, Pattern.split("\\s+"), and
// BufferedReader.readLine line splitting, with the byte position of each
// line kept for error messages.
//
// Difference from Java, on purpose: only ASCII digits are accepted (Java's
// parseInt also takes other Unicode decimal digits, which Kafka never writes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/types.h"

namespace kseg::java {

// Optional '+' or '-' then one or more ASCII digits, within range; else nullopt
// (Java throws NumberFormatException).
std::optional<int32_t> parse_int(std::string_view s);
std::optional<int64_t> parse_long(std::string_view s);

// Java's message for that NumberFormatException: `For input string: "s"`.
std::string number_format_message(std::string_view s);

// Java regex \s: space, \t, \n, \x0B, \f, \r.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r';
}

// Pattern.compile("\\s+").split(s): a leading empty field is kept when s
// starts with whitespace, trailing empty fields are dropped, "" gives {""}.
std::vector<std::string_view> split_whitespace(std::string_view s);

struct Line {
  std::string_view text;  // without its terminator
  Position position;      // absolute position of the line's first byte
  int64_t number = 0;     // 1-based
};

// BufferedReader.readLine: lines end at "\n", "\r" or "\r\n"; a terminator at
// the very end does not start another (empty) line.
std::vector<Line> read_lines(std::string_view text, Position base);

}  // namespace kseg::java
