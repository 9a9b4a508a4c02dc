// SPDX-License-Identifier: Apache-2.0
// A partition directory's files, listed once for every tool: the regular
// files in it (LogLoader lists no other kind), sorted into the layout of
// formats/partition_layout.h.
#pragma once

#include <string>

#include "formats/partition_layout.h"
#include "lib/status.h"

namespace kseg {

// What the listing does with an entry under one of Kafka's names (a
// segment, index or snapshot file, leader-epoch-checkpoint,
// partition.metadata) that kseg cannot read: one that is not a regular file
// (a FIFO, a device, a directory, a dangling link, a link loop) or, as the
// process's own user, not readable (EACCES).
enum class Unreadable {
  // An error (Errc::io: exit 3) naming the first such file and why, before
  // anything is read: for every tool that needs the files, the writers above
  // all, so that nothing is planned from a partition seen in part.
  refuse,
  // Listed in not_files (non-regular entries only; a file that cannot be
  // opened fails where it is read), for a tool that reports them
  // (kseg-verify) or needs only the names (kseg-dump).
  list,
};

// Fails (Errc::io, the system's reason as the message) when the directory
// cannot be listed, or under Unreadable::refuse with a message that names
// the file ("<dir>/<name>: not a regular file (a FIFO)", "<dir>/<name>:
// Permission denied"). A symbolic link to a regular file counts as that
// file: it is followed for reading only (a writer replaces the link, never
// writes through it).
Result<PartitionLayout> read_partition_layout(const std::string& dir, Unreadable unreadable = Unreadable::refuse);

}  // namespace kseg
