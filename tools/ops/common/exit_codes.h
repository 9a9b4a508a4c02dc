// SPDX-License-Identifier: Apache-2.0
// Exit codes shared by every kseg tool (documented in the man pages).
#pragma once

#include <sys/stat.h>

#include <cstdio>

#include "lib/mapped_file.h"
#include "lib/status.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/common/sink.h"

namespace kseg {

enum ExitCode : int {
  kExitOk = 0,        // ran to the end, found nothing wrong
  kExitProblems = 1,  // ran to the end, found problems in the data
  kExitUsage = 2,     // bad command line
  kExitIo = 3,        // a file could not be read
};

// The one place an error's code becomes an exit code: a problem in the data
// (anything Kafka would also find wrong, or refuse) is 1 and never 2.
inline int exit_code_for(Errc c) {
  switch (c) {
    case Errc::ok: return kExitOk;
    case Errc::usage: return kExitUsage;
    case Errc::io:
    case Errc::internal: return kExitIo;
    default: return kExitProblems;
  }
}

// "<tool>: <message>" on `err` ("<tool>: ERROR <code> <message>" for an
// error with a problem code), and the exit code for the error.
inline int report_failure(const char* tool, const Error& e, Sink& err) {
  err.print("{}: {}\n", tool, error_text(e));
  return exit_code_for(e.code);
}

// A tool's exit status after a run: exit 3 instead of `rc` when a file shrank
// while it was mapped (its remaining bytes read as zeros, so whatever was
// printed about it is not a verdict), with one line naming file and position.
inline int exit_after_run(const char* tool, int rc) {
  const auto s = file_shrink();
  if (!s) return rc;
  struct stat st {};
  const long long now = stat(s->path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
  std::fprintf(stderr,
               "%s: %s:%lld: the file shrank while it was read (expected %lld bytes, found %lld); "
               "what was printed about it from this position on is not from the file\n",
               tool, s->path.c_str(), static_cast<long long>(s->position), static_cast<long long>(s->mapped_size), now);
  return kExitIo;
}

}  // namespace kseg
