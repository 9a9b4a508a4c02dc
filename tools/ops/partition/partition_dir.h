// A partition directory's files, listed once for every tool: the regular
// files in it (LogLoader lists no other kind), sorted into the layout of
// formats/partition_layout.h.
#pragma once

#include <string>

#include "formats/partition_layout.h"
#include "lib/status.h"

namespace kseg {

// Fails (Errc::io, the system's reason as the message) when the directory
// cannot be listed.
Result<PartitionLayout> read_partition_layout(const std::string& dir);

}  // namespace kseg
