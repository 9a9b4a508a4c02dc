// SPDX-License-Identifier: Apache-2.0
// The question a writing tool asks before it writes what it has shown (kseg-doctor --fix,
// kseg-excise): only on a terminal; a script says --yes instead.
#pragma once

#include <string_view>

namespace kseg {

// Whether there is a person to ask: stdin and stderr are terminals.
bool can_ask();
// Prints "TOOL: QUESTION [y/N] " on stderr and reads a line from stdin: true on y, Y or yes.
bool ask_yes(std::string_view tool, std::string_view question);

}  // namespace kseg
