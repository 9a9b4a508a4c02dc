// Exit codes shared by every kseg tool (documented in the man pages).
#pragma once

#include "lib/status.h"

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

}  // namespace kseg
