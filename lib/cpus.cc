// SPDX-License-Identifier: Apache-2.0
#include "lib/cpus.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace kseg {

std::optional<unsigned> cpus_from_cpu_max(std::string_view text) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    return v;
  };
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota_text = trim(text.substr(0, space)), period_text = trim(text.substr(space + 1));
  long long quota = 0, period = 0;
  auto q = std::from_chars(quota_text.data(), quota_text.data() + quota_text.size(), quota);
  auto p = std::from_chars(period_text.data(), period_text.data() + period_text.size(), period);
  if (q.ec != std::errc{} || p.ec != std::errc{} || q.ptr != quota_text.data() + quota_text.size() ||
      p.ptr != period_text.data() + period_text.size() || quota <= 0 || period <= 0)
    return std::nullopt;  // "max" (no limit) or not a quota
  return static_cast<unsigned>(std::max<long long>(1, (quota + period - 1) / period));
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The process's path in the cgroup v2 hierarchy ("0::path" in
// /proc/self/cgroup) or in a v1 controller's ("N:cpu,cpuacct:path").
std::optional<std::string> cgroup_path(const std::string& cgroups, bool v2, const std::string& controller = "cpu") {
  std::istringstream in(cgroups);
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const bool match = v2 ? line.compare(0, 3, "0::") == 0
                          : ("," + controllers + ",").find("," + controller + ",") != std::string::npos;
    if (match) return line.substr(b + 1);
  }
  return std::nullopt;
}

// The smallest CPU quota of the process's cgroup and its ancestors: a limit
// anywhere up the tree applies. cgroup v2 keeps it in cpu.max, v1 in
// cpu.cfs_quota_us / cpu.cfs_period_us (-1: none).
std::optional<unsigned> cgroup_cpus() {
  const std::string cgroups = read_file("/proc/self/cgroup");
  std::optional<unsigned> best;
  for (const bool v2 : {true, false}) {
    auto path = cgroup_path(cgroups, v2);
    if (!path) continue;
    for (;;) {
      const std::string dir = (v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/cpu") + *path;
      const std::string text = v2 ? read_file(dir + "/cpu.max")
                                  : read_file(dir + "/cpu.cfs_quota_us") + " " + read_file(dir + "/cpu.cfs_period_us");
      if (auto n = cpus_from_cpu_max(text); n && (!best || *n < *best)) best = n;
      const size_t up = path->rfind('/');
      if (up == std::string::npos || *path == "/") break;
      path->erase(up);
    }
  }
  return best;
}

// The smallest memory limit of the process's cgroup and its ancestors.
std::optional<int64_t> cgroup_memory() {
  const std::string cgroups = read_file("/proc/self/cgroup");
  std::optional<int64_t> best;
  for (const bool v2 : {true, false}) {
    auto path = cgroup_path(cgroups, v2, "memory");
    if (!path) continue;
    for (;;) {
      const std::string text = read_file(v2 ? "/sys/fs/cgroup" + *path + "/memory.max"
                                            : "/sys/fs/cgroup/memory" + *path + "/memory.limit_in_bytes");
      long long n = 0;  // "max" (v2) or a huge number (v1) when unlimited
      auto r = std::from_chars(text.data(), text.data() + text.size(), n);
      if (r.ec == std::errc{} && n > 0 && (!best || n < *best)) best = n;
      const size_t up = path->rfind('/');
      if (up == std::string::npos || *path == "/") break;
      path->erase(up);
    }
  }
  return best;
}

}  // namespace

int64_t usable_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  int64_t n = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : int64_t{1} << 30;
  if (auto limit = cgroup_memory()) n = std::min(n, *limit);
  return n;
}

unsigned usable_cpus() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) n = static_cast<unsigned>(CPU_COUNT(&set));
  // The quota read once a process: a tool may size a pool per partition
  // (kseg-doctor prices each compacted one's cleaning), and it costs five opens.
  static const std::optional<unsigned> quota = cgroup_cpus();
  if (quota) n = std::min(n, *quota);
  return std::max(1u, n);
}

}  // namespace kseg
