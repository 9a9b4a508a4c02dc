// SPDX-License-Identifier: Apache-2.0
// The write protocol's I/O error: what failed, on which path, and the
// system's reason. Internal to tools/ops/write.
#pragma once

#include <string>

#include <fmt/format.h>

#include "lib/mapped_file.h"
#include "lib/status.h"

namespace kseg::safe {

inline Error io_error(const std::string& what, const std::string& path, int err) {
  return Error{Errc::io, std::nullopt, fmt::format("{} {}: {}", what, path, errno_text(err))};
}

}  // namespace kseg::safe
