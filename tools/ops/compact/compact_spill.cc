// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/compact/compact_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "lib/mapped_file.h"
#include "tools/ops/write/safe_write.h"

namespace kseg::compact {

namespace {

// An entry: the 16 digest bytes, then the offset (big-endian), its top bit
// set when the map would hold the record. A list entry: an offset.
constexpr int64_t kEntry = 24;
constexpr uint64_t kHolds = uint64_t{1} << 63;
constexpr int kWindow = 512;  // list entries a cursor reads at a time

// Ten bits of the digest: any are as good as any other (a 128-bit hash),
// and the keys of one bucket still spread over the whole map.
int bucket_of(const KeyDigest& k) { return (int(k[8]) << 2 | int(k[9]) >> 6) & (Spill::kBuckets - 1); }

void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

Error io(std::string m) { return Error{Errc::io, std::nullopt, std::move(m)}; }

// A file in `dir` that has no name: O_TMPFILE, or (a filesystem without it)
// a new name unlinked as soon as it is open.
Result<int> unnamed_file(const safe::Dir& dir, int n) {
  int fd = ::openat(dir.fd(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  const std::string name = fmt::format(".kseg-spill-{}-{}.kseg-tmp", ::getpid(), n);
  fd = ::openat(dir.fd(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return io(fmt::format("{}: cannot create a spill file: {}", dir.path(name), errno_text(errno)));
  if (::unlinkat(dir.fd(), name.c_str(), 0) != 0) {
    const int err = errno;
    ::close(fd);
    return io(fmt::format("{}: cannot unlink the spill file: {}", dir.path(name), errno_text(err)));
  }
  return fd;
}

}  // namespace

struct Spill::Bucket {
  std::vector<uint8_t> buf;                          // entries not yet written
  std::vector<std::pair<int64_t, int64_t>> chunks;  // (position, bytes) written, in order
  // The superseded offsets: [list_at, list_at + list_count) of the lists file, and the cursor.
  int64_t list_at = 0, list_count = 0, list_read = 0;
  std::vector<int64_t> window;
  size_t next = 0;
};

Spill::Spill(int entries_fd, int lists_fd, int64_t chunk_bytes)
    : entries_fd_(entries_fd), lists_fd_(lists_fd), chunk_bytes_(chunk_bytes), buckets_(kBuckets) {}

Spill::~Spill() {
  if (entries_fd_ >= 0) ::close(entries_fd_);
  if (lists_fd_ >= 0) ::close(lists_fd_);
}

Result<std::unique_ptr<Spill>> Spill::create(const std::string& dir, int64_t buffer_bytes) {
  // Both files in `dir`, or the error of the first that could not be made.
  auto files_in = [](const std::string& where) -> Result<std::pair<int, int>> {
    auto d = safe::Dir::open(where);
    if (!d.ok()) return d.error();
    auto entries = unnamed_file(*d, 0);
    if (!entries.ok()) return entries.error();
    auto lists = unnamed_file(*d, 1);
    if (!lists.ok()) {
      ::close(*entries);
      return lists.error();
    }
    return std::pair{*entries, *lists};
  };
  std::string where = dir;
  if (where.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    where = tmp && *tmp ? tmp : "/tmp";
  }
  auto fds = files_in(where);
  if (!fds.ok()) return fds.error();
  // A chunk per bucket in memory: from 4 KiB (1,024 x 4 KiB = 4 MiB) to
  // 1 MiB, so that reading a bucket back is few reads, not one per entry.
  const int64_t chunk = std::clamp<int64_t>(buffer_bytes / kBuckets, 4096, 1 << 20) / kEntry * kEntry;
  std::unique_ptr<Spill> s(new Spill(fds->first, fds->second, chunk));
  s->dir_ = where;
  return s;
}

Status Spill::flush(Bucket& b) {
  if (b.buf.empty()) return {};
  if (const int err = write_all(entries_fd_, b.buf.data(), b.buf.size()))
    return io(fmt::format("{}: cannot write the spill file ({} bytes written so far): {}", dir_, written_,
                          errno_text(err)));
  b.chunks.emplace_back(entries_end_, static_cast<int64_t>(b.buf.size()));
  entries_end_ += static_cast<int64_t>(b.buf.size());
  written_ += static_cast<int64_t>(b.buf.size());
  b.buf.clear();
  return {};
}

Status Spill::add(const KeyDigest& key, int64_t offset, bool holds) {
  Bucket& b = buckets_[static_cast<size_t>(bucket_of(key))];
  if (b.buf.capacity() == 0) b.buf.reserve(static_cast<size_t>(chunk_bytes_));
  const size_t at = b.buf.size();
  b.buf.resize(at + kEntry);
  std::memcpy(b.buf.data() + at, key.data(), key.size());
  put_u64(b.buf.data() + at + 16, static_cast<uint64_t>(offset) | (holds ? kHolds : 0));
  ++records_;
  if (static_cast<int64_t>(b.buf.size()) >= chunk_bytes_) return flush(b);
  return {};
}

Status Spill::read_at(int fd, int64_t at, uint8_t* into, int64_t n, const char* what) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, into, static_cast<size_t>(n), at);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return io(fmt::format("{}: cannot read back the {} at byte {}: {}", dir_, what, at,
                            r == 0 ? "it ended early" : errno_text(errno)));
    into += r, at += r, n -= r;
  }
  return {};
}

Status Spill::resolve(OffsetMap& map, int64_t max_entries, int64_t& keys) {
  for (auto& b : buckets_) {
    KSEG_RETURN_IF_ERROR(flush(b));
    std::vector<uint8_t>().swap(b.buf);
  }
  std::vector<uint8_t> chunk(static_cast<size_t>(chunk_bytes_));
  std::vector<uint8_t> list;
  keys = 0;
  // Each entry of a bucket, in log order.
  auto each = [&](const Bucket& b, auto&& f) -> Status {
    for (const auto& [at, n] : b.chunks) {
      KSEG_RETURN_IF_ERROR(read_at(entries_fd_, at, chunk.data(), n, "spill file"));
      for (int64_t k = 0; k < n; k += kEntry) {
        KeyDigest d;
        std::memcpy(d.data(), chunk.data() + k, d.size());
        const uint64_t v = get_u64(chunk.data() + k + 16);
        KSEG_RETURN_IF_ERROR(f(d, static_cast<int64_t>(v & ~kHolds), (v & kHolds) != 0));
      }
    }
    return {};
  };
  for (size_t i = 0; i < buckets_.size(); ++i) {
    Bucket& b = buckets_[i];
    if (b.chunks.empty()) continue;
    map.clear();
    KSEG_RETURN_IF_ERROR(each(b, [&](const KeyDigest& d, int64_t offset, bool holds) -> Status {
      if (!holds) return {};
      if (map.size() >= max_entries && map.get(d) < 0)
        return Error{Errc::usage, std::nullopt,
                     fmt::format("{}: more than {} keys of the dirty section fall in one of {} parts of its keys: "
                                 "the offset map would need more than {} times its memory; give a larger --memory",
                                 dir_, max_entries, kBuckets, kBuckets)};
      map.put(d, offset);
      return {};
    }));
    keys += map.size();
    b.list_at = lists_end_ / 8;
    KSEG_RETURN_IF_ERROR(each(b, [&](const KeyDigest& d, int64_t offset, bool) -> Status {
      if (map.get(d) <= offset) return {};
      list.resize(list.size() + 8);
      put_u64(list.data() + list.size() - 8, static_cast<uint64_t>(offset));
      ++b.list_count;
      if (static_cast<int64_t>(list.size()) < chunk_bytes_) return {};
      if (const int err = write_all(lists_fd_, list.data(), list.size()))
        return io(fmt::format("{}: cannot write the spill file: {}", dir_, errno_text(err)));
      lists_end_ += static_cast<int64_t>(list.size()), written_ += static_cast<int64_t>(list.size());
      list.clear();
      return {};
    }));
    if (!list.empty()) {
      if (const int err = write_all(lists_fd_, list.data(), list.size()))
        return io(fmt::format("{}: cannot write the spill file: {}", dir_, errno_text(err)));
      lists_end_ += static_cast<int64_t>(list.size()), written_ += static_cast<int64_t>(list.size());
      list.clear();
    }
    superseded_count_ += b.list_count;
    std::vector<std::pair<int64_t, int64_t>>().swap(b.chunks);
  }
  map.clear();
  return {};
}

Result<bool> Spill::superseded(const KeyDigest& key, int64_t offset) {
  Bucket& b = buckets_[static_cast<size_t>(bucket_of(key))];
  for (;;) {
    if (b.next == b.window.size()) {
      const int64_t n = std::min<int64_t>(kWindow, b.list_count - b.list_read);
      if (n <= 0) return false;
      std::vector<uint8_t> raw(static_cast<size_t>(n * 8));
      KSEG_RETURN_IF_ERROR(read_at(lists_fd_, (b.list_at + b.list_read) * 8, raw.data(), n * 8, "superseded offsets"));
      b.window.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) b.window[static_cast<size_t>(k)] = static_cast<int64_t>(get_u64(raw.data() + k * 8));
      b.list_read += n;
      b.next = 0;
    }
    const int64_t head = b.window[b.next];
    if (head > offset) return false;
    if (head == offset) return true;
    ++b.next;  // a record the cleaning pass did not ask about (a batch it dropped whole)
  }
}

}  // namespace kseg::compact
