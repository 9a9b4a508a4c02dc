// SPDX-License-Identifier: Apache-2.0
// How many CPUs and how much memory this process may use, for default thread
// counts and memory budgets.
// std::thread::hardware_concurrency() counts the machine's CPUs, ignoring
// the affinity mask (taskset, cpusets) and a cgroup's CPU quota (docker
// --cpus, Kubernetes limits), so a container would start too many threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kseg {

// The smallest of: the affinity mask's CPU count and the CPU quotas of the
// process's cgroup (v2, or v1's cpu controller) and its ancestors, rounded
// up. At least 1.
unsigned usable_cpus();

// A quota as "QUOTA PERIOD": a cgroup v2 cpu.max line ("max 100000",
// "150000 100000"), or v1's cpu.cfs_quota_us and cpu.cfs_period_us joined
// by a space ("-1\n 100000\n"). The CPUs it allows, rounded up; none when
// unlimited or unreadable.
std::optional<unsigned> cpus_from_cpu_max(std::string_view text);

// The smallest of the machine's physical memory and the memory limits of the
// process's cgroup (v2 memory.max, v1 memory.limit_in_bytes) and its
// ancestors, in bytes: a container's budget, not its host's.
int64_t usable_memory();


}  // namespace kseg
