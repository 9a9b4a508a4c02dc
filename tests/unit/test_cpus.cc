// SPDX-License-Identifier: Apache-2.0
// Default thread counts follow the CPUs a process may use, not the machine's.
#include <sched.h>

#include <catch2/catch.hpp>

#include "lib/cpus.h"

using kseg::cpus_from_cpu_max;

TEST_CASE("cgroup CPU quotas: the CPUs they allow, rounded up", "[cpus]") {
  CHECK_FALSE(cpus_from_cpu_max("max 100000\n").has_value());  // no limit
  CHECK(cpus_from_cpu_max("200000 100000\n") == 2u);
  CHECK(cpus_from_cpu_max("150000 100000") == 2u);              // docker --cpus=1.5
  CHECK(cpus_from_cpu_max("50000 100000\n") == 1u);
  CHECK(cpus_from_cpu_max("1000 100000\n") == 1u);
  CHECK_FALSE(cpus_from_cpu_max("").has_value());
  CHECK_FALSE(cpus_from_cpu_max("200000").has_value());
  CHECK_FALSE(cpus_from_cpu_max("0 100000").has_value());
  CHECK_FALSE(cpus_from_cpu_max("x 100000").has_value());
  // cgroup v1: the two files' contents joined.
  CHECK_FALSE(cpus_from_cpu_max("-1\n 100000\n").has_value());
  CHECK(cpus_from_cpu_max("150000\n 100000\n") == 2u);
  CHECK_FALSE(cpus_from_cpu_max(" 100000\n").has_value());  // quota file unreadable
}

TEST_CASE("usable_cpus is bounded by the affinity mask", "[cpus]") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  const unsigned n = kseg::usable_cpus();
  CHECK(n >= 1);
  CHECK(n <= static_cast<unsigned>(CPU_COUNT(&set)));
  // Pinned to one CPU, the process may use one.
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) {
      CPU_SET(c, &one);
      break;
    }
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const unsigned pinned = kseg::usable_cpus();
  REQUIRE(sched_setaffinity(0, sizeof set, &set) == 0);
  CHECK(pinned == 1);
}
