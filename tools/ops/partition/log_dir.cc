#include "tools/ops/partition/log_dir.h"

#include <filesystem>

#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "lib/mapped_file.h"

namespace kseg {

namespace fs = std::filesystem;

namespace {
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}
}  // namespace

const char* root_checkpoint_name(RootCheckpoint c) {
  switch (c) {
    case RootCheckpoint::recovery_point: return "recovery-point-offset-checkpoint";
    case RootCheckpoint::replication: return "replication-offset-checkpoint";
    case RootCheckpoint::log_start: return "log-start-offset-checkpoint";
    case RootCheckpoint::cleaner: return "cleaner-offset-checkpoint";
  }
  return "?";
}

std::optional<RootCheckpoint> root_checkpoint_of(const std::string& file_name) {
  for (RootCheckpoint c : kRootCheckpoints)
    if (file_name.starts_with(root_checkpoint_name(c))) return c;
  return std::nullopt;
}

LogDirFiles log_dir_files(const std::string& dir) {
  LogDirFiles out;
  out.path = dir;
  const fs::path root(dir);
  for (RootCheckpoint c : kRootCheckpoints)
    if (present(root / root_checkpoint_name(c))) out.checkpoints.push_back({c, (root / root_checkpoint_name(c)).string()});
  if (present(root / kMetaPropertiesFile)) out.meta_properties = (root / kMetaPropertiesFile).string();
  out.clean_shutdown = present(root / kCleanShutdownFile);
  return out;
}

bool parent_shut_down_cleanly(const std::string& partition_dir) {
  const fs::path parent = fs::path(partition_dir).parent_path();
  return present((parent.empty() ? fs::path(".") : parent) / kCleanShutdownFile);
}

Result<std::optional<int64_t>> partition_checkpoint(const std::string& partition_dir, RootCheckpoint which) {
  const fs::path part = fs::absolute(partition_dir).lexically_normal();
  auto name = file_names::parse_partition_dir_name(part.filename().string());
  const fs::path path = part.parent_path() / root_checkpoint_name(which);
  if (!name.ok() || !present(path)) return std::optional<int64_t>();
  auto bytes = MappedFile::read_state_file(path.string());
  if (!bytes.ok()) return Error{bytes.error().code, bytes.error().position, path.string() + ": " + bytes.error().message};
  auto entries = checkpoint::parse_offset_checkpoint(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path.string());
  if (!entries.ok()) return Error{entries.error().code, entries.error().position, path.string() + ": " + entries.error().message};
  for (const auto& e : *entries)
    if (e.topic == name->topic && e.partition == name->partition) return std::optional<int64_t>(e.offset);
  return std::optional<int64_t>();
}

}  // namespace kseg
