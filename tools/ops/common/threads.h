// SPDX-License-Identifier: Apache-2.0
// --threads as a run uses it: never more threads than the process may run
// on at once (lib/cpus.h). More only add stacks, memory and contention
// (`kseg-verify --threads 100000` took 8-40 s and 297 MB), so a larger value
// is clamped, with one line on stderr.
#pragma once

#include <cstdio>

#include "lib/cpus.h"

namespace kseg {

// `asked`: the option's value, 0 when not given (then the caller's default,
// one per usable CPU, applies unchanged).
inline unsigned capped_threads(const char* tool, unsigned asked) {
  const unsigned cpus = usable_cpus();
  if (asked <= cpus) return asked;
  std::fprintf(stderr, "%s: warning: --threads %u is more than the %u usable CPU%s: using %u\n", tool, asked, cpus,
               cpus == 1 ? "" : "s", cpus);
  return cpus;
}

}  // namespace kseg
