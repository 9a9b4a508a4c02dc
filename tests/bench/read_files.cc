// SPDX-License-Identifier: Apache-2.0
// The floor under any tool that reads a whole broker log dir: list each
// partition directory and read every regular file in it whole (open, fstat,
// pread, close), partitions shared among threads as kseg-verify shares them,
// one byte of each page summed so that no read is skipped. Not kseg's code:
// tests/bench/logdir.sh times it beside kseg-verify and Kafka's load.
// Usage: kseg_bench_read_files LOGDIR [THREADS]   (default: every core)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Reads `path` whole into `buf`; returns its bytes, -1 if it could not be read.
int64_t read_whole(const std::string& path, std::vector<char>& buf, uint64_t& sum) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st {};
  int64_t got = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    buf.resize(static_cast<size_t>(st.st_size));
    got = 0;
    while (got < st.st_size) {
      const ssize_t n = pread(fd, buf.data() + got, static_cast<size_t>(st.st_size - got), got);
      if (n <= 0) break;
      got += n;
    }
    for (int64_t i = 0; i < got; i += 4096) sum += static_cast<unsigned char>(buf[static_cast<size_t>(i)]);
  }
  close(fd);
  return got;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s LOGDIR [THREADS]\n", argv[0]);
    return 2;
  }
  const int asked = argc == 3 ? std::atoi(argv[2]) : static_cast<int>(std::thread::hardware_concurrency());
  if (asked < 1 || asked > 1024) {
    std::fprintf(stderr, "%s: THREADS must be 1-1024\n", argv[0]);
    return 2;
  }
  const auto threads = static_cast<unsigned>(asked);
  std::vector<std::string> dirs{argv[1]};  // the log dir's own files (checkpoints) first
  std::error_code ec;
  for (fs::directory_iterator it(argv[1], ec), end; !ec && it != end; it.increment(ec))
    if (std::error_code type_ec; it->is_directory(type_ec)) dirs.push_back(it->path().string());
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", argv[1], ec.message().c_str());
    return 1;
  }
  std::atomic<size_t> next{0};
  std::atomic<int64_t> files{0}, bytes{0};
  std::atomic<uint64_t> total{0};
  auto work = [&] {
    std::vector<char> buf;
    uint64_t sum = 0;
    int64_t n = 0, b = 0;
    for (size_t i; (i = next++) < dirs.size();) {
      std::error_code dec;  // errors end a directory's listing: nothing to read there
      for (fs::directory_iterator it(dirs[i], dec), end; !dec && it != end; it.increment(dec)) {
        if (std::error_code type_ec; !it->is_regular_file(type_ec)) continue;
        if (const int64_t got = read_whole(it->path().string(), buf, sum); got >= 0) {
          ++n;
          b += got;
        }
      }
    }
    files += n;
    bytes += b;
    total += sum;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::printf("%lld files, %lld bytes read (page sum %llu)\n", static_cast<long long>(files.load()),
              static_cast<long long>(bytes.load()), static_cast<unsigned long long>(total.load()));
  return 0;
}
