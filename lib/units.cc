// SPDX-License-Identifier: Apache-2.0
#include "lib/units.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <limits>
#include <utility>

namespace kseg {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Leading decimal digits of `s` as a value (no sign), removed from `s`;
// nullopt without a digit or on overflow.
std::optional<int64_t> take_digits(std::string_view& s) {
  size_t i = 0;
  int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    const int d = s[i] - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
    ++i;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

std::optional<int64_t> times(int64_t v, int64_t unit) {
  if (v > std::numeric_limits<int64_t>::max() / unit) return std::nullopt;
  return v * unit;
}

// A plain whole number with an optional sign: Kafka's own unit.
std::optional<int64_t> plain(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  auto v = take_digits(s);
  if (!v || !s.empty()) return std::nullopt;
  return negative ? -*v : *v;
}

}  // namespace

std::optional<int64_t> parse_size(std::string_view text) {
  if (auto p = plain(text)) return p;
  std::string_view s = text;
  auto v = take_digits(s);
  if (!v) return std::nullopt;
  static constexpr std::array<std::pair<const char*, int64_t>, 16> kUnits{{
      {"b", 1},
      {"k", 1LL << 10}, {"kib", 1LL << 10}, {"kb", 1000LL},
      {"m", 1LL << 20}, {"mib", 1LL << 20}, {"mb", 1000LL * 1000},
      {"g", 1LL << 30}, {"gib", 1LL << 30}, {"gb", 1000LL * 1000 * 1000},
      {"t", 1LL << 40}, {"tib", 1LL << 40}, {"tb", 1000LL * 1000 * 1000 * 1000},
      {"p", 1LL << 50}, {"pib", 1LL << 50}, {"pb", 1000LL * 1000 * 1000 * 1000 * 1000},
  }};
  const std::string unit = lower(s);
  for (const auto& [name, factor] : kUnits)
    if (unit == name) return times(*v, factor);
  return std::nullopt;
}

std::optional<int64_t> parse_duration_ms(std::string_view text) {
  if (auto p = plain(text)) return p;
  if (text.empty()) return std::nullopt;
  std::string_view s = text;
  int64_t total = 0;
  while (!s.empty()) {
    auto v = take_digits(s);
    if (!v) return std::nullopt;
    size_t n = 0;
    while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
    const std::string unit = lower(s.substr(0, n));
    s.remove_prefix(n);
    int64_t factor = 0;
    if (unit == "ms") factor = 1;
    else if (unit == "s") factor = 1000;
    else if (unit == "m") factor = 60 * 1000;
    else if (unit == "h") factor = 3600 * 1000;
    else if (unit == "d") factor = 86400 * 1000;
    else if (unit == "w") factor = 7LL * 86400 * 1000;
    else return std::nullopt;
    auto ms = times(*v, factor);
    if (!ms || *ms > std::numeric_limits<int64_t>::max() - total) return std::nullopt;
    total += *ms;
  }
  return total;
}

std::string human_bytes(double n) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while ((n >= 1024 || n <= -1024) && u < 5) {
    n /= 1024;
    ++u;
  }
  char out[48];
  std::snprintf(out, sizeof out, u == 0 ? "%.0f %s" : "%.1f %s", n, kUnits[u]);
  return out;
}

std::string human_duration(int64_t ms) {
  // Appended piece by piece: g++ 12 -O3 -Wrestrict misreads chains of string operator+.
  if (ms < 0) {
    std::string out = human_duration(ms == INT64_MIN ? INT64_MAX : -ms);
    out.insert(out.begin(), '-');
    return out;
  }
  if (ms < 1000) {
    std::string out = std::to_string(ms);
    out += "ms";
    return out;
  }
  struct Unit {
    int64_t ms;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}};
  std::string out;
  int shown = 0;
  for (const Unit& u : kUnits) {
    const int64_t n = ms / u.ms;
    if (n == 0 && shown == 0) continue;
    ms -= n * u.ms;
    if (n > 0) {
      if (!out.empty()) out += ' ';
      out += std::to_string(n);
      out += u.name;
    }
    if (++shown == 2) break;
  }
  return out;
}

}  // namespace kseg
