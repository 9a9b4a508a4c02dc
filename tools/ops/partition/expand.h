// Expands the paths a user gives to the files Kafka's tools handle: a file
// stays as it is; a partition directory becomes its segment files in offset
// order; a log directory becomes each partition's files.
#pragma once

#include <string>
#include <vector>

#include "lib/status.h"

namespace kseg {

Result<std::vector<std::string>> expand_paths(const std::vector<std::string>& paths);

}  // namespace kseg
