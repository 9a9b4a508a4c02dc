#include "tools/ops/write/safe_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>

#include "lib/mapped_file.h"
#include "tools/ops/common/sink.h"

namespace kseg::safe {

namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  return Error{Errc::io, std::nullopt, fmt::format("{} {}: {}", what, path, errno_text(err))};
}

// fcntl write-lock request over the whole file. OFD locks conflict with the
// classic POSIX locks a JVM takes, and unlike those they are not dropped when
// some other descriptor of ours on the file is closed.
struct flock whole_file(short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  return fl;
}

Status write_all(int fd, const uint8_t* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return io_error("cannot write", path, errno);
    p += w;
    n -= static_cast<size_t>(w);
  }
  return {};
}

// Copies `ranges` of `from`, in order, into the new file `to`, and fsyncs
// it if `sync`.
Status copy_ranges(const std::string& from, const std::string& to, const std::vector<ByteRange>& ranges,
                   bool crash_halfway, bool sync) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return io_error("cannot open", from, errno);
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return io_error("cannot create", to, err);
  }
  int64_t total = 0, copied = 0;
  for (const auto& r : ranges) total += r.size.bytes;
  Status st;
  for (const auto& r : ranges) {
    loff_t at = r.begin.value;
    int64_t left = r.size.bytes;
    while (st.ok() && left > 0) {
      const ssize_t n = ::copy_file_range(in, &at, out, nullptr, static_cast<size_t>(left), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        st = io_error("cannot copy into", to, n < 0 ? errno : EIO);
      } else {
        left -= n;
        copied += n;
      }
      if (crash_halfway && copied >= total / 2) crash_point("tmp-partial");
    }
  }
  if (st.ok() && sync && ::fsync(out) != 0) st = io_error("cannot fsync", to, errno);
  ::close(in);
  ::close(out);
  return st;
}

Status write_new(const std::string& path, const std::vector<uint8_t>& bytes, bool crash_halfway, bool sync) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create", path, errno);
  const size_t half = crash_halfway ? bytes.size() / 2 : bytes.size();
  Status st = write_all(fd, bytes.data(), half, path);
  if (st.ok() && crash_halfway) crash_point("tmp-partial");
  if (st.ok()) st = write_all(fd, bytes.data() + half, bytes.size() - half, path);
  if (st.ok() && sync && ::fsync(fd) != 0) st = io_error("cannot fsync", path, errno);
  ::close(fd);
  return st;
}

bool exists(const std::string& path) {
  struct stat sb {};
  return ::lstat(path.c_str(), &sb) == 0;
}

// <partition>/.kseg-backup-<UTC time>, or <given>/<partition name>-<UTC time>
// so that one --backup-dir can serve many partitions and many runs.
std::string backup_dir_for(const std::string& partition_dir, const std::string& given) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  struct tm utc {};
  ::gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::string name = partition_dir;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  name = name.substr(name.find_last_of('/') + 1);
  const std::string base = given.empty() ? partition_dir + "/" + kBackupPrefix + stamp : given + "/" + name + "-" + stamp;
  std::string dir = base;
  for (int i = 1; exists(dir); i++) dir = fmt::format("{}-{}", base, i);
  return dir;
}

// Keeps `path` reachable as backup/name: a hard link when possible (same
// file system), else a fsynced copy.
// `reused`: the directory is an earlier apply()'s of the same run
// (backup_into), so a copy already there is the file as it was before the
// run, the one to keep.
Status backup_file(const std::string& path, const std::string& backup_path, bool reused = false) {
  if (::link(path.c_str(), backup_path.c_str()) == 0) return {};
  if (reused && errno == EEXIST) return {};
  if (errno != EXDEV) return io_error("cannot link into the backup directory:", path, errno);
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) return io_error("cannot stat", path, errno);
  return copy_ranges(path, backup_path, {{Position{0}, Length{static_cast<int64_t>(sb.st_size)}}}, false, true);
}

Status rename_to(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return io_error("cannot rename " + from + " to", to, errno);
  return {};
}

// Moves a removed file into the backup: a rename, or on another file system
// (--backup-dir elsewhere) a fsynced copy, then the unlink. `reused`: as for
// backup_file, a file of that name already there is the run's original (a
// later plan of the run removes what an earlier one wrote), so it is kept
// and this one is only removed.
Status move_into_backup(const std::string& path, const std::string& backup_path, bool reused) {
  if (reused && exists(backup_path)) {
    if (::unlink(path.c_str()) != 0) return io_error("cannot remove", path, errno);
    return {};
  }
  if (::rename(path.c_str(), backup_path.c_str()) == 0) return {};
  if (errno != EXDEV) return io_error("cannot rename " + path + " to", backup_path, errno);
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) return io_error("cannot stat", path, errno);
  KSEG_RETURN_IF_ERROR(copy_ranges(path, backup_path, {{Position{0}, Length{static_cast<int64_t>(sb.st_size)}}}, false, true));
  if (::unlink(path.c_str()) != 0) return io_error("cannot remove", path, errno);
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
            ".kseg-tmp files are removed\n");
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Frees a record taken out of its slot, unless a handler may be reading it.
void retire(const TmpPaths* t) {
  if (!g_interrupted.load()) delete t;
}

void publish_tmp_paths(const Plan& plan) {
  auto t = std::make_unique<TmpPaths>();
  for (const auto& a : plan.actions)
    if (a.replaces()) {  // the actions with a .kseg-tmp file
      t->all += plan.path_of(a) + kTmpSuffix;
      t->all.push_back('\0');
    }
  // More plans at once than slots would need more writer threads than any tool starts.
  while (t_slot < 0) {
    for (int i = 0; i < kTmpSlots && t_slot < 0; ++i)
      if (!g_slot_taken[i].exchange(true)) t_slot = i;
    if (t_slot < 0) std::this_thread::yield();
  }
  retire(g_tmp_paths[t_slot].exchange(t.release()));
}

void withdraw_tmp_paths() {
  if (t_slot < 0) return;
  retire(g_tmp_paths[t_slot].exchange(nullptr));
  g_slot_taken[t_slot].store(false);
  t_slot = -1;
}

}  // namespace

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

Result<TmpFile> TmpFile::create(const Plan& plan, const Action& adopt) {
  publish_tmp_paths(plan);
  const std::string path = plan.path_of(adopt) + kTmpSuffix;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return io_error("cannot create", path, errno);
  return TmpFile(fd, path);
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

namespace {

// fsync_together's threads, started as needed and kept for the run: each
// partition of a log dir fsyncs a few files together, and a thread started
// per file (12,304 for a 2,050-partition log dir) was a fifth of
// kseg-reindex's time there (new stacks faulted in, TLB shootdowns as they
// ended). Files are claimed under the lock, so a batch is out of the queue
// once all its files are claimed and nobody touches it after its last fsync;
// the caller fsyncs files of its own batch too, so a busy pool delays it but
// cannot stall it. Not for a forked child of a process whose pool has
// started (no tool forks; the tests' children fsync one file at a time).
class FsyncPool {
 public:
  // Never destroyed: its idle threads wait until the process ends.
  static FsyncPool& instance() {
    static FsyncPool* pool = new FsyncPool();
    return *pool;
  }

  std::vector<Status> run(const std::vector<std::string>& paths) {
    Batch b{&paths, std::vector<Status>(paths.size()), 0, paths.size(), false};
    std::unique_lock<std::mutex> lock(mu_);
    // Threads for the files not yet claimed, less the idle threads and this
    // caller; where none can be started, this caller fsyncs them in turn.
    while (threads_ < kMaxThreads && idle_ + 1 < queued_ + paths.size()) {
      try {
        std::thread([this] { serve(); }).detach();
      } catch (...) {
        break;
      }
      ++threads_;
      ++idle_;
    }
    queue_.push_back(&b);  // after anything here that throws: a queued batch must be waited for
    queued_ += paths.size();
    more_.notify_all();
    while (b.next < paths.size()) sync_next(b, lock);
    done_.wait(lock, [&] { return b.left == 0; });
    if (b.threw) b.results.front() = Status::fail(Errc::io, std::nullopt, "cannot fsync: out of memory");
    return std::move(b.results);
  }

 private:
  static constexpr size_t kMaxThreads = 16;
  struct Batch {
    const std::vector<std::string>* paths;
    std::vector<Status> results;
    size_t next, left;  // the next file to claim; files not yet fsynced
    bool threw;         // a result could not be made (no memory for its message)
  };

  // Claims b's next file (lock held), fsyncs it (lock released), records it.
  // Nothing thrown from here: the batch may be another thread's.
  void sync_next(Batch& b, std::unique_lock<std::mutex>& lock) noexcept {
    const size_t i = b.next++;
    --queued_;
    if (b.next == b.paths->size()) queue_.erase(std::find(queue_.begin(), queue_.end(), &b));
    lock.unlock();
    Status st;
    bool threw = false;
    try {
      st = fsync_path((*b.paths)[i]);
    } catch (...) {
      threw = true;
    }
    lock.lock();
    b.results[i] = std::move(st);
    b.threw = b.threw || threw;
    if (--b.left == 0) done_.notify_all();
  }

  void serve() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      more_.wait(lock, [&] { return !queue_.empty(); });
      --idle_;
      sync_next(*queue_.front(), lock);
      ++idle_;
    }
  }

  std::mutex mu_;
  std::condition_variable more_, done_;
  std::deque<Batch*> queue_;
  size_t threads_ = 0, idle_ = 0;
  size_t queued_ = 0;  // files in the queue not yet claimed
};

}  // namespace

Status fsync_together(const std::vector<std::string>& paths) {
  if (paths.size() <= 1) return paths.empty() ? Status() : fsync_path(paths.front());
  for (auto& r : FsyncPool::instance().run(paths)) KSEG_RETURN_IF_ERROR(r);
  return {};
}

Status fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open", path, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return io_error("cannot fsync", path, err);
  return {};
}

Status check_unlocked(const std::string& log_dir) {
  const std::string lock = log_dir + "/.lock";
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? Status() : Status(io_error("cannot open", lock, errno));
  struct flock fl = whole_file(F_WRLCK);
  const int rc = ::fcntl(fd, F_OFD_GETLK, &fl);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return io_error("cannot query the lock on", lock, err);
  if (fl.l_type == F_UNLCK) return {};
  const std::string holder = fl.l_pid > 0 ? fmt::format("process {}", fl.l_pid) : std::string("another process");
  return Status::fail(Errc::io, std::nullopt,
                      fmt::format("{} is locked by {} (a running Kafka broker?): refusing to change the log "
                                  "directory; stop the broker first",
                                  lock, holder));
}

std::string log_dir_of(const std::string& partition_dir) {
  std::error_code ec;
  const auto dir = std::filesystem::weakly_canonical(std::filesystem::path(partition_dir) / "..", ec);
  return ec ? partition_dir + "/.." : dir.string();
}

bool DirLock::covers(const std::string& partition_dir) const {
  return fd_ >= 0 && log_dir_of(partition_dir) == log_dir_;
}

Result<DirLock> DirLock::acquire(const std::string& log_dir) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(log_dir, ec);
  const std::string dir = ec ? log_dir : canonical.string();
  const std::string lock = dir + "/.lock";
  // O_NOFOLLOW|O_NONBLOCK: a symlink or a FIFO named .lock is refused, never followed or waited on.
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) return io_error("cannot open", lock, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::fail(Errc::io, std::nullopt, fmt::format("{}: not a regular file", lock));
  }
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
      if (Status st = check_unlocked(dir); !st.ok()) err.print("{}: warning: {}\n", tool, st.error().message);
      continue;
    }
    if (locks.count(dir)) continue;
    auto lock = DirLock::acquire(dir);
    if (!lock.ok()) return lock.error();
    locks.emplace(dir, std::move(*lock));
  }
  return locks;
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

// Several new files are fsynced at once (fsync_together): on a log dir of
// 2,000 small partitions one fsync after another was four fifths of
// kseg-reindex's time, a journal commit each, where fsyncs that arrive
// together share one commit. Each file is still fsynced itself (a syncfs(2)
// of the whole file system would also wait for whatever else is written
// there, a broker's other log dirs included).
Status write_tmp_files(const Plan& plan) {
  const auto written = std::count_if(plan.actions.begin(), plan.actions.end(), [](const Action& a) {
    return a.kind == Action::Kind::write || a.kind == Action::Kind::copy_ranges;
  });
  const bool each = written < 2;
  bool first = true;
  for (const auto& a : plan.actions) {
    const std::string target = plan.path_of(a);
    const std::string tmp = target + kTmpSuffix;
    if (a.kind == Action::Kind::adopt) {
      struct stat sb {};
      if (::lstat(tmp.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode))
        return Status::fail(Errc::internal, std::nullopt, fmt::format("{}: the file to adopt was not written", tmp));
      continue;
    }
    if (a.kind == Action::Kind::write) KSEG_RETURN_IF_ERROR(write_new(tmp, a.bytes, first, each));
    else if (a.kind == Action::Kind::copy_ranges) KSEG_RETURN_IF_ERROR(copy_ranges(target, tmp, a.ranges, first, each));
    else continue;
    first = false;
  }
  if (!each) {
    std::vector<std::string> paths;
    for (const auto& a : plan.actions)
      if (a.kind == Action::Kind::write || a.kind == Action::Kind::copy_ranges) paths.push_back(plan.path_of(a) + kTmpSuffix);
    KSEG_RETURN_IF_ERROR(fsync_together(paths));
  }
  crash_point("tmp-written");
  return {};
}

// A run that stops before its commit point leaves none of its own files.
void remove_tmp_files(const Plan& plan) {
  for (const auto& a : plan.actions)
    if (a.replaces()) ::unlink((plan.path_of(a) + kTmpSuffix).c_str());
}

Status back_up(const Plan& plan, const std::string& backup_dir, bool keep, bool reused) {
  bool first = true;
  for (const auto& a : plan.actions) {
    const std::string target = plan.path_of(a);
    if (!exists(target)) continue;
    // Removed files are moved, not linked, in remove_files(); a hidden file
    // is backed up by the write action of the same name.
    if (!a.replaces()) continue;
    if (keep) KSEG_RETURN_IF_ERROR(backup_file(target, backup_dir + "/" + backup_name(a), reused));
    if (first) crash_point("backup-partial");
    first = false;
  }
  if (keep) KSEG_RETURN_IF_ERROR(fsync_path(backup_dir));
  crash_point("backup-done");
  return {};
}

Status hide_files(const Plan& plan) {
  bool any = false;
  for (const auto& a : plan.actions) {
    if (a.kind != Action::Kind::hide) continue;
    const std::string target = plan.path_of(a);
    if (::unlink(target.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove", target, errno);
    any = true;
  }
  if (any) KSEG_RETURN_IF_ERROR(fsync_path(plan.partition_dir));
  crash_point("hidden");
  return {};
}

Status remove_files(const Plan& plan, const std::string& backup_dir, bool keep, bool reused) {
  bool first = true, root = false;
  for (const auto& a : plan.actions) {
    if (a.kind != Action::Kind::remove) continue;
    const std::string target = plan.path_of(a);
    if (!exists(target)) continue;
    if (keep) KSEG_RETURN_IF_ERROR(move_into_backup(target, backup_dir + "/" + backup_name(a), reused));
    else if (::unlink(target.c_str()) != 0) return io_error("cannot remove", target, errno);
    root = root || a.scope == Scope::log_dir;
    if (first) crash_point("remove-partial");
    first = false;
  }
  // Nothing removed, nothing to make durable.
  if (!first) {
    if (keep) KSEG_RETURN_IF_ERROR(fsync_path(backup_dir));
    KSEG_RETURN_IF_ERROR(fsync_path(plan.partition_dir));
    if (root) KSEG_RETURN_IF_ERROR(fsync_path(log_dir_of(plan.partition_dir)));
  }
  crash_point("removed");
  return {};
}

Status rename_into_place(const Plan& plan) {
  bool first = true, root = false;
  for (const auto& a : plan.actions) {
    if (!a.replaces()) continue;
    const std::string target = plan.path_of(a);
    KSEG_RETURN_IF_ERROR(rename_to(target + kTmpSuffix, target));
    root = root || a.scope == Scope::log_dir;
    if (first) crash_point("rename-partial");
    first = false;
  }
  crash_point("renamed");
  KSEG_RETURN_IF_ERROR(fsync_path(plan.partition_dir));
  if (root) KSEG_RETURN_IF_ERROR(fsync_path(log_dir_of(plan.partition_dir)));
  crash_point("done");
  return {};
}

}  // namespace

Result<std::string> apply(const Plan& plan, const ApplyOptions& options, const DirLock& held) {
  if (options.dry_run || plan.empty()) return std::string();
  if (!held.covers(plan.partition_dir))
    return Status::fail(Errc::internal, std::nullopt,
                        fmt::format("{}: apply() without the lock of its log dir ({} held)", plan.partition_dir,
                                    held.log_dir()));
  publish_tmp_paths(plan);
  struct Idle {
    bool replacing = false;
    ~Idle() {
      if (replacing) --g_replacing;
      withdraw_tmp_paths();
    }
  } idle;
  if (Status st = write_tmp_files(plan); !st.ok()) {
    remove_tmp_files(plan);
    return st;
  }
  // What was read may not be the file: the plan rests on it, so nothing is applied.
  if (const auto shrunk = file_shrink()) {
    remove_tmp_files(plan);
    return Status::fail(Errc::io, Position{shrunk->position},
                        fmt::format("{}: the file shrank while it was read (expected {} bytes); nothing was changed",
                                    shrunk->path, shrunk->mapped_size));
  }
  std::string backup_dir;
  // A backup directory only when an existing file is replaced or removed.
  const bool replaces = std::any_of(plan.actions.begin(), plan.actions.end(), [&](const Action& a) {
    return (a.replaces() || a.kind == Action::Kind::remove) && exists(plan.path_of(a));
  });
  if (options.backup && replaces) {
    const bool reuse = !options.backup_into.empty() && exists(options.backup_into);
    if (!reuse && !options.backup_dir.empty() && ::mkdir(options.backup_dir.c_str(), 0755) != 0 && errno != EEXIST)
      return io_error("cannot create the backup directory", options.backup_dir, errno);
    if (reuse) {
      backup_dir = options.backup_into;
    } else {
      backup_dir = backup_dir_for(plan.partition_dir, options.backup_dir);
      if (::mkdir(backup_dir.c_str(), 0755) != 0) return io_error("cannot create the backup directory", backup_dir, errno);
      KSEG_RETURN_IF_ERROR(fsync_path(options.backup_dir.empty() ? plan.partition_dir : options.backup_dir));
    }
  }
  const bool keep = options.backup && replaces;
  KSEG_RETURN_IF_ERROR(back_up(plan, backup_dir, keep, backup_dir == options.backup_into));
  ++g_replacing;
  idle.replacing = true;
  KSEG_RETURN_IF_ERROR(hide_files(plan));
  KSEG_RETURN_IF_ERROR(remove_files(plan, backup_dir, keep, backup_dir == options.backup_into));
  KSEG_RETURN_IF_ERROR(rename_into_place(plan));
  return backup_dir;
}

}  // namespace kseg::safe
