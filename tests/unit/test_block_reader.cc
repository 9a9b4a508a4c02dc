// BlockReader hands back a file's bytes in order (up to a limit), block by
// block, with writable room before each block; a read error is returned,
// not hidden.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "lib/block_reader.h"

namespace fs = std::filesystem;
using kseg::BlockReader;

namespace {

// Every block of the file in order, checking positions and the room.
std::vector<uint8_t> read_all(const fs::path& path, size_t block, bool helper, int64_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::vector<uint8_t> got;
  {
    BlockReader r(fd, block, 100, helper, limit);
    for (;;) {
      auto b = r.next();
      REQUIRE(b.ok());
      if (b->size == 0) break;
      CHECK(b->at == static_cast<int64_t>(got.size()));
      std::memset(b->data - 100, 0xAB, 100);  // the room is writable
      got.insert(got.end(), b->data, b->data + b->size);
      r.release_older();
    }
    CHECK(r.next()->size == 0);  // the end stays the end
  }
  ::close(fd);
  return got;
}
}  // namespace

TEST_CASE("blocks put together are the file, or its first `limit` bytes", "[lib]") {
  const fs::path path = fs::temp_directory_path() / fmt::format("kseg-blocks-{}", getpid());
  for (size_t size : {size_t{0}, size_t{1}, size_t{4096}, size_t{100000}, size_t{1} << 20}) {
    std::vector<uint8_t> want(size);
    for (size_t i = 0; i < size; ++i) want[i] = static_cast<uint8_t>(i * 7 + i / 251);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(want.data()), static_cast<std::streamsize>(size));
    for (size_t block : {size_t{1}, size_t{4096}, size_t{65536}, size_t{3} << 20}) {
      if (block == 1 && size > 4096) continue;  // a pread per byte: slow, and nothing more to learn
      for (bool helper : {true, false})
        for (int64_t limit : {INT64_MAX, static_cast<int64_t>(size / 3 + 1)}) {
          INFO(size << " bytes in blocks of " << block << ", limit " << limit);
          const auto n = static_cast<size_t>(std::min<int64_t>(limit, static_cast<int64_t>(size)));
          const std::vector<uint8_t> prefix(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(n));
          CHECK((read_all(path, block, helper, limit) == prefix));  // (()): not printed, a MiB when it fails
        }
    }
  }
  fs::remove(path);
}

TEST_CASE("a read error is returned", "[lib]") {
  for (bool helper : {true, false}) {
    BlockReader r(-1, 4096, 0, helper);
    auto b = r.next();
    REQUIRE_FALSE(b.ok());
    CHECK(b.error().message.find("cannot read") != std::string::npos);
  }
}
