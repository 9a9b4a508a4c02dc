// SPDX-License-Identifier: Apache-2.0
// Timestamps as people type and read them: epoch milliseconds (Kafka's
// unit) or ISO 8601 in UTC. Civil-date arithmetic is done here, not through
// the C library's time zone machinery, so results do not depend on TZ.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kseg {

// Writes `ms` as 2026-12-02T18:41:49.123Z into `out` (at least 32 bytes);
// returns the end. Years outside 0..9999 are written with their sign and
// digits as they are (the format stays unambiguous).
char* format_iso_ms(int64_t ms, char* out);
std::string iso_ms(int64_t ms);

// Reads epoch milliseconds ("1733150000000", "-1") or an ISO 8601 time in
// UTC: "2026-12-02", "2026-12-02T18:41", "2026-12-02T18:41:49",
// "2026-12-02T18:41:49.123", each with an optional trailing "Z", "+hh:mm" or
// "-hh:mm" offset (a space may stand for the "T"). nullopt if it is neither.
std::optional<int64_t> parse_time_ms(std::string_view text);

// The system clock in epoch milliseconds: `fixed` when given (--now). A tool
// reads it once a run, so every partition of a run sees the same time.
int64_t clock_ms(std::optional<int64_t> fixed = std::nullopt);

}  // namespace kseg
