#include "tools/ops/partition/partition_dir.h"

#include <algorithm>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <set>

#include "lib/mapped_file.h"

namespace kseg {

namespace {

std::string what_it_is(const std::filesystem::directory_entry& e) {
  struct stat st {};
  if (::stat(e.path().c_str(), &st) == 0) return std::string("a ") + file_type_name(st.st_mode);
  return errno == ELOOP ? "a symbolic link loop" : "a dangling symbolic link";
}

}  // namespace

Result<PartitionLayout> read_partition_layout(const std::string& dir) {
  std::vector<std::string> names, backups;
  std::vector<std::pair<std::string, std::string>> odd;
  std::set<std::string> state_files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    const std::string name = e.path().filename().string();
    if ((name == "leader-epoch-checkpoint" || name == "partition.metadata") &&
        (e.is_regular_file(type_ec) || e.exists(type_ec)))
      state_files.insert(name);
    if (e.is_regular_file(type_ec)) names.push_back(name);
    else if (name.starts_with(".kseg-backup-") && e.is_directory(type_ec)) backups.push_back(name);
    else if (auto n = file_names::parse_segment_file_name(name); n.ok() && n->kind != file_names::FileKind::unknown)
      odd.emplace_back(name, what_it_is(e));
  }
  if (ec) return Error{Errc::io, std::nullopt, ec.message()};
  PartitionLayout l = classify_partition(std::move(names));
  std::sort(backups.begin(), backups.end());
  l.kseg_backups = std::move(backups);
  std::sort(odd.begin(), odd.end());
  l.not_files = std::move(odd);
  l.state_files = std::move(state_files);
  return l;
}

}  // namespace kseg
