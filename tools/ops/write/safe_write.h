// SPDX-License-Identifier: Apache-2.0
// The write protocol shared by every kseg tool that changes a partition
// directory (STYLE.md points 10-12). A tool builds a Plan of whole-file
// actions; apply() carries it out so that a crash at any step leaves a
// directory Kafka loads with nothing lost:
//
//   1. refuse if <log dir>/.lock is locked by another process (a running
//      broker holds a FileChannel.tryLock = fcntl lock on it, another kseg
//      run its DirLock); the tool takes its DirLock before it reads or plans
//      anything and holds it for the whole run, and apply() requires it, so
//      neither a broker nor a second repair can start meanwhile;
//   2. write every new file as <name>.kseg-tmp beside the old one and fsync it
//      (Kafka's loader acts only on .log/.index/.timeindex/.txnindex/
//      .snapshot/.deleted/.cleaned/.swap names, so it ignores these);
//   3. back up: hard-link each file to be replaced, and rename each file to be
//      removed, into the backup directory (a sub-directory of the partition
//      directory: LogLoader lists regular files only); fsync it;
//   4. unlink the files marked `hide` (a segment's .index, which makes Kafka's
//      loader recover that segment whatever the shutdown state, so a crash
//      from here on is finished by the broker's own recovery); remove files
//      (whole segments, .log first so a crash leaves orphan indexes, which
//      Kafka deletes); rename each tmp file over its target in plan order
//      (the planner puts a .index last); fsync the partition directory.
// Actions may also name files at the log dir's root (the checkpoints shared
// by every partition: Scope::log_dir); they go through the same steps, and
// the log dir is fsynced after their renames. Renames happen in plan order,
// so a planner orders them for the crash states it wants (e.g. a segment cut
// before the checkpoint that names the new end). A new file too large to
// hold in memory is streamed by the operation into TmpFile and adopted.
// At every point each Kafka file name holds either the complete old or the
// complete new content. Re-running after a crash redoes the plan from scratch
// (stale .kseg-tmp files are replaced).
//
// Every file apply() creates, links, renames or removes is named relative to
// the directory's descriptor, opened once (Dir), and every new file is
// created with O_EXCL|O_NOFOLLOW after whatever had its name (a stale tmp
// file, or a link someone planted there) is unlinked: a symlink in the
// partition directory is never written through, and a directory renamed
// meanwhile cannot redirect a write. Files are read through a link (a
// symlinked segment is read, and a rewrite replaces the link itself, kept
// in the backup, never its target).
//
// Replacing segments by others with other base offsets (compaction merges
// several into one) is the one change this protocol does not make alone: a
// crash between the new segment's rename and the old ones' removal would
// leave overlapping segments, which the loader rejects. For that, kseg uses
// Kafka's own cleaner protocol through the same Plan: the new segment's
// files are streamed as <base>.*.cleaned (discarded by the loader), renamed
// to .swap (the commit point: the loader then finishes the replacement
// itself, deleting every segment the swap covers), the old segments are
// backed up and removed, and .swap is stripped. An interrupted run is then
// finished by the broker's own start-up exactly as an interrupted cleaner
// round is (formats/log-cleaning.md, files in flight), and re-running kseg resolves
// it by the same rule; .kseg-tmp stays for same-name rewrites.
//
// Test hook: KSEG_CRASH_AT=<step> makes the process _exit(86) at that step
// (steps: tmp-partial, tmp-written, backup-partial, backup-done, hidden,
// remove-partial, removed, rename-partial, renamed, done); <step>:<n> at the
// n-th time it is reached, for a run that applies several plans.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/file_names.h"
#include "lib/status.h"
#include "lib/types.h"

namespace kseg {

class Sink;

namespace safe {

inline constexpr const char* kTmpSuffix = file_names::kKsegTmpSuffix;
inline constexpr const char* kBackupPrefix = file_names::kKsegBackupPrefix;
inline constexpr int kCrashExitCode = 86;

// A byte range [begin, begin + size) of an existing file.
struct ByteRange {
  Position begin;
  Length size;
};

enum class Scope {
  partition,  // a file of the partition directory
  log_dir,    // a file at the root of its log dir (recovery-point-offset-checkpoint, ...)
};

struct Action {
  // hide: unlink before removals and renames; a later write action of the
  // same name puts the new content there. copy_ranges: the new file is the
  // concatenation of `ranges` of the old one, in order (one range from 0 is a
  // truncation), streamed with copy_file_range so memory does not grow with
  // the file. adopt: the operation has written and fsynced <name>.kseg-tmp
  // itself (TmpFile); it is renamed into place like a write.
  enum class Kind { write, copy_ranges, remove, hide, adopt };
  Kind kind = Kind::write;
  std::string name;               // file name inside the partition directory (or the log dir)
  std::vector<uint8_t> bytes;     // write: the complete new content
  std::vector<ByteRange> ranges;  // copy_ranges: what to keep of the old file
  std::string why;                // one line for the plan
  Scope scope = Scope::partition;

  static Action write(std::string name, std::vector<uint8_t> bytes, std::string why);
  static Action copy(std::string name, std::vector<ByteRange> ranges, std::string why);
  static Action remove(std::string name, std::string why);
  static Action hide(std::string name, std::string why);
  static Action adopt(std::string name, std::string why);
  // The same action on a file at the log dir's root.
  Action in_log_dir() &&;

  bool truncates() const {
    return kind == Kind::copy_ranges && ranges.size() <= 1 && (ranges.empty() || ranges[0].begin == Position{0});
  }
  bool replaces() const { return kind == Kind::write || kind == Kind::copy_ranges || kind == Kind::adopt; }
};

struct Plan {
  std::string partition_dir;
  std::vector<Action> actions;
  bool empty() const { return actions.empty(); }
  // Where an action's file is: in the partition directory or at its log dir's root.
  std::string path_of(const Action& a) const;
};

// A directory held open while kseg writes in it (see the protocol above).
class Dir {
 public:
  // The directory at `path`; a link to it is followed (a log dir may be
  // reached through one) unless `nofollow` (a directory kseg made itself).
  static Result<Dir> open(const std::string& path, bool nofollow = false);
  // The sub-directory `name` of `parent`, never through a link.
  static Result<Dir> open_at(const Dir& parent, const std::string& name);
  Dir(Dir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  Dir& operator=(Dir&& o) noexcept;
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir();
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  std::string path(const std::string& name) const { return path_ + "/" + name; }
  // A new empty regular file `name`, open for writing (the caller closes
  // it): what had that name is unlinked first, never followed.
  Result<int> create(const std::string& name) const;
  // Whether `name` exists (a link counts, whatever it points to).
  bool exists(const std::string& name) const;
  Status fsync() const;

 private:
  Dir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// A new file streamed into <dir>/<name>.kseg-tmp with bounded memory, for an
// adopt action: write() as often as needed, then finish() (fsync). Until
// finish() succeeds nothing is adopted; a crashed run's tmp is replaced.
class TmpFile {
 public:
  static Result<TmpFile> create(const Plan& plan, const Action& adopt);
  TmpFile(TmpFile&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  TmpFile(const TmpFile&) = delete;
  TmpFile& operator=(const TmpFile&) = delete;
  ~TmpFile();
  Status write(std::span<const uint8_t> bytes);
  Status finish();
  const std::string& path() const { return path_; }

 private:
  TmpFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// SIGINT/SIGTERM handlers for a writing tool: remove the .kseg-tmp files of
// the plan being written, say what was and was not applied, then end by the
// signal (exit status 128 + signal, as the shell shows it).
void install_interrupt_cleanup(const char* tool);

// Files an interrupt removes besides the plans' tmp files, for as long as
// this lives: an operation's own new files before they are committed
// (compaction's .cleaned segment).
class InterruptCleanup {
 public:
  explicit InterruptCleanup(const std::vector<std::string>& paths);
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;
  ~InterruptCleanup();

 private:
  int slot_;
};

// What applied plans did to the space of the partition's file system:
// what an operator in a full-disk incident needs, which is not what the
// plan removes while the originals are kept beside it.
struct Space {
  int64_t old_bytes = 0;   // the originals replaced or removed
  int64_t new_bytes = 0;   // the new files put in their place
  int64_t kept_bytes = 0;  // originals kept in a backup on the same file system
  // What the change frees once no original is kept (negative: it grows).
  int64_t freed_eventually() const { return old_bytes - new_bytes; }
  // What it has freed now (negative: the disk holds more than before).
  int64_t freed_now() const { return old_bytes - kept_bytes - new_bytes; }
  Space& operator+=(const Space& o) {
    old_bytes += o.old_bytes;
    new_bytes += o.new_bytes;
    kept_bytes += o.kept_bytes;
    return *this;
  }
};

struct ApplyOptions {
  bool dry_run = false;
  bool backup = true;
  // empty: <partition>/.kseg-backup-<UTC time>; else <backup_dir>/<partition name>-<UTC time>
  std::string backup_dir;
  // A backup directory an earlier apply() of the same run returned: the
  // run's originals stay in one place (backup_dir is then not used).
  std::string backup_into;
  // Added to when given: the bytes this apply() replaced, wrote and kept.
  Space* space = nullptr;
};

// Fails with Errc::io naming the holder when another process holds a lock on
// <log_dir>/.lock. A missing .lock is not an error (no broker has used it).
Status check_unlocked(const std::string& log_dir);

// Holds an open-file-description write lock on <log_dir>/.lock while alive.
// It conflicts with a broker's lock and with another kseg run's (OFD locks
// conflict within one process too). A missing .lock is created, as a
// broker's LogManager creates it, so that two kseg runs exclude each other
// on a log dir no broker has used.
class DirLock {
 public:
  static Result<DirLock> acquire(const std::string& log_dir);
  DirLock(DirLock&& o) noexcept : fd_(o.fd_), log_dir_(std::move(o.log_dir_)) { o.fd_ = -1; }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();
  // The log dir, canonical (symlinks and ".." resolved).
  const std::string& log_dir() const { return log_dir_; }
  // Whether this lock covers the log dir that holds `partition_dir`.
  bool covers(const std::string& partition_dir) const;

 private:
  DirLock(int fd, std::string log_dir) : fd_(fd), log_dir_(std::move(log_dir)) {}
  int fd_ = -1;
  std::string log_dir_;
};

// Every log dir holding one of `partition_dirs`, locked before anything is
// read and held by the caller to the end of its run: a broker or a second
// run that starts meanwhile is refused, not raced. Under a dry run (which
// writes nothing) a held lock is only warned about on `err` and nothing is
// locked. Fails naming the holder.
Result<std::map<std::string, DirLock>> lock_log_dirs(const std::vector<std::string>& partition_dirs, bool dry_run,
                                                     const char* tool, Sink& err);

// What an action does, in one word for the plan ("remove", "write",
// "truncate", "rewrite", "unlink first").
const char* verb(const Action& a);

// Prints the plan (one line per action) to `out`.
void print_plan(const Plan& plan, Sink& out);

// Carries out the plan (nothing under dry_run) under `held`, which must
// cover the plan's log dir. Returns the backup directory used ("" when none).
Result<std::string> apply(const Plan& plan, const ApplyOptions& options, const DirLock& held);

// The test hook: exits the process if KSEG_CRASH_AT names `step`.
void crash_point(const char* step);

// fsync of each of the open files `fds` at once (on this thread and a
// pool's), so that one journal commit can carry them all; `paths` name them
// in errors.
Status fsync_together(const std::vector<int>& fds, const std::vector<std::string>& paths);

}  // namespace safe
}  // namespace kseg
