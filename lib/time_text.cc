// SPDX-License-Identifier: Apache-2.0
#include "lib/time_text.h"

#include <charconv>
#include <chrono>
#include <cstring>

namespace kseg {

namespace {

constexpr int64_t kMsPerDay = 86400000;

// Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years,
// years starting in March so the leap day is last).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Civil {
  int64_t y;
  int m, d;
};

Civil civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

char* two(char* p, int v) {
  *p++ = static_cast<char>('0' + v / 10);
  *p++ = static_cast<char>('0' + v % 10);
  return p;
}

// Reads exactly `n` digits at s[pos]; advances pos.
std::optional<int> digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

}  // namespace

char* format_iso_ms(int64_t ms, char* out) {
  // Floor division, so times before 1970 read forwards from their second.
  int64_t days = ms / kMsPerDay, rem = ms % kMsPerDay;
  if (rem < 0) {
    rem += kMsPerDay;
    --days;
  }
  const Civil c = civil_from_days(days);
  char* p = out;
  if (c.y >= 0 && c.y <= 9999) {
    const int y = static_cast<int>(c.y);
    p = two(p, y / 100);
    p = two(p, y % 100);
  } else {
    p = std::to_chars(p, out + 24, c.y).ptr;
  }
  *p++ = '-';
  p = two(p, c.m);
  *p++ = '-';
  p = two(p, c.d);
  *p++ = 'T';
  const int r = static_cast<int>(rem);
  p = two(p, r / 3600000);
  *p++ = ':';
  p = two(p, r / 60000 % 60);
  *p++ = ':';
  p = two(p, r / 1000 % 60);
  *p++ = '.';
  *p++ = static_cast<char>('0' + r % 1000 / 100);
  p = two(p, r % 100);
  *p++ = 'Z';
  return p;
}

std::string iso_ms(int64_t ms) {
  char buf[40];
  return std::string(buf, format_iso_ms(ms, buf));
}

std::optional<int64_t> parse_time_ms(std::string_view s) {
  if (s.empty()) return std::nullopt;
  // Epoch milliseconds: an optional sign and digits only.
  if (s.find_first_not_of("-0123456789") == std::string_view::npos) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
  }
  size_t pos = 0;
  const auto y = digits(s, pos, 4);
  if (!y || pos >= s.size() || s[pos++] != '-') return std::nullopt;
  const auto mo = digits(s, pos, 2);
  if (!mo || pos >= s.size() || s[pos++] != '-') return std::nullopt;
  const auto d = digits(s, pos, 2);
  if (!d || *mo < 1 || *mo > 12 || *d < 1 || *d > 31) return std::nullopt;
  int hh = 0, mm = 0, ss = 0, frac = 0;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == 't' || s[pos] == ' ')) {
    ++pos;
    const auto h = digits(s, pos, 2);
    if (!h || pos >= s.size() || s[pos++] != ':') return std::nullopt;
    const auto mi = digits(s, pos, 2);
    if (!mi) return std::nullopt;
    hh = *h;
    mm = *mi;
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      const auto se = digits(s, pos, 2);
      if (!se) return std::nullopt;
      ss = *se;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        // Milliseconds: up to three digits count, more are read and dropped.
        size_t n = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          if (n < 3) frac = frac * 10 + (s[pos] - '0');
          ++n;
          ++pos;
        }
        if (n == 0) return std::nullopt;
        for (; n < 3; ++n) frac *= 10;
      }
    }
    if (hh > 23 || mm > 59 || ss > 60) return std::nullopt;
  }
  int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos++] == '+' ? 1 : -1;
    const auto oh = digits(s, pos, 2);
    if (!oh) return std::nullopt;
    int om = 0;
    if (pos < s.size() && s[pos] == ':') ++pos;
    if (pos < s.size()) {
      const auto m2 = digits(s, pos, 2);
      if (!m2) return std::nullopt;
      om = *m2;
    }
    if (*oh > 23 || om > 59) return std::nullopt;
    offset_min = sign * (*oh * 60 + om);
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t days = days_from_civil(*y, *mo, *d);
  return days * kMsPerDay + ((hh * 60 + mm - offset_min) * 60 + ss) * int64_t{1000} + frac;
}

int64_t clock_ms(std::optional<int64_t> fixed) {
  if (fixed) return *fixed;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kseg
