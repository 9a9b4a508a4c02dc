// SPDX-License-Identifier: Apache-2.0
// A read-only view of a whole file. Small files are read into memory; large
// ones are memory-mapped so that a scan touches only the pages it reads; release_before() lets a sequential
// reader drop pages it is done with, so resident memory does not grow with
// the file (and the page cache is spared with POSIX_FADV_DONTNEED).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/byte_reader.h"
#include "lib/status.h"

namespace kseg {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }
  MappedFile& operator=(MappedFile&& o) noexcept;
  ~MappedFile();

  // Maps at most `max_bytes` from the start of the file.
  static Result<MappedFile> open(const std::string& path, int64_t max_bytes = INT64_MAX);
  // One of Kafka's small state files (checkpoints, snapshots, the shutdown
  // marker) read whole, or too_large when it is over kMaxStateFileBytes:
  // a wrong or huge file is never read whole.
  static constexpr int64_t kMaxStateFileBytes = 64 << 20;
  static Result<std::vector<uint8_t>> read_state_file(const std::string& path);

  Bytes bytes() const { return {data_, size_}; }
  int64_t size() const { return static_cast<int64_t>(size_); }
  // The file's full size on disk (may exceed size() when max_bytes cut it).
  int64_t file_size() const { return file_size_; }
  // The open file, for reading it other than through the mapping.
  int fd() const { return fd_; }
  // Tells the kernel the bytes before `pos` will not be read again.
  void release_before(Position pos);
  // Tells the kernel the whole pages inside [from, to) are not needed now
  // (they are read again from the file if touched later).
  void release_range(Position from, Position to);
  // Also evict released pages from the page cache (for scans of a live
  // broker's disk), but only those that were not cached when this was
  // called: a scan neither pollutes the cache nor evicts what a broker's
  // consumers are reading. Off by default.
  void set_drop_page_cache(bool on);
  // Where the file was found to have shrunk under the mapping (a live broker
  // truncates segments): the first offset that read as zeros instead of the
  // file's bytes. Empty while every byte read came from the file.
  std::optional<int64_t> shrunk_at() const;

 private:
  const uint8_t* data_ = nullptr;
  std::unique_ptr<uint8_t[]> owned_;  // a small file's bytes, read whole
  int64_t cached_before_read_ = -1;   // its pages cached before that read, -1 unknown
  size_t size_ = 0;
  size_t released_ = 0;
  int64_t file_size_ = 0;
  int fd_ = -1;
  bool mapped_ = false;
  int slot_ = -1;  // in the SIGBUS guard's table
  void drop_cached(size_t from, size_t to);
  bool read_whole();

  bool drop_page_cache_ = false;
  std::vector<unsigned char> was_cached_;  // per page: cached at set_drop_page_cache
};

// The first file of the run that shrank while mapped, if any: every tool
// checks it before it reports a verdict or applies a change.
struct FileShrink {
  std::string path;
  int64_t position = 0;     // first byte that could not be read
  int64_t mapped_size = 0;  // the size when it was opened
};
std::optional<FileShrink> file_shrink();

// Drops the file's clean pages from the page cache (POSIX_FADV_DONTNEED),
// as an unlink of it would; where it cannot be opened, nothing happens.
void drop_page_cache(const std::string& path);

// Pages of [at, at + len) of `fd` in the page cache, by cachestat(2), or -1
// where the kernel refuses or lacks it.
int64_t cached_page_count(int fd, int64_t at, int64_t len);

// What a stat(2) mode names, for messages: "directory", "FIFO", "character
// device", "block device", "socket", "regular file" or "special file".
const char* file_type_name(unsigned mode);

// errno as text, for I/O error messages.
std::string errno_text(int err);

// Writes all `n` bytes to `fd`, retrying short writes and EINTR: 0, or the
// errno of the write that failed (EIO for a write of 0 bytes).
int write_all(int fd, const void* data, size_t n);

// Appends a stream of bytes to a new file `fd` (not owned) in 1 MiB writes
// that bypass the page cache (O_DIRECT) where the filesystem takes them, the
// last partial block written as usual. A rewrite of a segment is read back
// by nobody before it is fsynced: through the page cache each of its pages is
// allocated, copied into and written back again (a third of kseg-compact's
// time on a 1 GiB segment), and the broker's cached pages are evicted for it.
// Where O_DIRECT is refused (tmpfs, some network filesystems), every write
// goes through the page cache. The caller fsyncs after finish().
class StreamWriter {
 public:
  explicit StreamWriter(int fd);
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;
  // 0, or the errno of the write that failed.
  int append(const uint8_t* data, size_t n);
  int finish();  // writes what is buffered
  bool direct() const { return direct_; }

 private:
  // Writes n bytes from p (in buf_): directly when n is whole blocks, else
  // (and from then on) through the page cache.
  int write_out(const uint8_t* p, size_t n);
  static constexpr size_t kBlock = 4096, kChunk = 1 << 20;
  int fd_;
  bool direct_ = false;
  uint8_t* buf_ = nullptr;  // kChunk + kBlock bytes, aligned for O_DIRECT
  size_t fill_ = 0;
};

}  // namespace kseg
