#include "tools/ops/partition/partition_dir.h"

#include <filesystem>

namespace kseg {

Result<PartitionLayout> read_partition_layout(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (e.is_regular_file(type_ec)) names.push_back(e.path().filename().string());
  }
  if (ec) return Error{Errc::io, std::nullopt, ec.message()};
  return classify_partition(std::move(names));
}

}  // namespace kseg
