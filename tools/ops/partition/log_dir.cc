// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/log_dir.h"

#include <filesystem>

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/file_names.h"
#include "lib/mapped_file.h"
#include "tools/ops/common/problem.h"

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

Result<CheckpointLines> read_checkpoint_lines(const std::string& log_dir, RootCheckpoint which, const std::string& topic,
                                              int32_t partition) {
  CheckpointLines out;
  out.path = (fs::path(log_dir) / root_checkpoint_name(which)).string();
  if (!present(out.path)) return out;
  auto bytes = MappedFile::read_state_file(out.path);
  if (!bytes.ok()) return bytes.error().in(out.path);
  auto entries = checkpoint::parse_offset_checkpoint(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), out.path);
  if (!entries.ok())
    return refusal(Code::checkpoint_corrupt, entries.error().position,
                   fmt::format("{}: {} (the broker takes this log dir offline; fix it first)", out.path,
                               entries.error().message));
  out.present = true;
  out.entries = std::move(*entries);
  for (const auto& e : out.entries)
    if (e.topic == topic && e.partition == partition) out.mine = e.offset;
  return out;
}

std::string log_dir_of(const std::string& partition_dir) {
  std::error_code ec;
  const auto dir = fs::weakly_canonical(fs::path(partition_dir) / "..", ec);
  return ec ? partition_dir + "/.." : dir.string();
}

Result<std::optional<int64_t>> partition_checkpoint(const std::string& partition_dir, RootCheckpoint which) {
  const fs::path part = fs::absolute(partition_dir).lexically_normal();
  auto name = file_names::parse_partition_dir_name(part.filename().string());
  if (!name.ok()) return std::optional<int64_t>();
  auto lines = read_checkpoint_lines(part.parent_path().string(), which, name->topic, name->partition);
  if (!lines.ok()) return lines.error();
  return lines->mine;
}

}  // namespace kseg
