// SPDX-License-Identifier: Apache-2.0
// Sizes and durations as people type and read them. An option that takes
// one accepts Kafka's unit (bytes, milliseconds) as a whole number, or a
// whole number with a unit; text output says sizes in binary units.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kseg {

// "1073741824", "4096B", "64k", "64KiB", "512M", "512MiB", "10G", "10GiB",
// "1T", "1P": K/M/G/T/P alone or with "iB" are powers of 1024; "KB", "MB",
// "GB", "TB", "PB" powers of 1000 (upper or lower case). A plain whole
// number keeps its sign ("-1"). nullopt if it is none of these or does not
// fit in an int64.
std::optional<int64_t> parse_size(std::string_view text);

// "604800000" (ms), "500ms", "45s", "90m", "36h", "7d", "1w", and sums of
// them ("1h30m", "1d12h"). A plain whole number keeps its sign ("-1").
// nullopt if it is none of these or does not fit in an int64.
std::optional<int64_t> parse_duration_ms(std::string_view text);

// 349330000 -> "4d 1h", 5400000 -> "1h 30m", 42000 -> "42s", 350 -> "350ms":
// the two largest units; negative durations with a '-'.
std::string human_duration(int64_t ms);

// 512 -> "512 B", 1536 -> "1.5 KiB", up to PiB.
std::string human_bytes(double n);
inline std::string human_bytes(int64_t n) { return human_bytes(static_cast<double>(n)); }

}  // namespace kseg
