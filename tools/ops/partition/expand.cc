#include "tools/ops/partition/expand.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

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

bool is_partition_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  if (!std::all_of(name.begin(), name.begin() + static_cast<long>(dot), [](char c) {
        return (c >= '0' && c <= '9') || c == '-';
      }))
    return false;
  return suffix_rank(name.substr(dot)) >= 0;
}

std::vector<std::string> partition_files(const fs::path& dir) {
  std::vector<std::tuple<std::string, int, std::string>> keyed;  // (stem, rank, path)
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || !is_partition_file(e.path())) continue;
    const std::string name = e.path().filename().string();
    const auto dot = name.find('.');
    keyed.emplace_back(name.substr(0, dot), suffix_rank(name.substr(dot)), e.path().string());
  }
  std::sort(keyed.begin(), keyed.end());  // 20-digit stems sort as offsets do
  std::vector<std::string> out;
  for (auto& k : keyed) out.push_back(std::get<2>(k));
  return out;
}

}  // namespace

Result<std::vector<std::string>> expand_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    auto files = partition_files(p);
    if (!files.empty()) {
      out.insert(out.end(), files.begin(), files.end());
      continue;
    }
    // A log dir: every subdirectory that holds segment files, by name.
    std::vector<fs::path> subdirs;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_directory()) subdirs.push_back(e.path());
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& d : subdirs) {
      auto f = partition_files(d);
      out.insert(out.end(), f.begin(), f.end());
    }
    if (ec) return Error{Errc::io, Position{-1}, fmt::format("{}: {}", p, ec.message())};
  }
  return out;
}

}  // namespace kseg
