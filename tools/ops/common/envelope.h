// SPDX-License-Identifier: Apache-2.0
// The one JSON convention of kseg's tools: every report opens with the same
// three keys, then the tool's own body.
//   {"schema": "kseg-truncate/1", "tool": "kseg-truncate", "version": "0.1.0", ...}
// `schema` names the body's shape (formats/<tool>.schema.json) and changes
// only when that shape does; `version` is kseg's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kseg {

const char* kseg_version();

// The three keys as an object to add the body to.
nlohmann::ordered_json json_envelope(const char* tool);

// The same as the text that opens a streamed report, up to and including
// the comma after the three keys: {"schema":"kseg-dump/1","tool":"kseg-dump","version":"0.1.0",
std::string json_envelope_open(const char* tool);

}  // namespace kseg
