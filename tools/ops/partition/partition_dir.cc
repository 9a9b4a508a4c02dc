#include "tools/ops/partition/partition_dir.h"

#include <algorithm>
#include <filesystem>

namespace kseg {

Result<PartitionLayout> read_partition_layout(const std::string& dir) {
  std::vector<std::string> names, backups;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(type_ec)) names.push_back(name);
    else if (name.starts_with(".kseg-backup-") && e.is_directory(type_ec)) backups.push_back(name);
  }
  if (ec) return Error{Errc::io, std::nullopt, ec.message()};
  PartitionLayout l = classify_partition(std::move(names));
  std::sort(backups.begin(), backups.end());
  l.kseg_backups = std::move(backups);
  return l;
}

}  // namespace kseg
