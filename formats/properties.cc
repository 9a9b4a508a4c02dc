// SPDX-License-Identifier: Apache-2.0
#include "formats/properties.h"

#include <fmt/format.h>

#include "formats/java_text.h"
#include "lib/mapped_file.h"

namespace kseg::properties {

Result<Properties> parse(std::string_view text) { return meta_properties::load(text); }

Result<Properties> read_file(const std::string& path) {
  // MappedFile refuses what is not a regular file (a FIFO without blocking,
  // /dev/zero without reading it) and reads at most one byte past the cap.
  auto f = MappedFile::open(path, kMaxFileBytes + 1);
  if (!f.ok()) return Error{Errc::io, std::nullopt, fmt::format("{}: {}", path, f.error().message)};
  if (f->file_size() > kMaxFileBytes)
    return Error{Errc::io, std::nullopt,
                 fmt::format("{}: larger than 1 MiB ({} bytes): not a config file", path, f->file_size())};
  const Bytes b = f->bytes();
  auto props = parse(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  if (!props.ok())
    return Error{Errc::usage, std::nullopt,
                 fmt::format("{}:{}: {}", path, props.error().position ? props.error().position->value : 0,
                             props.error().message)};
  return props;
}

Result<int64_t> parse_number(std::string_view text, int64_t min, int64_t max) {
  const size_t digits_from = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const bool digits = text.size() > digits_from &&
                      text.find_first_not_of("0123456789", digits_from) == std::string_view::npos;
  const auto range = [&] { return fmt::format("give a decimal whole number from {} to {}", min, max); };
  if (!digits)
    return Error{Errc::usage, std::nullopt,
                 fmt::format("'{}' is not a decimal whole number{}", text, text.empty() ? " (the value is empty)" : "")};
  const auto n = java::parse_long(text);  // only the digits' count can fail it now
  if (!n || *n < min || *n > max)
    return Error{Errc::usage, std::nullopt, fmt::format("{} is out of range: {}", text, range())};
  return *n;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

}  // namespace kseg::properties
