// SPDX-License-Identifier: Apache-2.0
// Where a segment's records end, found one way for every tool that needs the
// log end offset (txn, info, compact, truncate).
#pragma once

#include <cstdint>
#include <string>

#include "lib/status.h"

namespace kseg {

// The offset after the last batch of the .log at `log_path` whose base offset
// is `base` (`base` when it holds none): the log end offset when it is the
// last segment. Only whole batches count (a torn or zero tail is not read).
// With `index_path`, the scan starts at the index's last live entry (the
// whole file is read when that entry points at no batch boundary, or at no
// whole batch: a torn or zeroed one); resident memory stays flat however
// large the segment. Errors name the file.
Result<int64_t> segment_next_offset(const std::string& log_path, int64_t base, const std::string& index_path = "");

// last + 1, which stays INT64_MAX for a batch ending there.
constexpr int64_t next_offset(int64_t last) { return last == INT64_MAX ? last : last + 1; }

}  // namespace kseg
