// SPDX-License-Identifier: Apache-2.0
// The cleaned segment a round writes beside the segments it replaces.
// Internal to tools/ops/compact.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "formats/offset_index.h"
#include "formats/time_index.h"
#include "lib/byte_reader.h"
#include "lib/status.h"
#include "lib/mapped_file.h"
#include "tools/ops/compact/compact_round.h"

namespace kseg::compact {

// The cleaned segment being written: LogSegment.append's index rule per
// batch (log-cleaning.md, the new segment's indexes: 4.4.0 indexes each
// appended batch as recovery does), then onBecomeInactiveSegment's final
// time entry. With fd < 0 (a dry run) only sizes are counted.
class Dest {
 public:
  Dest(const Input& p, int64_t base, const Settings& s, bool write)
      : p_(p), base_(base), interval_(s.index_interval_bytes), max_entries_(s.segment_index_bytes),
        index_(Offset{base}), tix_(Offset{base}), write_(write) {}
  // A segment never swapped in is deleted, as Kafka's cleaner deletes its
  // .cleaned segment when a round aborts.
  ~Dest() {
    if (fd_ >= 0) ::close(fd_);
    if (write_ && !committed)
      for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
        ::unlink(p_.path(base_, suffix).c_str());
  }
  bool committed = false;  // renamed to .swap: the loader finishes it from here
  Status open() {
    if (!write_) return {};
    auto dir = safe::Dir::open(p_.dir);
    if (!dir.ok()) return dir.error();
    dir_.emplace(std::move(*dir));
    std::vector<std::string> cleaned;
    for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
      cleaned.push_back(p_.path(base_, suffix));
    on_interrupt_.emplace(cleaned);  // an interrupted round leaves no .cleaned file, as its end says
    for (const char* suffix : {".index.cleaned", ".timeindex.cleaned", ".txnindex.cleaned"})
      ::unlinkat(dir_->fd(), name(suffix).c_str(), 0);  // a stale one (createNewCleanedSegment deletes them too)
    auto fd = dir_->create(name(".log.cleaned"));  // never through a link planted at the name
    if (!fd.ok()) return fd.error();
    fd_ = *fd;
    out_.emplace(fd_);
    return {};
  }
  Status append(Bytes batch, int64_t last_offset, int64_t max_ts) {
    if (last_offset - base_ < 0 || last_offset - base_ > INT32_MAX)
      return refusal(Code::refuse_segment_overflow, std::nullopt,
                     fmt::format("{}: offset {} does not fit a segment based at {} (Kafka splits the segment "
                                 "first; the broker does this at its next cleaning)",
                                 p_.dir, last_offset, base_));
    if (max_ts > max_ts_) {
      max_ts_ = max_ts;
      offset_of_max_ = last_offset;
    }
    if (since_ > interval_) {
      if ((index_.entries() + 1) * 8 > max_entries_ || (tix_.entries() + 1) * 12 > max_entries_)
        return refusal(Code::refuse_segment_overflow, std::nullopt,
                       fmt::format("{}: the cleaned segment at {} would overflow segment.index.bytes", p_.dir, base_));
      KSEG_RETURN_IF_ERROR(index_.append(Offset{last_offset}, position_));
      if (auto r = tix_.maybe_append(max_ts_, Offset{offset_of_max_}); !r.ok()) return r.error();
      since_ = 0;
    }
    since_ += static_cast<int64_t>(batch.size());
    position_ += static_cast<int64_t>(batch.size());
    if (position_ > INT32_MAX)
      return refusal(Code::refuse_segment_overflow, std::nullopt, fmt::format("{}: a cleaned segment over 2 GiB", p_.dir));
    if (write_)
      if (const int err = out_->append(batch.data(), batch.size())) return io_error(err);
    return {};
  }
  // The final time entry, the index files, fsync, and the last source
  // segment's mtime on .log, .index and .timeindex (LogSegment.setLastModified).
  Status finish(int64_t mtime_ms) {
    if (auto r = tix_.maybe_append(max_ts_, Offset{offset_of_max_}); !r.ok()) return r.error();
    if (!write_) return {};
    if (const int err = out_->finish()) return io_error(err);
    if (::fsync(fd_) != 0) return io(p_.path(base_, ".log.cleaned"), "cannot fsync");
    safe::crash_point("cleaned-partial");
    KSEG_RETURN_IF_ERROR(write_file(".index.cleaned", index_.bytes()));
    KSEG_RETURN_IF_ERROR(write_file(".timeindex.cleaned", tix_.bytes()));
    if (!txns.empty()) KSEG_RETURN_IF_ERROR(write_file(".txnindex.cleaned", txn_index::encode(txns)));
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = mtime_ms / 1000;
    times[0].tv_nsec = times[1].tv_nsec = (mtime_ms % 1000) * 1000000;
    for (const char* suffix : {".log.cleaned", ".index.cleaned", ".timeindex.cleaned"})
      if (::utimensat(dir_->fd(), name(suffix).c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
        return io(p_.path(base_, suffix), "cannot set the modification time of");
    return {};
  }
  int64_t size() const { return position_; }
  std::vector<txn_index::AbortedTxn> txns;

 private:
  static Error fail(Errc c, std::string m) { return Error{c, std::nullopt, std::move(m)}; }
  Error io(const std::string& path, const char* what) {
    return fail(Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  }
  Error io_error(int err) {
    errno = err;
    return io(p_.path(base_, ".log.cleaned"), "cannot write");
  }
  Status write_file(const char* suffix, const std::vector<uint8_t>& bytes) {
    const std::string path = p_.path(base_, suffix);
    auto created = dir_->create(name(suffix));
    if (!created.ok()) return created.error();
    const int fd = *created;
    if (const int err = write_all(fd, bytes.data(), bytes.size())) {
      ::close(fd);
      errno = err;
      return io(path, "cannot write");
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return io(path, "cannot fsync");
    return {};
  }

  // A file of this segment by name, relative to dir_.
  std::string name(const char* suffix) const { return fmt::format("{:020d}{}", base_, suffix); }

  const Input& p_;
  std::optional<safe::Dir> dir_;  // the partition directory, held open while writing
  std::optional<safe::InterruptCleanup> on_interrupt_;
  int64_t base_;
  int64_t interval_, max_entries_;
  offset_index::Writer index_;
  time_index::Writer tix_;
  bool write_;
  int fd_ = -1;
  int64_t position_ = 0, since_ = 0, max_ts_ = -1, offset_of_max_ = 0;
  std::optional<StreamWriter> out_;  // the .log.cleaned
};

}  // namespace kseg::compact
