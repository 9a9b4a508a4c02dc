// SPDX-License-Identifier: Apache-2.0
// The log dir's lock, as a broker takes it: an OFD write lock on
// <log_dir>/.lock, so that a broker and a kseg writer exclude each other.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tools/ops/common/problem.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/write/io_error.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::safe {

namespace {

// fcntl write-lock request over the whole file. OFD locks conflict with the
// classic POSIX locks a JVM takes, and unlike those they are not dropped when
// some other descriptor of ours on the file is closed.
struct flock whole_file(short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  return fl;
}

// <log_dir>/.lock, opened without following a link or waiting on a FIFO,
// and only if it is a regular file. -1 with errno ENOENT when there is none.
Result<int> open_lock_file(const std::string& lock, bool create) {
  const int fd = ::open(lock.c_str(), (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0 && errno == ENOENT && !create) return -1;
  if (fd < 0 && errno == ELOOP)
    return coded_error(Code::refuse_lock_file, Errc::io, std::nullopt,
                       fmt::format("{}: a symbolic link, not the lock file a broker makes", lock));
  if (fd < 0) return io_error("cannot open", lock, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return coded_error(Code::refuse_lock_file, Errc::io, std::nullopt, fmt::format("{}: not a regular file", lock));
  }
  return fd;
}

}  // namespace

Status check_unlocked(const std::string& log_dir) {
  const std::string lock = log_dir + "/.lock";
  auto opened = open_lock_file(lock, false);
  if (!opened.ok()) return opened.error();
  const int fd = *opened;
  if (fd < 0) return {};
  struct flock fl = whole_file(F_WRLCK);
  const int rc = ::fcntl(fd, F_OFD_GETLK, &fl);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return io_error("cannot query the lock on", lock, err);
  if (fl.l_type == F_UNLCK) return {};
  const std::string holder = fl.l_pid > 0 ? fmt::format("process {}", fl.l_pid) : std::string("another process");
  return coded_error(Code::refuse_locked, Errc::io, std::nullopt,
                     fmt::format("{} is locked by {} (a running Kafka broker?): refusing to change the log "
                                  "directory; stop the broker first",
                                  lock, holder));
}

bool DirLock::covers(const std::string& partition_dir) const {
  return fd_ >= 0 && log_dir_of(partition_dir) == log_dir_;
}

Result<DirLock> DirLock::acquire(const std::string& log_dir) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(log_dir, ec);
  const std::string dir = ec ? log_dir : canonical.string();
  const std::string lock = dir + "/.lock";
  // A symlink or a FIFO named .lock is refused, never followed or waited on.
  auto opened = open_lock_file(lock, true);
  if (!opened.ok()) return opened.error();
  const int fd = *opened;
  struct flock fl = whole_file(F_WRLCK);
  if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    ::close(fd);
    KSEG_RETURN_IF_ERROR(check_unlocked(dir));
    return io_error("cannot lock", lock, EAGAIN);
  }
  return DirLock(fd, dir);
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases an OFD lock
}

Result<std::map<std::string, DirLock>> lock_log_dirs(const std::vector<std::string>& partition_dirs, bool dry_run,
                                                     const char* tool, Sink& err) {
  std::map<std::string, DirLock> locks;
  for (const auto& d : partition_dirs) {
    const std::string dir = log_dir_of(d);
    if (dry_run) {
      // What a broker holds is only warned about (a dry run is safe beside it); a .lock no
      // broker made (a FIFO, a link, a directory) is refused in every mode.
      struct stat sb {};
      const std::string lock = dir + "/.lock";
      if (::lstat(lock.c_str(), &sb) == 0 && !S_ISREG(sb.st_mode))
        return coded_error(Code::refuse_lock_file, Errc::io, std::nullopt,
                           fmt::format("{}: {}", lock, S_ISLNK(sb.st_mode) ? "a symbolic link, not the lock file a broker makes"
                                                                           : "not a regular file"));
      if (Status st = check_unlocked(dir); !st.ok()) {
        auto p = problem_of(st.error());
        if (p) p->severity = Severity::warning;  // a dry run goes on beside the broker
        err.print("{}: {}\n", tool, p ? problem_text(*p) : st.error().message);
      }
      continue;
    }
    if (locks.count(dir)) continue;
    auto lock = DirLock::acquire(dir);
    if (!lock.ok()) return lock.error();
    locks.emplace(dir, std::move(*lock));
  }
  return locks;
}

}  // namespace kseg::safe
