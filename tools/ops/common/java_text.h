// SPDX-License-Identifier: Apache-2.0
// Text conversions that must match what Java prints, byte for byte.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lib/byte_reader.h"

namespace kseg {

// Appends `bytes` decoded as Java's `new String(bytes, UTF_8)` would, then
// encoded back to UTF-8: valid sequences are copied, each malformed
// subsequence becomes U+FFFD using the JDK's rules for its length.
void append_java_utf8(std::string& out, Bytes bytes);
void append_java_utf8(fmt::memory_buffer& out, Bytes bytes);

// Lower-case hex (base64: lib/base64.h).
void append_hex(std::string& out, Bytes bytes);

}  // namespace kseg
