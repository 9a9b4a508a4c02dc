// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/targets.h"

#include <sys/stat.h>

#include <cerrno>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "lib/mapped_file.h"
#include "tools/ops/partition/log_dir.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {

// Order of the files of one segment, as an operator reads them.
int suffix_rank(const std::string& suffix) {
  static const char* kOrder[] = {".log", ".index", ".timeindex", ".txnindex", ".snapshot", ".checkpoint"};
  for (int i = 0; i < 6; ++i)
    if (suffix == kOrder[i]) return i;
  return -1;
}

// <digits, '-'>.<known suffix>: segment files, snapshots, KRaft checkpoints.
bool is_numbered_file(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  if (!std::all_of(name.begin(), name.begin() + static_cast<long>(dot), [](char c) {
        return (c >= '0' && c <= '9') || c == '-';
      }))
    return false;
  return suffix_rank(name.substr(dot)) >= 0;
}

bool holds_partition_files(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string n = e.path().filename().string();
    if (n == "partition.metadata" || n == "leader-epoch-checkpoint" || is_numbered_file(n)) return true;
  }
  return false;
}

}  // namespace

Targets expand_targets(const std::vector<std::string>& paths) {
  Targets out;
  for (std::string p : paths) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.targets.push_back({Target::file, p, false});
      continue;
    }
    if (holds_partition_files(p)) {
      out.targets.push_back({Target::partition, p, parent_shut_down_cleanly(p)});
      continue;
    }
    const bool clean = log_dir_files(p).clean_shutdown;
    std::vector<std::string> subdirs;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const std::string n = e.path().filename().string();
      if (e.is_directory(ec) && n != "remote-log-index-cache" && n[0] != '.') subdirs.push_back(e.path().string());
    }
    if (ec) out.errors.push_back(fmt::format("{}: {}", p, ec.message()));
    std::sort(subdirs.begin(), subdirs.end());
    for (auto& d : subdirs) out.targets.push_back({Target::partition, std::move(d), clean});
    out.targets.push_back({Target::log_dir, p, clean});
  }
  return out;
}

std::vector<std::string> partition_files(const std::string& dir, bool state_files) {
  std::vector<std::tuple<std::string, int, std::string>> keyed;  // (stem, rank, path)
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file(ec) || !is_numbered_file(name)) continue;
    const auto dot = name.find('.');
    keyed.emplace_back(name.substr(0, dot), suffix_rank(name.substr(dot)), e.path().string());
  }
  std::sort(keyed.begin(), keyed.end());  // 20-digit stems sort as offsets do
  std::vector<std::string> out;
  for (auto& k : keyed) out.push_back(std::get<2>(k));
  if (!state_files) return out;
  for (const char* name : {"leader-epoch-checkpoint", "partition.metadata", "quorum-state"}) {
    const std::string path = (fs::path(dir) / name).string();
    if (fs::is_regular_file(path, ec)) out.push_back(path);
  }
  return out;
}

std::vector<std::string> log_dir_state_files(const std::string& dir) {
  const LogDirFiles files = log_dir_files(dir);
  std::vector<std::string> out;
  for (const auto& c : files.checkpoints) out.push_back(c.path);
  if (files.meta_properties) out.push_back(*files.meta_properties);
  return out;
}

namespace {

// A file named as a target: the segment its .log name gives, when allowed.
Result<PartitionJob> file_job(const std::string& path, bool segment_files) {
  // stat(2)'s own reason: a symlink loop is ELOOP, not "no such file".
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) return Error{Errc::io, std::nullopt, fmt::format("{}: {}", path, errno_text(errno))};
  if (!segment_files)
    return Error{Errc::usage, std::nullopt,
                 fmt::format("{}: not a directory: give a partition directory or a log directory", path)};
  if (!S_ISREG(sb.st_mode)) return Error{Errc::io, std::nullopt, fmt::format("{}: not a regular file", path)};
  auto n = file_names::parse_segment_file_name(fs::path(path).filename().string());
  if (!n.ok() || n->kind != file_names::FileKind::log)
    return Error{Errc::io, std::nullopt, fmt::format("{}: not a segment (.log) file", path)};
  const auto parent = fs::path(path).parent_path();
  return PartitionJob{parent.empty() ? std::string(".") : parent.string(), n->offset, ""};
}

}  // namespace

Result<std::vector<PartitionJob>> partition_jobs(const PartitionSelection& s, bool segment_files) {
  std::vector<PartitionJob> out;
  for (const auto& p : s.paths) {
    Targets t = expand_targets({p});
    if (!t.errors.empty()) return Error{Errc::io, std::nullopt, t.errors.front()};
    const size_t before = out.size();
    // A log dir's partitions come before its own target: one path expands to one log dir at most.
    std::string log_dir;
    for (const Target& target : t.targets)
      if (target.kind == Target::log_dir) log_dir = target.path;
    for (const Target& target : t.targets) {
      if (target.kind == Target::file) {
        auto job = file_job(target.path, segment_files);
        if (!job.ok()) return job.error();
        out.push_back(std::move(*job));
        continue;
      }
      if (target.kind != Target::partition) continue;
      if (!s.topic.empty() || s.partition) {
        auto tp = file_names::parse_partition_dir_name(fs::path(target.path).filename().string());
        if (!tp.ok() || (!s.topic.empty() && tp->topic != s.topic) || (s.partition && tp->partition != *s.partition))
          continue;
      }
      out.push_back({target.path, std::nullopt, log_dir});
    }
    if (out.size() == before && !s.allow_empty)
      return Error{Errc::io, std::nullopt,
                   fmt::format("{}: no partition directory{} in it (--allow-empty accepts this)", p,
                               s.topic.empty() && !s.partition ? "" : " matching --topic/--partition")};
  }
  return out;
}

Result<std::vector<std::string>> partition_dirs_for(const PartitionSelection& s) {
  auto jobs = partition_jobs(s);
  if (!jobs.ok()) return jobs.error();
  std::vector<std::string> out;
  for (auto& j : *jobs) out.push_back(std::move(j.dir));
  return out;
}

}  // namespace kseg
