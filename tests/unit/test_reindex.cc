// kseg-reindex: the rebuild rule, truncation, the write protocol and the
// .lock refusal. Byte identity against Kafka's own recovery for every corpus
// segment is tests/kafka/reindex-oracle.sh (it needs a JVM).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "formats/log_entry.h"
#include "formats/segment_recover.h"
#include "lib/mapped_file.h"
#include "tests/unit/run_tool.h"
#include "tools/ops/reindex.h"
#include "tools/ops/safe_write.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kReindex = std::string(KSEG_BINARY_DIR) + "/kseg-reindex";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
const std::string kSeg0 = "00000000000000000000";

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A private log dir holding a copy of a corpus partition.
struct Scratch {
  fs::path root;
  explicit Scratch(const std::string& case_name, const std::string& partition = "orders-0") {
    root = fs::temp_directory_path() / fmt::format("kseg-reindex-test-{}-{}", ::getpid(), case_name);
    fs::remove_all(root);
    fs::create_directories(root);
    fs::copy(kCorpus + case_name + "/" + partition, root / partition, fs::copy_options::recursive);
  }
  ~Scratch() { fs::remove_all(root); }
  std::string dir(const std::string& partition = "orders-0") const { return (root / partition).string(); }
};

kseg::recover::Config corpus_config() {
  kseg::recover::Config c;
  c.index_interval_bytes = 256;  // every v2/damaged case.json
  c.segment_index_bytes = 4096;
  return c;
}

std::vector<std::string> tree(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path().string() + ":" + std::to_string(e.file_size()));
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("rebuilt indexes of closed leader-written segments equal the broker's", "[reindex]") {
  // v2-none: one batch per append, no restart while active: spec §6.2 says
  // recovery reproduces the appended indexes byte for byte.
  const std::string dir = kCorpus + "v2-none/orders-0/";
  for (const char* base : {"00000000000000000000", "00000000000000000088"}) {
    auto log = kseg::MappedFile::open(dir + base + ".log");
    REQUIRE(log.ok());
    auto r = kseg::recover::recover_segment(log->bytes(), kseg::Offset{std::stoll(base)}, corpus_config());
    REQUIRE(r.ok());
    CHECK(r->stop == kseg::recover::Stop::end_of_file);
    CHECK(r->offset_index == slurp(dir + base + ".index"));
    CHECK(r->time_index == slurp(dir + base + ".timeindex"));
  }
}

TEST_CASE("every truncation length: valid end is the last whole batch, indexes are the prefix's", "[reindex]") {
  auto log = kseg::MappedFile::open(kCorpus + "v2-none/orders-0/" + kSeg0 + ".log");
  REQUIRE(log.ok());
  auto full = kseg::recover::recover_segment(log->bytes(), kseg::Offset{0}, corpus_config());
  REQUIRE(full.ok());
  std::vector<int64_t> boundaries{0};
  kseg::EntryScanner scan(log->bytes(), kseg::Position{0});
  while (auto e = scan.next()) boundaries.push_back((e->position + e->total()).value);
  for (size_t len = 0; len <= log->bytes().size(); len += 7) {
    auto r = kseg::recover::recover_segment(log->bytes().first(len), kseg::Offset{0}, corpus_config());
    REQUIRE(r.ok());
    const int64_t want = *std::prev(std::upper_bound(boundaries.begin(), boundaries.end(), static_cast<int64_t>(len)));
    CHECK(r->valid_end.value == want);
    CHECK(r->truncates() == (want != static_cast<int64_t>(len)));
    // Offset entries of the prefix are a prefix of the full file's.
    CHECK(std::equal(r->offset_index.begin(), r->offset_index.end(), full->offset_index.begin()));
  }
}

TEST_CASE("a CRC failure mid-segment stops recovery there", "[reindex]") {
  auto log = kseg::MappedFile::open(kCorpus + "crc-mismatch/orders-0/" + kSeg0 + ".log");
  REQUIRE(log.ok());
  auto r = kseg::recover::recover_segment(log->bytes(), kseg::Offset{0}, corpus_config());
  REQUIRE(r.ok());
  CHECK(r->stop == kseg::recover::Stop::bad_crc);
  CHECK(r->valid_end.value == 4195);  // case.json recipe: batch 10 at position 4195
  CHECK(r->stop_detail.find("CRC-32C mismatch: stored 0x") != std::string::npos);
  auto removed = kseg::recover::describe_removed(log->bytes(), r->valid_end);
  REQUIRE(removed.first_offset);
  CHECK(removed.first_offset->value == 44);
}

TEST_CASE("dry run changes nothing; a run fixes; a second run changes nothing", "[reindex]") {
  Scratch s("torn-tail");
  const auto before = tree(s.root);
  auto dry = run_tool(kReindex, {"--recover", "--dry-run", "--index-interval-bytes", "256", "--segment-index-bytes", "4096", s.dir()}, ".");
  CHECK(dry.exit_code == 0);
  CHECK(dry.out.find("truncate: keep") != std::string::npos);
  CHECK(tree(s.root) == before);

  auto plain = run_tool(kReindex, {"--index-interval-bytes", "256", "--segment-index-bytes", "4096", s.dir()}, ".");
  CHECK(plain.exit_code == 1);  // invalid bytes left without --recover
  CHECK(plain.err.find("--recover removes them") != std::string::npos);

  auto fix = run_tool(kReindex, {"--recover", "--index-interval-bytes", "256", "--segment-index-bytes", "4096", s.dir()}, ".");
  CHECK(fix.exit_code == 0);
  CHECK(fix.out.find("originals in") != std::string::npos);
  const auto after = tree(s.root);
  auto again = run_tool(kReindex, {"--recover", "--index-interval-bytes", "256", "--segment-index-bytes", "4096", s.dir()}, ".");
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("nothing to change") != std::string::npos);
  CHECK(tree(s.root) == after);
  // The backup holds the original, untruncated .log.
  bool found = false;
  for (const auto& e : fs::directory_iterator(s.dir()))
    if (e.is_directory() && e.path().filename().string().rfind(kseg::safe::kBackupPrefix, 0) == 0)
      found = found || (fs::exists(e.path() / "00000000000000000268.log") &&
                        fs::file_size(e.path() / "00000000000000000268.log") ==
                            fs::file_size(kCorpus + "torn-tail/orders-0/00000000000000000268.log"));
  CHECK(found);
}

TEST_CASE("refuses a log dir whose .lock another process holds (fcntl, as the JVM's tryLock)", "[reindex]") {
  Scratch s("v2-none");
  fs::remove(s.dir() + "/" + kSeg0 + ".index");
  const std::string lock = (s.root / ".lock").string();
  std::ofstream(lock).put('\n');
  int ready[2], release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  const pid_t child = ::fork();
  if (child == 0) {  // holds a classic POSIX record lock, like FileChannel.tryLock on Linux
    const int fd = ::open(lock.c_str(), O_RDWR);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    const char ok = ::fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &ok, 1);
    char c;
    (void)!::read(release[0], &c, 1);
    ::_exit(0);
  }
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  REQUIRE(ok == 'y');
  const auto before = tree(s.root);
  CHECK_FALSE(kseg::safe::check_unlocked(s.root.string()).ok());
  auto r = run_tool(kReindex, {"--index-interval-bytes", "256", s.dir()}, ".");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(fmt::format("is locked by process {}", child)) != std::string::npos);
  CHECK(tree(s.root) == before);
  (void)!::write(release[1], "x", 1);
  ::waitpid(child, nullptr, 0);
  CHECK(kseg::safe::check_unlocked(s.root.string()).ok());
  auto after = run_tool(kReindex, {"--index-interval-bytes", "256", "--segment-index-bytes", "4096", s.dir()}, ".");
  CHECK(after.exit_code == 0);
  CHECK(slurp(s.dir() + "/" + kSeg0 + ".index") == slurp(kCorpus + "v2-none/orders-0/" + kSeg0 + ".index"));
}

TEST_CASE("topic config file and capacity refusal", "[reindex]") {
  const auto path = fs::temp_directory_path() / fmt::format("kseg-reindex-{}.properties", ::getpid());
  std::ofstream(path) << "# topic\nindex.interval.bytes = 100\nsegment.index.bytes=16\ncleanup.policy=compact\n";
  kseg::recover::Config c;
  REQUIRE(kseg::read_topic_config(path.string(), c).ok());
  CHECK(c.index_interval_bytes == 100);
  CHECK(c.segment_index_bytes == 16);
  std::ofstream(path) << "index.interval.bytes=lots\n";
  CHECK_FALSE(kseg::read_topic_config(path.string(), c).ok());
  fs::remove(path);
  // Two offset-index slots cannot hold v2-none's first segment at interval 100: Kafka fails, so kseg refuses.
  auto log = kseg::MappedFile::open(kCorpus + "v2-none/orders-0/" + kSeg0 + ".log");
  REQUIRE(log.ok());
  kseg::recover::Config small;
  small.index_interval_bytes = 100;
  small.segment_index_bytes = 16;
  auto r = kseg::recover::recover_segment(log->bytes(), kseg::Offset{0}, small);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("index full") != std::string::npos);
}
