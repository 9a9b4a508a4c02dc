// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/partition_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "lib/mapped_file.h"
#include "tools/ops/common/problem.h"

namespace kseg {

namespace {

// What a name that is not a regular file is, for the report: `st` its
// stat(2) (following links) where that succeeded, else the errno.
std::string what_it_is(const struct stat* st, int err) {
  if (st != nullptr) return std::string("a ") + file_type_name(st->st_mode);
  return err == ELOOP ? "a symbolic link loop" : "a dangling symbolic link";
}

// Unreadable::refuse's error: the first entry kseg cannot read (in name
// order, so the same one each run), and how many more there are.
Error refusal(const std::string& dir, std::vector<std::pair<std::string, std::string>> bad) {
  std::sort(bad.begin(), bad.end());
  std::string more;
  if (bad.size() > 1) more = fmt::format(" (and {} more such file{})", bad.size() - 1, bad.size() == 2 ? "" : "s");
  return coded_error(Code::dir_not_a_file, Errc::io, std::nullopt,
                     fmt::format("{}/{}: {}{}", dir, bad[0].first, bad[0].second, more));
}

// A name Kafka reads as one of a partition's files.
bool kafka_file_name(std::string_view name) {
  if (name == "leader-epoch-checkpoint" || name == "partition.metadata") return true;
  auto n = file_names::parse_segment_file_name(name);
  return n.ok() && n->kind != file_names::FileKind::unknown;
}

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

}  // namespace

// readdir(3), not std::filesystem::directory_iterator: the entry paths it
// builds and splits into components were 300,000 of the 845,000 allocations
// of kseg-verify on a log dir of 2,000 partitions. The type comes from
// d_type; links (followed, as LogLoader's File.isFile follows them) and
// file systems without d_type are asked with fstatat(2). Under
// Unreadable::refuse, each regular file under a Kafka name is also asked
// faccessat(2) for reading (one system call each, not an open).
Result<PartitionLayout> read_partition_layout(const std::string& dir, Unreadable unreadable) {
  std::vector<std::string> names, backups;
  std::vector<std::pair<std::string, std::string>> odd, bad;
  std::set<std::string> state_files;
  std::unique_ptr<DIR, DirCloser> d(opendir(dir.c_str()));
  if (!d) return Error{Errc::io, std::nullopt, errno_text(errno)};
  while (true) {
    errno = 0;
    const dirent* e = readdir(d.get());
    if (e == nullptr) {
      if (errno != 0) return Error{Errc::io, std::nullopt, errno_text(errno)};
      break;
    }
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    bool stat_ok = true;
    int stat_err = 0;
    mode_t type = DTTOIF(e->d_type);
    if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
      stat_ok = fstatat(dirfd(d.get()), e->d_name, &st, 0) == 0;
      stat_err = errno;
      type = stat_ok ? st.st_mode & S_IFMT : 0;
    } else {
      st.st_mode = type;
    }
    if ((name == "leader-epoch-checkpoint" || name == "partition.metadata" || name == "quorum-state") && stat_ok)
      state_files.emplace(name);
    if (unreadable == Unreadable::refuse && kafka_file_name(name)) {
      if (!S_ISREG(type))
        bad.emplace_back(name, fmt::format("not a regular file ({}{})", what_it_is(stat_ok ? &st : nullptr, stat_err),
                                           stat_ok ? std::string() : ": " + errno_text(stat_err)));
      else if (faccessat(dirfd(d.get()), e->d_name, R_OK, AT_EACCESS) != 0 && errno != ENOENT)
        bad.emplace_back(name, errno_text(errno));  // Permission denied: the broker's user may read what this one may not
    }
    if (S_ISREG(type)) names.emplace_back(name);
    else if (name.starts_with(file_names::kKsegBackupPrefix) && S_ISDIR(type)) backups.emplace_back(name);
    else if (auto n = file_names::parse_segment_file_name(name); n.ok() && n->kind != file_names::FileKind::unknown)
      odd.emplace_back(name, what_it_is(stat_ok ? &st : nullptr, stat_err));
  }
  if (!bad.empty()) return refusal(dir, std::move(bad));
  PartitionLayout l = classify_partition(std::move(names));
  std::sort(backups.begin(), backups.end());
  l.kseg_backups = std::move(backups);
  std::sort(odd.begin(), odd.end());
  l.not_files = std::move(odd);
  l.state_files = std::move(state_files);
  return l;
}

}  // namespace kseg
