// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/log_dir.h"

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

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

// A refusal coded checkpoint.corrupt where Kafka cannot read it.
Result<std::vector<checkpoint::TopicPartitionOffset>> parse_root_checkpoint(const std::string& path,
                                                                           const std::vector<uint8_t>& bytes) {
  auto entries = checkpoint::parse_offset_checkpoint(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  if (!entries.ok())
    return refusal(Code::checkpoint_corrupt, entries.error().position,
                   fmt::format("{}: {} (the broker takes this log dir offline; fix it first)", path,
                               entries.error().message));
  return entries;
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
  auto entries = parse_root_checkpoint(out.path, *bytes);
  if (!entries.ok()) return entries.error();
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

namespace {

// A root checkpoint's lines by "<topic> <partition>", parsed once: a tool
// that loads each of a log dir's thousands of partitions asks it once each,
// and parsing it (or only reading it) each time cost time in the square of
// their number. Kept with the file's identity and times (device, inode,
// size, modification and change times to the nanosecond): a file rewritten
// or replaced since changes one of them and is read again.
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};
FileStamp stamp_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
          st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec};
}
struct ParsedCheckpoint {
  FileStamp stamp;
  std::unordered_map<std::string, int64_t> offsets;
};
std::mutex parsed_mu;
std::map<std::string, std::shared_ptr<const ParsedCheckpoint>> parsed;  // by path

}  // namespace

Result<std::optional<int64_t>> checkpoint_line(const std::string& log_dir, RootCheckpoint which, const std::string& topic,
                                               int32_t partition) {
  const std::string path = (fs::path(log_dir) / root_checkpoint_name(which)).string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::optional<int64_t>();  // absent (or unreachable: read as absent, as present() did)
  const FileStamp stamp = stamp_of(st);
  std::shared_ptr<const ParsedCheckpoint> file;
  {
    std::lock_guard lock(parsed_mu);
    if (auto it = parsed.find(path); it != parsed.end() && it->second->stamp == stamp) file = it->second;
  }
  if (!file) {
    auto bytes = MappedFile::read_state_file(path);
    if (!bytes.ok()) return bytes.error().in(path);
    auto entries = parse_root_checkpoint(path, *bytes);
    if (!entries.ok()) return entries.error();
    auto fresh = std::make_shared<ParsedCheckpoint>();
    for (const auto& e : *entries) fresh->offsets[fmt::format("{} {}", e.topic, e.partition)] = e.offset;
    fresh->stamp = stamp;  // taken before the read: a change during it is read again next time
    std::lock_guard lock(parsed_mu);
    parsed[path] = fresh;
    file = std::move(fresh);
  }
  if (auto it = file->offsets.find(fmt::format("{} {}", topic, partition)); it != file->offsets.end())
    return std::optional<int64_t>(it->second);
  return std::optional<int64_t>();
}

Result<std::optional<int64_t>> partition_checkpoint(const std::string& partition_dir, RootCheckpoint which) {
  const fs::path part = fs::absolute(partition_dir).lexically_normal();
  auto name = file_names::parse_partition_dir_name(part.filename().string());
  if (!name.ok()) return std::optional<int64_t>();
  return checkpoint_line(part.parent_path().string(), which, name->topic, name->partition);
}

bool active_indexes_loaded_as_is(const std::string& partition_dir) {
  // By its real name ("." inside the metadata log is the metadata log).
  std::error_code ec;
  const fs::path given = partition_dir.empty() ? fs::path(".") : fs::path(partition_dir);
  fs::path dir = fs::weakly_canonical(fs::absolute(given, ec), ec);
  if (ec) dir = given;
  if (dir.filename().empty()) dir = dir.parent_path();
  // Kafka appends to a partition's log and a -future copy only: -delete and
  // -stray logs are not even closed at shutdown.
  const auto name = file_names::parse_partition_dir_name(dir.filename().string());
  if (!name.ok() || name->topic == "__cluster_metadata" ||
      (name->kind != file_names::DirKind::partition && name->kind != file_names::DirKind::future))
    return false;
  return log_dir_files(dir.parent_path().string()).clean_shutdown;
}

}  // namespace kseg
