// SPDX-License-Identifier: Apache-2.0
#include "lib/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

#include <fmt/format.h>

namespace kseg {

namespace {
constexpr size_t kReleaseChunk = 2u << 20;  // drop pages in 2 MiB steps
// Files up to this size are read, not mapped: on a log dir of 2,000 small
// partitions, mapping, advising and unmapping every file (with the TLB
// shootdowns each unmap sends the other cores) was half of kseg-verify's
// time, most of it in the kernel.
constexpr size_t kReadWholeBytes = 512u << 10;

// The SIGBUS guard. Touching a mapped page past a file's current end raises
// SIGBUS, and files shrink under kseg on a live broker's disk. Each mapping
// has a slot here; the handler maps zero pages over the rest of the faulting
// mapping, so the read goes on, and records where. A slot is a seqlock: its
// sequence is odd while it is written, and the handler takes a slot only if
// the sequence was even and unchanged around its reads, so a slot freed and
// reused meanwhile is never mistaken for another. Only atomics, fstat(2),
// mmap(2), a copy loop and sigaction(2) run in the handler.
struct Slot {
  std::atomic<uint32_t> seq{0};
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<int> fd{-1};
  std::atomic<int64_t> fault{-1};  // lowest offset that read as zeros
  char path[512] = {};
};
constexpr int kSlots = 256;  // mappings alive at once; more go unguarded
Slot g_slots[kSlots];
std::mutex g_slots_mutex;  // registration only, never in the handler
struct sigaction g_previous {};
// The run's first shrunk file, by slot and generation (the slot's sequence).
std::atomic<int> g_fault_state{0};  // 0 none, 1 being written, 2 recorded
int g_fault_slot = -1;
uint32_t g_fault_gen = 0;
char g_fault_path[512];
int64_t g_fault_size = 0;
std::atomic<int64_t> g_fault_position{INT64_MAX};
uintptr_t g_page = 4096;

void lower_to(std::atomic<int64_t>& v, int64_t at) {
  for (int64_t seen = v.load(); (seen < 0 || at < seen) && !v.compare_exchange_weak(seen, at);) {
  }
}

// Records a shrink of slot `i` (generation `gen`) at `at`; async-signal-safe.
void record(int i, uint32_t gen, const char* path, int64_t size, int64_t at) {
  int idle = 0;
  if (g_fault_state.compare_exchange_strong(idle, 1)) {
    g_fault_slot = i;
    g_fault_gen = gen;
    for (size_t k = 0; k < sizeof g_fault_path; ++k)
      if ((g_fault_path[k] = path[k]) == 0) break;
    g_fault_size = size;
    g_fault_position.store(at);
    g_fault_state.store(2, std::memory_order_release);
    return;
  }
  // Readers of one mapping in parallel fault in any order: the lowest counts
  // (one that loses this race is folded in from the slot by unguard()).
  if (g_fault_state.load(std::memory_order_acquire) == 2 && g_fault_slot == i && g_fault_gen == gen)
    lower_to(g_fault_position, at);
}

void on_sigbus(int, siginfo_t* info, void*) {
  const int saved_errno = errno;
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  // BUS_ADRERR: an access past the end of a mapped file. Not I/O errors, nor
  // a SIGBUS sent by kill(2) (si_code <= 0), whose address means nothing.
  for (int i = 0; info->si_code == BUS_ADRERR && i < kSlots; ++i) {
    Slot& s = g_slots[i];
    const uint32_t gen = s.seq.load(std::memory_order_acquire);
    if (gen & 1u) continue;
    const uintptr_t b = s.begin.load(std::memory_order_relaxed), e = s.end.load(std::memory_order_relaxed);
    const int fd = s.fd.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.seq.load(std::memory_order_relaxed) != gen || b == 0 || addr < b || addr >= e) continue;
    const uintptr_t page = addr & ~(g_page - 1);
    if (mmap(reinterpret_cast<void*>(page), e - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
        MAP_FAILED)
      break;
    // The page holding the new end reads as zeros past it without a fault.
    auto at = static_cast<int64_t>(page - b);
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size < at) at = std::max<int64_t>(0, st.st_size);
    lower_to(s.fault, at);
    record(i, gen, s.path, static_cast<int64_t>(e - b), at);
    errno = saved_errno;
    return;
  }
  // Not ours: whatever was there before, on the re-executed fault (or again
  // now, for a signal that was sent rather than raised by an access).
  sigaction(SIGBUS, &g_previous, nullptr);
  if (info->si_code <= 0) raise(SIGBUS);
  errno = saved_errno;
}

int guard(const std::string& path, const void* data, size_t size, int fd) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    g_page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
  });
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.begin.load() != 0) continue;
    const uint32_t gen = s.seq.load();
    s.seq.store(gen + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    const size_t n = std::min(path.size(), sizeof s.path - 1);
    std::memcpy(s.path, path.data(), n);
    s.path[n] = 0;
    s.fault.store(-1, std::memory_order_relaxed);
    s.fd.store(fd, std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_relaxed);
    s.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_relaxed);
    s.seq.store(gen + 2, std::memory_order_release);
    return i;
  }
  return -1;
}

// Before the mapping goes: a shrink that faulted nowhere (within the last
// page read, or past it) is found by the size, and a lower fault than the
// run's record is folded in.
void unguard(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  Slot& s = g_slots[slot];
  const uint32_t gen = s.seq.load();
  const auto size = static_cast<int64_t>(s.end.load() - s.begin.load());
  struct stat st {};
  if (fstat(s.fd.load(), &st) == 0 && st.st_size < size) lower_to(s.fault, std::max<int64_t>(0, st.st_size));
  if (const int64_t at = s.fault.load(); at >= 0) record(slot, gen, s.path, size, at);
  s.seq.store(gen + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.begin.store(0, std::memory_order_relaxed);
  s.end.store(0, std::memory_order_relaxed);
  s.fd.store(-1, std::memory_order_relaxed);
  s.seq.store(gen + 2, std::memory_order_release);
}

}  // namespace

std::optional<FileShrink> file_shrink() {
  if (g_fault_state.load(std::memory_order_acquire) != 2) return std::nullopt;
  int64_t at = g_fault_position.load();
  {
    std::lock_guard<std::mutex> lock(g_slots_mutex);  // a mapping still open: its lowest fault so far
    const Slot& s = g_slots[g_fault_slot];
    if (s.seq.load() == g_fault_gen && s.fault.load() >= 0) at = std::min(at, s.fault.load());
  }
  return FileShrink{g_fault_path, at, g_fault_size};
}

std::optional<int64_t> MappedFile::shrunk_at() const {
  if (slot_ < 0) return std::nullopt;
  const int64_t at = g_slots[slot_].fault.load(std::memory_order_acquire);
  return at < 0 ? std::nullopt : std::optional<int64_t>(at);
}

int64_t cached_page_count(int fd, int64_t at, int64_t len) {
#if defined(__NR_cachestat)
  constexpr long kCachestat = __NR_cachestat;
#elif defined(__x86_64__) || defined(__aarch64__)
  constexpr long kCachestat = 451;  // headers older than the kernel
#else
  constexpr long kCachestat = -1;
#endif
  // struct cachestat_range and struct cachestat of <linux/mman.h>.
  struct Range {
    uint64_t off, len;
  };
  struct Counts {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
  };
  static_assert(sizeof(Range) == 16 && sizeof(Counts) == 40);
  Range range{static_cast<uint64_t>(at), static_cast<uint64_t>(len)};
  Counts counts{};
  if (kCachestat < 0 || syscall(kCachestat, fd, &range, &counts, 0) != 0) return -1;
  return static_cast<int64_t>(counts.nr_cache);
}

std::string errno_text(int err) { return std::strerror(err); }

void drop_page_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

int write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

StreamWriter::StreamWriter(int fd) : fd_(fd) {
  buf_ = static_cast<uint8_t*>(std::aligned_alloc(kBlock, kChunk + kBlock));
  if (!buf_) throw std::bad_alloc();
  const int flags = ::fcntl(fd_, F_GETFL);
  direct_ = flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0;
}

StreamWriter::~StreamWriter() { std::free(buf_); }

int StreamWriter::write_out(const uint8_t* p, size_t n) {
  size_t done = 0;
  if (direct_ && n % kBlock == 0) {
    while (done < n) {
      const ssize_t w = ::write(fd_, p + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EINVAL) break;  // the filesystem took the flag but not this write
      if (w < 0) return errno;
      if (w == 0) return EIO;
      done += static_cast<size_t>(w);
      if (done % kBlock != 0) break;  // a short write off a block boundary: the rest as usual
    }
    if (done == n) return 0;
  }
  if (direct_) {
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return errno;
    direct_ = false;
  }
  return write_all(fd_, p + done, n - done);
}

int StreamWriter::append(const uint8_t* data, size_t n) {
  while (n > 0) {
    const size_t take = std::min(n, kChunk + kBlock - fill_);
    std::memcpy(buf_ + fill_, data, take);
    fill_ += take, data += take, n -= take;
    if (fill_ >= kChunk) {
      const size_t out = fill_ / kBlock * kBlock;  // whole blocks; the rest waits
      if (const int err = write_out(buf_, out)) return err;
      std::memmove(buf_, buf_ + out, fill_ - out);
      fill_ -= out;
    }
  }
  return 0;
}

int StreamWriter::finish() {
  const size_t whole = fill_ / kBlock * kBlock;
  // The whole blocks, then the rest (not a block: through the page cache).
  if (const int err = write_out(buf_, whole)) return err;
  if (const int err = write_out(buf_ + whole, fill_ - whole)) return err;
  fill_ = 0;
  return 0;
}

const char* file_type_name(unsigned mode) {
  return S_ISDIR(mode)    ? "directory"
         : S_ISFIFO(mode) ? "FIFO"
         : S_ISCHR(mode)  ? "character device"
         : S_ISBLK(mode)  ? "block device"
         : S_ISSOCK(mode) ? "socket"
         : S_ISREG(mode)  ? "regular file"
                          : "special file";
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(owned_, o.owned_);
  std::swap(cached_before_read_, o.cached_before_read_);
  std::swap(size_, o.size_);
  std::swap(released_, o.released_);
  std::swap(file_size_, o.file_size_);
  std::swap(fd_, o.fd_);
  std::swap(mapped_, o.mapped_);
  std::swap(slot_, o.slot_);
  std::swap(drop_page_cache_, o.drop_page_cache_);
  std::swap(was_cached_, o.was_cached_);
  return *this;
}

MappedFile::~MappedFile() {
  unguard(slot_);
  if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
  // release_before() works in large steps; drop the rest of what was read too.
  if (size_ > released_) drop_cached(released_, size_);
  if (fd_ >= 0) close(fd_);
}

Result<std::vector<uint8_t>> MappedFile::read_state_file(const std::string& path) {
  auto f = open(path, kMaxStateFileBytes + 1);
  if (!f.ok()) return f.error();
  if (f->file_size() > kMaxStateFileBytes)
    return Error{Errc::too_large, std::nullopt,
                 fmt::format("{} bytes, more than any state file Kafka writes (at most {} read)", f->file_size(),
                             kMaxStateFileBytes)};
  return std::vector<uint8_t>(f->bytes().begin(), f->bytes().end());
}

Result<MappedFile> MappedFile::open(const std::string& path, int64_t max_bytes) {
  MappedFile f;
  // O_NONBLOCK: a FIFO where a file should be must not block the open; it
  // is refused below with every other kind of file that is not regular (a
  // device such as /dev/zero would read without end). Ignored for files.
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f.fd_ < 0) return Error{Errc::io, std::nullopt, fmt::format("cannot open: {}", errno_text(errno))};
  struct stat st {};
  if (fstat(f.fd_, &st) != 0) return Error{Errc::io, std::nullopt, fmt::format("cannot stat: {}", errno_text(errno))};
  if (S_ISDIR(st.st_mode)) return Error{Errc::io, std::nullopt, "is a directory"};
  if (!S_ISREG(st.st_mode))
    return Error{Errc::io, std::nullopt,
                 fmt::format("is a {}, not a regular file", file_type_name(st.st_mode))};
  f.file_size_ = st.st_size;
  f.size_ = static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(st.st_size, max_bytes)));
  if (f.size_ == 0) return f;
  if (f.size_ <= kReadWholeBytes && f.read_whole()) return f;
  void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, f.fd_, 0);
  if (p == MAP_FAILED) return Error{Errc::io, std::nullopt, fmt::format("cannot map: {}", errno_text(errno))};
  f.data_ = static_cast<const uint8_t*>(p);
  f.mapped_ = true;
  f.slot_ = guard(path, p, f.size_, f.fd_);
  madvise(p, f.size_, MADV_SEQUENTIAL);
  return f;
}

// A file that reads short shrank meanwhile: it is mapped instead, where the
// SIGBUS guard finds and records where it ends.
bool MappedFile::read_whole() {
  cached_before_read_ = cached_page_count(fd_, 0, static_cast<int64_t>(size_));
  owned_.reset(new uint8_t[size_]);
  size_t got = 0;
  while (got < size_) {
    const ssize_t n = ::pread(fd_, owned_.get() + got, size_ - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < size_) {
    owned_.reset();
    return false;
  }
  data_ = owned_.get();
  return true;
}

namespace {

// sysconf() is a libc call that walks a table: asked once. release_before()
// runs once per index entry in an index check, where the call was a sixth
// of all instructions.
size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

void MappedFile::release_before(Position pos) {
  if (!mapped_ || pos.value <= 0) return;
  const size_t page = page_size();
  const size_t upto = std::min(size_, static_cast<size_t>(pos.value)) / page * page;
  if (upto < released_ + kReleaseChunk) return;
  release_range(Position{static_cast<int64_t>(released_)}, Position{static_cast<int64_t>(upto)});
  released_ = upto;
}

void MappedFile::release_range(Position from, Position to) {
  if (!mapped_) return;
  const size_t page = page_size();
  const size_t lo = (static_cast<size_t>(std::max<int64_t>(0, from.value)) + page - 1) / page * page;
  const size_t hi = std::min(size_, static_cast<size_t>(std::max<int64_t>(0, to.value))) / page * page;
  if (hi <= lo) return;
  madvise(const_cast<uint8_t*>(data_) + lo, hi - lo, MADV_DONTNEED);
  drop_cached(lo, hi);
}

void MappedFile::set_drop_page_cache(bool on) {
  drop_page_cache_ = on;
  was_cached_.clear();
  if (!on) return;
  const size_t page = page_size();
  if (owned_) {
    // Read already: what was cached is known only as a count. A file partly
    // cached, or whose count the kernel refused, is left as it is: better a
    // page left cached than one a broker's consumer was reading dropped.
    const auto pages = static_cast<int64_t>((size_ + page - 1) / page);
    was_cached_.assign(static_cast<size_t>(pages), cached_before_read_ == 0 ? 0 : 1);
    return;
  }
  if (!mapped_) return;
  // mincore() looks up every page (a tenth of kseg-verify's time on a cached
  // segment); cachestat() counts a range's cached pages by folio (a seventh
  // of mincore's time), so a range wholly cached or wholly not is settled
  // by the count, a mixed one by mincore(). The count takes pages still
  // being read in as cached (someone is reading them); mincore() does not.
  // Linux answers mincore() only to a caller that may write the file, and
  // recent kernels cachestat() too (6.18 here fails it with EPERM); to any
  // other, mincore() reports pages as not cached, and they are dropped
  // after the scan.
  was_cached_.resize((size_ + page - 1) / page);
  constexpr size_t kRange = 8u << 20;
  for (size_t at = 0; at < size_; at += kRange) {
    const size_t len = std::min(kRange, size_ - at);
    const size_t pages = (len + page - 1) / page;
    unsigned char* const dst = was_cached_.data() + at / page;
    const int64_t n = cached_page_count(fd_, static_cast<int64_t>(at), static_cast<int64_t>(len));
    if (n == 0 || n == static_cast<int64_t>(pages))
      std::fill_n(dst, pages, n == 0 ? 0 : 1);
    else if (mincore(const_cast<uint8_t*>(data_) + at, len, dst) != 0)
      std::fill_n(dst, pages, 0);
  }
}

// posix_fadvise(DONTNEED) on the runs of pages in [from, to) that were not
// cached before the scan.
void MappedFile::drop_cached(size_t from, size_t to) {
  if (!drop_page_cache_ || fd_ < 0 || from >= to) return;
  if (was_cached_.empty()) {
    posix_fadvise(fd_, static_cast<off_t>(from), static_cast<off_t>(to - from), POSIX_FADV_DONTNEED);
    return;
  }
  const size_t page = page_size();
  size_t p = from / page;
  const size_t end = std::min((to + page - 1) / page, was_cached_.size());
  while (p < end) {
    while (p < end && (was_cached_[p] & 1)) p++;
    const size_t run = p;
    while (p < end && !(was_cached_[p] & 1)) p++;
    if (p > run)
      posix_fadvise(fd_, static_cast<off_t>(run * page), static_cast<off_t>((p - run) * page), POSIX_FADV_DONTNEED);
  }
}

}  // namespace kseg
