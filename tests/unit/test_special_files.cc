// Special files where Kafka keeps regular ones (issue 20): a FIFO must not
// hang a tool in open(), and a device such as /dev/zero must not be read
// without end; each is refused with the file named and exit 3.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "lib/mapped_file.h"
#include "tests/unit/run_tool.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {

struct Dir {
  fs::path root;
  Dir() {
    root = fs::temp_directory_path() / ("kseg-special-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Dir() { fs::remove_all(root); }
};

const std::string kBin = std::string(KSEG_BINARY_DIR) + "/";

}  // namespace

TEST_CASE("MappedFile refuses FIFOs and devices at once, naming the kind", "[special]") {
  Dir d;
  const std::string fifo = (d.root / "00000000000000000000.log").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  alarm(20);  // no writer: a blocking open would never return; the alarm ends the test as failed
  auto f = kseg::MappedFile::open(fifo);
  alarm(0);
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message == "is a FIFO, not a regular file");
  auto z = kseg::MappedFile::open("/dev/zero");
  REQUIRE_FALSE(z.ok());
  CHECK(z.error().message == "is a character device, not a regular file");
}

TEST_CASE("the tools exit 3 on a FIFO or a link to /dev/zero where a file should be", "[special]") {
  Dir d;
  const fs::path part = d.root / "orders-0";
  fs::copy(std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/v2-none/orders-0", part, fs::copy_options::recursive);
  const std::string fifo = (d.root / "00000000000000000000.log").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto dump = run_tool(kBin + "kseg-dump", {fifo}, d.root.string());
  CHECK(dump.exit_code == 3);
  CHECK(dump.err.find("is a FIFO") != std::string::npos);
  auto verify = run_tool(kBin + "kseg-verify", {fifo}, d.root.string());
  CHECK(verify.exit_code == 3);
  // A state file that is a link to /dev/zero: refused, not read for ever.
  fs::remove(part / "leader-epoch-checkpoint");
  fs::create_symlink("/dev/zero", part / "leader-epoch-checkpoint");
  auto v = run_tool(kBin + "kseg-verify", {part.string()}, d.root.string());
  CHECK(v.exit_code == 3);
  CHECK(v.err.find("leader-epoch-checkpoint: is a character device") != std::string::npos);
}

TEST_CASE("a symlink loop in a partition directory crashes no tool", "[special]") {
  Dir d;
  const fs::path part = d.root / "orders-0";
  fs::copy(std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/v2-none/orders-0", part, fs::copy_options::recursive);
  fs::create_symlink("loop-b", part / "loop-a");
  fs::create_symlink("loop-a", part / "loop-b");
  // Kafka's loader lists regular files only, so it skips them; so do the tools.
  for (const auto& args : {std::vector<std::string>{"kseg-dump", part.string()},
                           std::vector<std::string>{"kseg-verify", part.string()},
                           std::vector<std::string>{"kseg-reindex", "--dry-run", part.string()}}) {
    auto r = run_tool(kBin + args[0], {args.begin() + 1, args.end()}, d.root.string());
    INFO(args[0] << "\n" << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("terminate") == std::string::npos);
  }
}
