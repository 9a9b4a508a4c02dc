// Exit codes shared by every kseg tool (documented in the man pages).
#pragma once

namespace kseg {

enum ExitCode : int {
  kExitOk = 0,        // ran to the end, found nothing wrong
  kExitProblems = 1,  // ran to the end, found problems in the data
  kExitUsage = 2,     // bad command line
  kExitIo = 3,        // a file could not be read
};

}  // namespace kseg
