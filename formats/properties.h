// SPDX-License-Identifier: Apache-2.0
// Java properties files given on a command line (a topic's configs,
// server.properties): the one reader kseg-compact and kseg-reindex use, and
// the one rule for whole numbers, in those files and on every command line.
//
// The syntax is java.util.Properties.load's (meta_properties::load: comments,
// blank lines, continuations, `=`, `:` or white space between key and value,
// escapes). A file is read whole, up to kMaxFileBytes: a larger file, a
// directory, a FIFO, a device or an unreadable file is an error naming the
// file and the reason, never an empty set of properties.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/meta_properties.h"
#include "lib/status.h"

namespace kseg::properties {

using Properties = meta_properties::Properties;

// The largest config file read (server.properties is a few KiB).
inline constexpr int64_t kMaxFileBytes = 1 << 20;

// Properties.load over `text`; pure.
Result<Properties> parse(std::string_view text);

// Reads and parses the file at `path`. Errc::io with "<path>: <reason>" when
// it cannot be read: "cannot open: Permission denied", "is a directory",
// "is a FIFO, not a regular file", "larger than 1 MiB (N bytes)".
Result<Properties> read_file(const std::string& path);

// A whole number as Kafka reads one (Long.parseLong; ConfigDef trims a config
// value first, which callers do): an optional sign, then decimal digits only,
// leading zeros meaning decimal ("0088" is 88); no hex, no octal, no blank.
// Errc::usage with "'<text>' is not a decimal whole number" or "<n> is out of
// range: give a decimal whole number from <min> to <max>" (the caller puts the
// option or key name in front).
Result<int64_t> parse_number(std::string_view text, int64_t min, int64_t max);

// Java's String.trim: every character <= ' ' off both ends.
std::string_view trim(std::string_view s);

}  // namespace kseg::properties
