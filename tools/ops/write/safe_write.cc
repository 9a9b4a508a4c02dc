// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/write/safe_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <memory>
#include <optional>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <system_error>
#include <thread>

#include "lib/mapped_file.h"
#include "tools/ops/common/sink.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/write/io_error.h"

namespace kseg::safe {

namespace {


Status write_all(int fd, const uint8_t* p, size_t n, const std::string& path) {
  if (const int err = kseg::write_all(fd, p, n)) return io_error("cannot write", path, err);
  return {};
}

// New files whose fsync waits for fsync_together: held open until then, so
// the file fsynced is the one written (no second open by name).
struct OpenFiles {
  std::vector<int> fds;
  std::vector<std::string> paths;
  OpenFiles() = default;
  OpenFiles(const OpenFiles&) = delete;
  OpenFiles& operator=(const OpenFiles&) = delete;
  ~OpenFiles() {
    for (int fd : fds) ::close(fd);
  }
};

// fsyncs and closes a new file, or hands it to `later` (which then owns it).
Status finish_new(int fd, const std::string& path, OpenFiles* later) {
  if (later != nullptr) {
    later->fds.push_back(fd);
    later->paths.push_back(path);
    return {};
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  return rc == 0 ? Status() : Status(io_error("cannot fsync", path, err));
}

// An existing file to read: followed through a link, but only a regular
// file (a FIFO or device would block or never end).
Result<int> open_to_read(const Dir& dir, const std::string& name) {
  const int fd = ::openat(dir.fd(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error("cannot open", dir.path(name), errno);
  struct stat sb {};
  if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd);
    return Error{Errc::io, std::nullopt, fmt::format("cannot read {}: not a regular file", dir.path(name))};
  }
  return fd;
}

// Copies `ranges` of from/from_name, in order, into the new file
// to/to_name; fsynced now, or later with the rest when `later` is given.
Status copy_ranges(const Dir& from, const std::string& from_name, const Dir& to, const std::string& to_name,
                   const std::vector<ByteRange>& ranges, bool crash_halfway, OpenFiles* later) {
  auto in = open_to_read(from, from_name);
  if (!in.ok()) return in.error();
  auto out = to.create(to_name);
  if (!out.ok()) {
    ::close(*in);
    return out.error();
  }
  const std::string path = to.path(to_name);
  int64_t total = 0, copied = 0;
  for (const auto& r : ranges) total += r.size.bytes;
  Status st;
  for (const auto& r : ranges) {
    loff_t at = r.begin.value;
    int64_t left = r.size.bytes;
    while (st.ok() && left > 0) {
      const ssize_t n = ::copy_file_range(*in, &at, *out, nullptr, static_cast<size_t>(left), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        st = io_error("cannot copy into", path, n < 0 ? errno : EIO);
      } else {
        left -= n;
        copied += n;
      }
      if (crash_halfway && copied >= total / 2) crash_point("tmp-partial");
    }
  }
  ::close(*in);
  if (!st.ok()) {
    ::close(*out);
    return st;
  }
  return finish_new(*out, path, later);
}

// A whole file copied (a backup on another file system), fsynced.
Status copy_whole(const Dir& from, const std::string& name, const Dir& to, const std::string& to_name) {
  struct stat sb {};
  if (::fstatat(from.fd(), name.c_str(), &sb, 0) != 0) return io_error("cannot stat", from.path(name), errno);
  return copy_ranges(from, name, to, to_name, {{Position{0}, Length{static_cast<int64_t>(sb.st_size)}}}, false, nullptr);
}

Status write_new(const Dir& dir, const std::string& name, const std::vector<uint8_t>& bytes, bool crash_halfway,
                 OpenFiles* later) {
  auto fd = dir.create(name);
  if (!fd.ok()) return fd.error();
  const std::string path = dir.path(name);
  const size_t half = crash_halfway ? bytes.size() / 2 : bytes.size();
  Status st = write_all(*fd, bytes.data(), half, path);
  if (st.ok() && crash_halfway) crash_point("tmp-partial");
  if (st.ok()) st = write_all(*fd, bytes.data() + half, bytes.size() - half, path);
  if (!st.ok()) {
    ::close(*fd);
    return st;
  }
  return finish_new(*fd, path, later);
}

// The backup directory, made new: <partition>/.kseg-backup-<UTC time>, or
// <given>/<partition name>-<UTC time> so that one --backup-dir can serve
// many partitions and many runs; -1, -2, ... when the name is taken.
Result<Dir> make_backup_dir(const Dir& partition, const std::string& given) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  struct tm utc {};
  ::gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::optional<Dir> given_dir;
  if (!given.empty()) {
    if (::mkdir(given.c_str(), 0755) != 0 && errno != EEXIST)
      return io_error("cannot create the backup directory", given, errno);
    auto d = Dir::open(given);
    if (!d.ok()) return d.error();
    given_dir.emplace(std::move(*d));
  }
  std::string name = partition.path();
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  name = name.substr(name.find_last_of('/') + 1);
  const Dir& parent = given_dir ? *given_dir : partition;
  const std::string base = given.empty() ? std::string(kBackupPrefix) + stamp : name + "-" + stamp;
  std::string dir = base;
  for (int i = 1; ::mkdirat(parent.fd(), dir.c_str(), 0755) != 0; i++) {
    if (errno != EEXIST) return io_error("cannot create the backup directory", parent.path(dir), errno);
    dir = fmt::format("{}-{}", base, i);
  }
  KSEG_RETURN_IF_ERROR(parent.fsync());
  return Dir::open_at(parent, dir);
}

// Keeps `name` reachable in the backup: a hard link when possible (same
// file system), else a fsynced copy. `reused`: the directory is an earlier
// apply()'s of the same run (backup_into), so a file already there is the
// file as it was before the run, the one to keep.
Status backup_file(const Dir& from, const std::string& name, const Dir& backup, const std::string& backup_name,
                   bool reused) {
  if (reused && backup.exists(backup_name)) return {};
  if (::linkat(from.fd(), name.c_str(), backup.fd(), backup_name.c_str(), 0) == 0) return {};
  if (errno != EXDEV) return io_error("cannot link into the backup directory:", from.path(name), errno);
  return copy_whole(from, name, backup, backup_name);
}

// Moves a removed file into the backup: a rename, or on another file system
// (--backup-dir elsewhere) a fsynced copy, then the unlink. `reused`: as for
// backup_file, a file of that name already there is the run's original (a
// later plan of the run removes what an earlier one wrote), so it is kept
// and this one is only removed.
Status move_into_backup(const Dir& from, const std::string& name, const Dir& backup, const std::string& backup_name,
                        bool reused) {
  if (!(reused && backup.exists(backup_name))) {
    if (::renameat(from.fd(), name.c_str(), backup.fd(), backup_name.c_str()) == 0) return {};
    if (errno != EXDEV) return io_error("cannot rename " + from.path(name) + " to", backup.path(backup_name), errno);
    KSEG_RETURN_IF_ERROR(copy_whole(from, name, backup, backup_name));
  }
  if (::unlinkat(from.fd(), name.c_str(), 0) != 0) return io_error("cannot remove", from.path(name), errno);
  return {};
}

// A root file's name in the backup directory (which sits in the partition
// directory): prefixed, so it cannot meet a partition file of the same name.
std::string backup_name(const Action& a) { return a.scope == Scope::log_dir ? "log-dir." + a.name : a.name; }

}  // namespace

Action Action::write(std::string name, std::vector<uint8_t> bytes, std::string why) {
  return {Kind::write, std::move(name), std::move(bytes), {}, std::move(why)};
}
Action Action::copy(std::string name, std::vector<ByteRange> ranges, std::string why) {
  return {Kind::copy_ranges, std::move(name), {}, std::move(ranges), std::move(why)};
}
Action Action::remove(std::string name, std::string why) { return {Kind::remove, std::move(name), {}, {}, std::move(why)}; }
Action Action::hide(std::string name, std::string why) { return {Kind::hide, std::move(name), {}, {}, std::move(why)}; }
Action Action::adopt(std::string name, std::string why) { return {Kind::adopt, std::move(name), {}, {}, std::move(why)}; }
Action Action::in_log_dir() && {
  scope = Scope::log_dir;
  return std::move(*this);
}

std::string Plan::path_of(const Action& a) const {
  return (a.scope == Scope::log_dir ? log_dir_of(partition_dir) : partition_dir) + "/" + a.name;
}

namespace {

// What an interrupted writer removes: the .kseg-tmp paths of every plan
// being applied (kseg-reindex applies several partitions' plans at once), NUL
// separated. Each plan's record is published in a slot before its first tmp
// file is created and withdrawn when apply() ends. A record taken out of its
// slot is freed unless a handler has started (it may be reading it): the
// handler raises the flag before it reads the slots, the writer takes the
// record out before it reads the flag (all sequentially consistent), so a
// record the handler read is never freed, and memory does not grow with the
// partitions applied.
struct TmpPaths {
  std::string all;
};
constexpr int kTmpSlots = 64;
std::array<std::atomic<const TmpPaths*>, kTmpSlots> g_tmp_paths{};
std::array<std::atomic<bool>, kTmpSlots> g_slot_taken{};
std::atomic<bool> g_interrupted{false};
thread_local int t_slot = -1;  // the slot of the plan this thread applies
std::atomic<int> g_replacing{0};  // plans past their commit point: replacing files
const char* g_tool = "kseg";

size_t c_len(const char* s) {
  size_t n = 0;
  while (s[n] != 0) ++n;
  return n;
}

void say(const char* s) { (void)!::write(STDERR_FILENO, s, c_len(s)); }

void on_interrupt(int sig) {
  g_interrupted.store(true);
  for (const auto& slot : g_tmp_paths)
    if (const TmpPaths* t = slot.load()) {
      const char* p = t->all.data();
      for (size_t i = 0; i < t->all.size(); i += c_len(p + i) + 1) ::unlink(p + i);
    }
  say(g_tool);
  say(g_replacing.load() > 0
          ? ": interrupted while replacing files: each holds its old or its new content; run it again to finish "
            "before starting the broker (after --salvage a broker would cut the segment at its first damaged batch)\n"
          : ": interrupted: nothing more was changed (partitions already applied stay applied); its "
            "temporary files are removed\n");
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Frees a record taken out of its slot, unless a handler may be reading it.
void retire(const TmpPaths* t) {
  if (!g_interrupted.load()) delete t;
}

// More records at once than slots would need more writer threads than any tool starts.
int claim_slot() {
  for (;;) {
    for (int i = 0; i < kTmpSlots; ++i)
      if (!g_slot_taken[i].exchange(true)) return i;
    std::this_thread::yield();
  }
}

void release_slot(int slot) {
  retire(g_tmp_paths[slot].exchange(nullptr));
  g_slot_taken[slot].store(false);
}

void publish_tmp_paths(const Plan& plan) {
  auto t = std::make_unique<TmpPaths>();
  for (const auto& a : plan.actions)
    if (a.replaces()) {  // the actions with a .kseg-tmp file
      t->all += plan.path_of(a) + kTmpSuffix;
      t->all.push_back('\0');
    }
  if (t_slot < 0) t_slot = claim_slot();
  retire(g_tmp_paths[t_slot].exchange(t.release()));
}

void withdraw_tmp_paths() {
  if (t_slot < 0) return;
  release_slot(t_slot);
  t_slot = -1;
}

}  // namespace

InterruptCleanup::InterruptCleanup(const std::vector<std::string>& paths) : slot_(claim_slot()) {
  auto t = std::make_unique<TmpPaths>();
  for (const auto& p : paths) {
    t->all += p;
    t->all.push_back('\0');
  }
  retire(g_tmp_paths[slot_].exchange(t.release()));
}

InterruptCleanup::~InterruptCleanup() { release_slot(slot_); }

void install_interrupt_cleanup(const char* tool) {
  g_tool = tool;
  struct sigaction sa {}, old {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  for (int sig : {SIGINT, SIGTERM}) {
    // A signal the tool was started with ignored (a background job) stays ignored.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

Result<Dir> Dir::open(const std::string& path, bool nofollow) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0) return io_error("cannot open the directory", path, errno);
  return Dir(fd, path);
}

Result<Dir> Dir::open_at(const Dir& parent, const std::string& name) {
  const int fd = ::openat(parent.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_error("cannot open the directory", parent.path(name), errno);
  return Dir(fd, parent.path(name));
}

Dir& Dir::operator=(Dir&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

Dir::~Dir() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> Dir::create(const std::string& name) const {
  // A stale file of an interrupted run, or a link planted at the name: the
  // name is unlinked, whatever it points to is left alone.
  if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT) return io_error("cannot remove", path(name), errno);
  const int fd = ::openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create", path(name), errno);
  return fd;
}

bool Dir::exists(const std::string& name) const {
  struct stat sb {};
  return ::fstatat(fd_, name.c_str(), &sb, AT_SYMLINK_NOFOLLOW) == 0;
}

Status Dir::fsync() const {
  if (::fsync(fd_) != 0) return io_error("cannot fsync", path_, errno);
  return {};
}

Result<TmpFile> TmpFile::create(const Plan& plan, const Action& adopt) {
  publish_tmp_paths(plan);
  const std::string target = plan.path_of(adopt);
  auto dir = Dir::open(target.substr(0, target.size() - adopt.name.size() - 1));
  if (!dir.ok()) return dir.error();
  auto fd = dir->create(adopt.name + kTmpSuffix);
  if (!fd.ok()) return fd.error();
  return TmpFile(*fd, target + kTmpSuffix);
}

TmpFile::~TmpFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());  // never finished: a failed or abandoned write
}

Status TmpFile::write(std::span<const uint8_t> bytes) {
  if (fd_ < 0) return Status::fail(Errc::internal, std::nullopt, fmt::format("{}: written after finish()", path_));
  return write_all(fd_, bytes.data(), bytes.size(), path_);
}

Status TmpFile::finish() {
  if (fd_ < 0) return Status::fail(Errc::internal, std::nullopt, fmt::format("{}: finished twice", path_));
  const int rc = ::fsync(fd_);
  const int err = errno;
  ::close(fd_);
  fd_ = -1;
  return rc == 0 ? Status() : Status(io_error("cannot fsync", path_, err));
}

void crash_point(const char* step) {
  const char* at = std::getenv("KSEG_CRASH_AT");
  if (at == nullptr) return;
  // <step>:<n>: the n-th time a run reaches the step (a tool that applies
  // several plans, one after the other, reaches each step once per plan).
  const char* colon = std::strchr(at, ':');
  const size_t len = colon ? static_cast<size_t>(colon - at) : std::strlen(at);
  if (len != std::strlen(step) || std::strncmp(at, step, len) != 0) return;
  static std::atomic<int> hits{0};
  if (++hits < (colon ? std::atoi(colon + 1) : 1)) return;
  // KSEG_CRASH_SIGNAL=INT: an operator's Ctrl-C at that step instead of a crash.
  const char* sig = std::getenv("KSEG_CRASH_SIGNAL");
  if (sig != nullptr && std::strcmp(sig, "INT") == 0) ::raise(SIGINT);
  ::_exit(kCrashExitCode);
}



const char* verb(const Action& a) {
  return a.kind == Action::Kind::remove  ? "remove"
         : a.kind == Action::Kind::write ? "write"
         : a.kind == Action::Kind::adopt ? "write"
         : a.kind == Action::Kind::hide  ? "unlink first"
         : a.truncates()                 ? "truncate"
                                         : "rewrite";
}

void print_plan(const Plan& plan, Sink& out) {
  for (const auto& a : plan.actions) {
    if (a.scope == Scope::log_dir)
      out.print("{}: {}: {}\n", plan.path_of(a), verb(a), a.why);
    else
      out.print("{}/{}: {}: {}\n", plan.partition_dir, a.name, verb(a), a.why);
  }
}

namespace {

// The directories a plan writes in, held open for all of its steps.
struct PlanDirs {
  Dir partition;
  std::optional<Dir> root;  // the log dir, when an action names a file there
  const Dir& of(const Action& a) const { return a.scope == Scope::log_dir ? *root : partition; }
};

Result<PlanDirs> open_dirs(const Plan& plan) {
  auto part = Dir::open(plan.partition_dir);
  if (!part.ok()) return part.error();
  PlanDirs d{std::move(*part), std::nullopt};
  if (std::any_of(plan.actions.begin(), plan.actions.end(), [](const Action& a) { return a.scope == Scope::log_dir; })) {
    auto root = Dir::open(log_dir_of(plan.partition_dir));
    if (!root.ok()) return root.error();
    d.root.emplace(std::move(*root));
  }
  return d;
}

// Several new files are fsynced at once (fsync_together): on a log dir of
// 2,000 small partitions one fsync after another was most of kseg-reindex's
// time, a journal commit each, where fsyncs that arrive together share one
// commit. Each file is still fsynced itself (a syncfs(2) of the whole file
// system would also wait for whatever else is written there, a broker's
// other log dirs included).
Status write_tmp_files(const Plan& plan, const PlanDirs& dirs) {
  const auto written = std::count_if(plan.actions.begin(), plan.actions.end(), [](const Action& a) {
    return a.kind == Action::Kind::write || a.kind == Action::Kind::copy_ranges;
  });
  OpenFiles later;
  OpenFiles* defer = written < 2 ? nullptr : &later;
  bool first = true;
  for (const auto& a : plan.actions) {
    const Dir& dir = dirs.of(a);
    const std::string tmp = a.name + kTmpSuffix;
    if (a.kind == Action::Kind::adopt) {
      struct stat sb {};
      if (::fstatat(dir.fd(), tmp.c_str(), &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
        return Status::fail(Errc::internal, std::nullopt, fmt::format("{}: the file to adopt was not written", dir.path(tmp)));
      continue;
    }
    if (a.kind == Action::Kind::write) KSEG_RETURN_IF_ERROR(write_new(dir, tmp, a.bytes, first, defer));
    else if (a.kind == Action::Kind::copy_ranges) KSEG_RETURN_IF_ERROR(copy_ranges(dir, a.name, dir, tmp, a.ranges, first, defer));
    else continue;
    first = false;
  }
  KSEG_RETURN_IF_ERROR(fsync_together(later.fds, later.paths));
  crash_point("tmp-written");
  return {};
}

// A run that stops before its commit point leaves none of its own files.
void remove_tmp_files(const Plan& plan, const PlanDirs& dirs) {
  for (const auto& a : plan.actions)
    if (a.replaces()) ::unlinkat(dirs.of(a).fd(), (a.name + kTmpSuffix).c_str(), 0);
}

Status back_up(const Plan& plan, const PlanDirs& dirs, const Dir* backup, bool reused) {
  bool first = true;
  for (const auto& a : plan.actions) {
    // Removed files are moved, not linked, in remove_files(); a hidden file
    // is backed up by the write action of the same name.
    if (!a.replaces() || !dirs.of(a).exists(a.name)) continue;
    if (backup) KSEG_RETURN_IF_ERROR(backup_file(dirs.of(a), a.name, *backup, backup_name(a), reused));
    if (first) crash_point("backup-partial");
    first = false;
  }
  if (backup) KSEG_RETURN_IF_ERROR(backup->fsync());
  crash_point("backup-done");
  return {};
}

Status hide_files(const Plan& plan, const PlanDirs& dirs) {
  bool any = false;
  for (const auto& a : plan.actions) {
    if (a.kind != Action::Kind::hide) continue;
    if (::unlinkat(dirs.of(a).fd(), a.name.c_str(), 0) != 0 && errno != ENOENT)
      return io_error("cannot remove", dirs.of(a).path(a.name), errno);
    any = true;
  }
  if (any) KSEG_RETURN_IF_ERROR(dirs.partition.fsync());
  crash_point("hidden");
  return {};
}

Status remove_files(const Plan& plan, const PlanDirs& dirs, const Dir* backup, bool reused) {
  bool first = true, root = false;
  for (const auto& a : plan.actions) {
    const Dir& dir = dirs.of(a);
    if (a.kind != Action::Kind::remove || !dir.exists(a.name)) continue;
    if (backup) KSEG_RETURN_IF_ERROR(move_into_backup(dir, a.name, *backup, backup_name(a), reused));
    else if (::unlinkat(dir.fd(), a.name.c_str(), 0) != 0) return io_error("cannot remove", dir.path(a.name), errno);
    root = root || a.scope == Scope::log_dir;
    if (first) crash_point("remove-partial");
    first = false;
  }
  // Nothing removed, nothing to make durable.
  if (!first) {
    if (backup) KSEG_RETURN_IF_ERROR(backup->fsync());
    KSEG_RETURN_IF_ERROR(dirs.partition.fsync());
    if (root) KSEG_RETURN_IF_ERROR(dirs.root->fsync());
  }
  crash_point("removed");
  return {};
}

Status rename_into_place(const Plan& plan, const PlanDirs& dirs) {
  bool first = true, root = false;
  for (const auto& a : plan.actions) {
    if (!a.replaces()) continue;
    const Dir& dir = dirs.of(a);
    const std::string tmp = a.name + kTmpSuffix;
    if (::renameat(dir.fd(), tmp.c_str(), dir.fd(), a.name.c_str()) != 0)
      return io_error("cannot rename " + dir.path(tmp) + " to", dir.path(a.name), errno);
    root = root || a.scope == Scope::log_dir;
    if (first) crash_point("rename-partial");
    first = false;
  }
  crash_point("renamed");
  KSEG_RETURN_IF_ERROR(dirs.partition.fsync());
  if (root) KSEG_RETURN_IF_ERROR(dirs.root->fsync());
  crash_point("done");
  return {};
}

// The bytes of the files the plan replaces or removes and of the new files
// it renames in (tmp files written by now); the originals a backup on this
// file system keeps (linked or renamed there, not copied to another disk).
Space tally(const Plan& plan, const PlanDirs& dirs, const Dir* backup) {
  auto size_of = [](const Dir& dir, const std::string& name) -> int64_t {
    struct stat sb {};
    return ::fstatat(dir.fd(), name.c_str(), &sb, AT_SYMLINK_NOFOLLOW) == 0 ? sb.st_size : 0;
  };
  Space s;
  bool same_fs = false;
  if (backup) {
    struct stat b {}, p {};
    same_fs = ::fstat(backup->fd(), &b) == 0 && ::fstat(dirs.partition.fd(), &p) == 0 && b.st_dev == p.st_dev;
  }
  for (const auto& a : plan.actions) {
    if (a.kind == Action::Kind::hide) continue;  // its write action of the same name counts it
    const Dir& dir = dirs.of(a);
    const int64_t old_size = size_of(dir, a.name);
    s.old_bytes += old_size;
    if (same_fs) s.kept_bytes += old_size;
    if (a.replaces()) s.new_bytes += size_of(dir, a.name + kTmpSuffix);
  }
  return s;
}

}  // namespace

Result<std::string> apply(const Plan& plan, const ApplyOptions& options, const DirLock& held) {
  if (options.dry_run || plan.empty()) return std::string();
  if (!held.covers(plan.partition_dir))
    return Status::fail(Errc::internal, std::nullopt,
                        fmt::format("{}: apply() without the lock of its log dir ({} held)", plan.partition_dir,
                                    held.log_dir()));
  auto opened = open_dirs(plan);
  if (!opened.ok()) return opened.error();
  const PlanDirs& dirs = *opened;
  publish_tmp_paths(plan);
  struct Idle {
    bool replacing = false;
    ~Idle() {
      if (replacing) --g_replacing;
      withdraw_tmp_paths();
    }
  } idle;
  if (Status st = write_tmp_files(plan, dirs); !st.ok()) {
    remove_tmp_files(plan, dirs);
    return st;
  }
  // What was read may not be the file: the plan rests on it, so nothing is applied.
  if (const auto shrunk = file_shrink()) {
    remove_tmp_files(plan, dirs);
    return Status::fail(Errc::io, Position{shrunk->position},
                        fmt::format("{}: the file shrank while it was read (expected {} bytes); nothing was changed",
                                    shrunk->path, shrunk->mapped_size));
  }
  // A backup directory only when an existing file is replaced or removed.
  const bool replaces = std::any_of(plan.actions.begin(), plan.actions.end(), [&](const Action& a) {
    return (a.replaces() || a.kind == Action::Kind::remove) && dirs.of(a).exists(a.name);
  });
  std::optional<Dir> backup;
  bool reused = false;
  if (options.backup && replaces) {
    struct stat sb {};
    reused = !options.backup_into.empty() && ::lstat(options.backup_into.c_str(), &sb) == 0;
    auto made = reused ? Dir::open(options.backup_into, true) : make_backup_dir(dirs.partition, options.backup_dir);
    if (!made.ok()) {
      remove_tmp_files(plan, dirs);
      return made.error();
    }
    backup.emplace(std::move(*made));
  }
  const Dir* into = backup ? &*backup : nullptr;
  if (options.space) *options.space += tally(plan, dirs, into);
  if (Status st = back_up(plan, dirs, into, reused); !st.ok()) {
    remove_tmp_files(plan, dirs);
    return st;
  }
  ++g_replacing;
  idle.replacing = true;
  KSEG_RETURN_IF_ERROR(hide_files(plan, dirs));
  KSEG_RETURN_IF_ERROR(remove_files(plan, dirs, into, reused));
  KSEG_RETURN_IF_ERROR(rename_into_place(plan, dirs));
  return backup ? backup->path() : std::string();
}

}  // namespace kseg::safe
