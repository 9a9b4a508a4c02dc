// SPDX-License-Identifier: Apache-2.0
// kseg-excise's entry point, callable in-process by tests and by `kseg`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kseg {

int excise_main(int argc, char** argv);

// "A..B,C,D..E" (whole offsets; "A.." to the end) as inclusive ranges; nullopt
// when it is not such a list.
std::optional<std::vector<std::pair<int64_t, int64_t>>> parse_offset_list(const std::string& text);

}  // namespace kseg
