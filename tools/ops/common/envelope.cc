// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/envelope.h"

namespace kseg {

const char* kseg_version() { return KSEG_VERSION; }

nlohmann::ordered_json json_envelope(const char* tool) {
  return {{"schema", std::string(tool) + "/1"}, {"tool", tool}, {"version", kseg_version()}};
}

std::string json_envelope_open(const char* tool) {
  std::string text = json_envelope(tool).dump();
  text.back() = ',';  // the closing brace, where the body goes on
  return text;
}

}  // namespace kseg
