// SPDX-License-Identifier: Apache-2.0
// kseg-compact: the offset map's pieces, its command line and refusals.
// That each round leaves what Kafka's own cleaner leaves, and that Kafka
// loads it, is tests/kafka/compact-oracle.py (it needs a JVM).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "formats/offset_map.h"
#include "lib/md5.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"
#include "tools/ops/common/problem.h"
#include "tools/ops/compact/compact_filter.h"
#include "tools/ops/compact/compact_spill.h"
#include "tools/ops/write/safe_write.h"

namespace fs = std::filesystem;
using kseg::test::run_tool;

namespace {
const std::string kCompact = std::string(KSEG_BINARY_DIR) + "/kseg-compact";
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";

kseg::Md5Digest md5_of(const std::string& s) {
  return kseg::md5(kseg::Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

std::string hex(const kseg::Md5Digest& d) {
  std::string out;
  for (uint8_t b : d) out += fmt::format("{:02x}", b);
  return out;
}

using Scratch = kseg::test::ScratchLogDir;

std::vector<std::string> tree(const fs::path& dir) { return kseg::test::tree_digest(dir.string()); }

// kseg-compact's exit status on `dir` with files limited to `bytes`
// (RLIMIT_FSIZE: a write past it fails with EFBIG, as on a full disk);
// `spill`: with a map of 7 keys, so that the keys spill first.
int exit_under_file_limit(const std::string& dir, rlim_t bytes, bool spill) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(kCompact.c_str(), kCompact.c_str(), dir.c_str(), "--now", "1700000000000", "--config", "cleanup.policy=compact",
            spill ? "--memory" : static_cast<char*>(nullptr), "256", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
}  // namespace

TEST_CASE("md5: RFC 1321's test suite", "[compact]") {
  CHECK(hex(md5_of("")) == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(hex(md5_of("a")) == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(hex(md5_of("abc")) == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex(md5_of("message digest")) == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(hex(md5_of("abcdefghijklmnopqrstuvwxyz")) == "c3fcd3d76192e4007dfb496cca67e13b");
  CHECK(hex(md5_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")) ==
        "d174ab98d277d9f5a5611c2c9f419d9f");
  CHECK(hex(md5_of(std::string("12345678901234567890123456789012345678901234567890123456789012345678901234567890"))) ==
        "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("md5: in pieces, at every split, as in one", "[compact]") {
  // RFC 1321's 80-byte vector: two blocks and a tail, split at every byte and in three.
  const std::string s = "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
  const auto b = [&](size_t at, size_t n) { return kseg::Bytes(reinterpret_cast<const uint8_t*>(s.data()) + at, n); };
  for (size_t i = 0; i <= s.size(); ++i) {
    kseg::Md5 m;
    m.update(b(0, i));
    m.update(b(i, (s.size() - i) / 2));
    m.update(b(i + (s.size() - i) / 2, s.size() - i - (s.size() - i) / 2));
    CHECK(hex(m.finish()) == "57edf4a22be3c955ac49da2e2107b67a");
  }
}

TEST_CASE("key digest: distinct keys apart, one key one digest", "[compact]") {
  std::set<kseg::KeyDigest> seen;
  int same = 0, unstable = 0;
  for (int n = 0; n < 100000; ++n) {
    const std::string k = fmt::format("key-{}", n);
    const kseg::Bytes b(reinterpret_cast<const uint8_t*>(k.data()), k.size());
    same += !seen.insert(kseg::key_digest(b)).second;
    unstable += kseg::key_digest(b) != kseg::key_digest(kseg::Bytes(b));
  }
  CHECK(same == 0);
  CHECK(unstable == 0);
}

TEST_CASE("offset map: growing to Kafka's size, it keeps every key and counts as Kafka", "[compact]") {
  // 16 MiB as Kafka sizes it: 699,050 slots, full at 629,145 keys (0.9); the table starts at
  // 32,768 slots and grows twice on the way (to 131,072, then to Kafka's 699,050).
  kseg::OffsetMap m(16 << 20);
  const int64_t full = m.max_entries(0.9);
  REQUIRE(full == 629145);
  auto digest = [](int64_t n) {
    const std::string k = fmt::format("k{}", n);
    return kseg::key_digest(kseg::Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size()));
  };
  std::vector<int64_t> model(static_cast<size_t>(full));  // what the map must hold: key n -> its latest offset
  for (int64_t n = 0; n < full; ++n) {
    m.put(digest(n), n);
    model[static_cast<size_t>(n)] = n;
    if (n % 5 == 0) {  // an update of an earlier key: no new entry
      m.put(digest(n / 2), 1000000 + n);
      model[static_cast<size_t>(n / 2)] = 1000000 + n;
    }
  }
  CHECK(m.size() == full);
  int wrong = 0;
  for (int64_t n = 0; n < full; ++n) wrong += m.get(digest(n)) != model[static_cast<size_t>(n)];
  CHECK(wrong == 0);
  for (int64_t n = full; n < full + 1000; ++n) wrong += m.get(digest(n)) != -1;
  CHECK(wrong == 0);
  const int64_t last = (full - 1) % 5 == 0 ? 1000000 + full - 1 : full - 1;  // the last put
  CHECK(m.latest_offset() == last);
}

// Past a million slots the table grows to what the rate of new keys
// projects (at most 4x); the map's answers must not change, and the map
// pass's answers by offset (PutOffsets) must be the map's, as the filter
// compares them, for every record put.
TEST_CASE("offset map: grown by projection it keeps every key; the answers by offset are the map's", "[compact]") {
  std::mt19937_64 rng(51);
  const int64_t records = 3000000;
  kseg::OffsetMap m(int64_t{512} << 20);  // 22 million slots: no fill-stop
  m.expect_offsets_below(2 * records);
  kseg::compact::PutOffsets known;
  known.reset(0, 2 * records, int64_t{512} << 20);
  auto digest = [](uint64_t n) {
    const std::string k = fmt::format("k{}", n);
    return kseg::key_digest(kseg::Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size()));
  };
  std::vector<int64_t> latest;  // key n -> its latest offset
  std::vector<std::pair<int64_t, uint64_t>> puts;  // (offset, key), in order
  int64_t offset = 0, wrong_previous = 0;
  for (int64_t i = 0; i < records; ++i) {
    // new keys at first, then old ones coming back more and more (the projection overshoots)
    const bool fresh = latest.empty() || rng() % records >= static_cast<uint64_t>(i);
    const uint64_t key = fresh ? latest.size() : rng() % latest.size();
    if (fresh) latest.push_back(-1);
    offset += 1 + static_cast<int64_t>(rng() % 2);  // gaps, as a cleaned log has
    const int64_t previous = m.put(digest(key), offset);
    wrong_previous += previous != latest[key];
    known.put(offset, previous);
    latest[key] = offset;
    puts.emplace_back(offset, key);
  }
  CHECK(wrong_previous == 0);
  CHECK(m.size() == static_cast<int64_t>(latest.size()));
  int64_t wrong = 0, differ = 0;
  for (size_t n = 0; n < latest.size(); ++n) wrong += m.get(digest(n)) != latest[n];
  CHECK(wrong == 0);
  REQUIRE(known.on());
  for (const auto& [o, key] : puts) {
    const auto f = known.found(o);
    REQUIRE(f.has_value());
    differ += (o >= *f) != (o >= m.get(digest(key)));  // the filter's comparison: latest or superseded
  }
  CHECK(differ == 0);
  CHECK_FALSE(known.found(0).has_value());  // no record there
  CHECK_FALSE(known.found(offset + 1).has_value());
  known.put(offset, -1);  // an offset that does not increase: every record asks the map
  CHECK_FALSE(known.on());
  CHECK_FALSE(known.found(puts.front().first).has_value());
  known.reset(0, int64_t{1} << 40, 1 << 20);  // wider than allowed
  CHECK_FALSE(known.on());
}

// PutOffsets::whole decides a batch without decoding it: kept only when every
// offset of its range put is one of its records (as many as it has), none
// replaced, none a tombstone; superseded when every one was replaced; checked
// against the per-offset answers on random batches of every mix, at every
// word edge of the bits.
TEST_CASE("answers by offset: a whole batch is kept or superseded exactly when each of its records is", "[compact]") {
  using kseg::compact::PutOffsets;
  using kseg::compact::Whole;
  std::mt19937_64 rng(50);
  int64_t kept_total = 0, superseded_total = 0;
  for (int round = 0; round < 200; ++round) {
    const int64_t start = static_cast<int64_t>(rng() % 130), end = start + 700;
    PutOffsets known;
    known.reset(start, end, 1 << 20);
    // Offsets [start, start + 600): some put (keys from a small set, so some
    // replaced), some unkeyed (not put), some tombstones; batches over them.
    std::vector<int> state(600, 0);  // 0 no record put there, 1 put, 2 put with a null value
    std::map<int, int64_t> key_at;   // key -> its latest offset
    int64_t last_put = -1;           // past it the bits know nothing (the map may have filled)
    for (int i = 0; i < 600; ++i) {
      const int64_t o = start + i;
      if (rng() % 10 == 0) continue;  // unkeyed: no put
      const int key = static_cast<int>(rng() % (round % 4 == 0 ? 5000 : 1 + round % 50));  // mostly distinct, or few
      auto it = key_at.find(key);
      known.put(o, it == key_at.end() ? -1 : it->second);
      key_at[key] = o;
      last_put = o;
      state[i] = rng() % 25 == 0 ? 2 : 1;
      if (state[i] == 2) known.tombstone(o);
    }
    REQUIRE(known.on());
    int64_t kept = 0, superseded = 0;
    for (int b = 0; b < 400; ++b) {
      const int64_t base = start + static_cast<int64_t>(rng() % 590), last = std::min<int64_t>(start + 599, base + static_cast<int64_t>(rng() % 140));
      // Its records: every offset of the range that has one, or one fewer (a record the bits do not show).
      int64_t count = 0;
      bool all_replaced = true, none_replaced = true, tombstone = false, unput = false;
      for (int64_t o = base; o <= last; ++o) {
        const int st = state[static_cast<size_t>(o - start)];
        if (st == 0) {
          unput = true;
          continue;
        }
        ++count;
        const bool replaced = *known.found(o) != o;
        all_replaced &= replaced;
        none_replaced &= !replaced;
        tombstone |= st == 2;
      }
      const bool extra = rng() % 4 == 0;  // the batch has a record at an offset nobody put
      const Whole w = known.whole(base, last, count + (extra ? 1 : 0));
      const Whole want = count == 0 || extra || last > last_put ? Whole::none
                         : all_replaced      ? Whole::superseded
                         : none_replaced && !tombstone ? Whole::kept
                                                       : Whole::none;
      INFO("round " << round << " batch [" << base << ", " << last << "] count " << count << " unput " << unput);
      REQUIRE(w == want);
      kept += w == Whole::kept, superseded += w == Whole::superseded;
    }
    CHECK(known.whole(start + 599, start + 700, 1) == Whole::none);  // past the last put
    if (round == 0) CHECK(known.whole(start - 1, start + 5, 6) == Whole::none);  // before the section (start may be 0: then empty)
    kept_total += kept, superseded_total += superseded;
  }
  INFO("kept " << kept_total << " superseded " << superseded_total);
  CHECK((kept_total > 100 && superseded_total > 100));  // both fates met, not only 'none'
  // The map fills at a record whose offset a put already had (a crafted batch): answers by offset stop.
  PutOffsets known;
  known.reset(0, 100, 1 << 20);
  known.put(5, -1);
  known.filled_at(6);
  CHECK(known.on());
  known.filled_at(5);
  CHECK_FALSE(known.on());
  CHECK(known.whole(5, 5, 1) == Whole::none);
}

TEST_CASE("offset map: the remainder without a division is the remainder", "[compact]") {
  std::mt19937_64 rng(50);
  std::vector<uint32_t> ds = {1, 2, 3, 7, 24, 32768, 5592405, 65535, 65536, 0x7fffffff, 0x80000000u, 0xffffffffu};
  for (int i = 0; i < 200; ++i) ds.push_back(static_cast<uint32_t>(rng()) | 1);
  for (uint32_t d : ds) {
    const uint64_t magic = kseg::remainder_magic(d);
    std::vector<uint32_t> as = {0, 1, d - 1, d, d + 1, 0x7fffffff, 0x80000000u, 0xffffffffu};
    for (int i = 0; i < 2000; ++i) as.push_back(static_cast<uint32_t>(rng()));
    for (uint32_t a : as) {
      INFO(a << " % " << d);
      REQUIRE(kseg::remainder_u32(a, d, magic) == a % d);
    }
  }
}

TEST_CASE("offset map: a full map still finds every key it holds", "[compact]") {
  // 5 slots hold 4 keys at a load factor of 0.9. By MD5, key-10 and key-12
  // both probe slot 4 first: key-12 goes round the table's end to slot 0,
  // and key-16 (first probe 0) and key-11 (1) each one slot further on.
  kseg::OffsetMap m(5 * 24);
  CHECK(m.slots() == 5);
  CHECK(m.max_entries(0.9) == 4);
  const std::vector<std::string> keys = {"key-10", "key-12", "key-16", "key-11"};
  for (size_t i = 0; i < keys.size(); ++i) m.put(md5_of(keys[i]), 145 + static_cast<int64_t>(i));
  CHECK(m.size() == 4);
  for (size_t i = 0; i < keys.size(); ++i) CHECK(m.get(md5_of(keys[i])) == 145 + static_cast<int64_t>(i));
  CHECK(m.get(md5_of("key-99")) == -1);
  m.put(md5_of("key-12"), 500);  // an update is no new entry
  CHECK(m.size() == 4);
  CHECK(m.get(md5_of("key-12")) == 500);
  CHECK(m.latest_offset() == 500);
}

TEST_CASE("kseg-compact: a topic that is not compacted is refused", "[compact]") {
  Scratch s("v2-none", "orders-0");
  const auto before = tree(s.dir());
  auto r = run_tool(kCompact, {s.dir(), "--now", "1700000000000"}, s.root.string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cleanup.policy is 'delete' (default)") != std::string::npos);
  // Issue 46: a writer's refusal is a problem of the one catalogue, in text and JSON.
  CHECK(r.err.rfind("kseg-compact: ERROR refuse.not_compacted " + s.dir() + ": cleanup.policy", 0) == 0);
  auto j = run_tool(kCompact, {s.dir(), "--now", "1700000000000", "--json"}, s.root.string());
  CHECK(j.exit_code == 1);
  const auto report = nlohmann::json::parse(j.out);
  const auto& problem = report["partitions"][0]["problems"][0];
  CHECK(problem["code"] == "refuse.not_compacted");
  CHECK(problem["severity"] == "error");
  CHECK(kseg::find_code(problem["code"].get<std::string>()) != nullptr);
  CHECK(tree(s.dir()) == before);
  std::ofstream(s.root / "topic.properties") << "# kafka-configs --describe\ncleanup.policy=compact,delete\n";
  r = run_tool(kCompact, {s.dir(), "--now", "1700000000000", "--topic-config", (s.root / "topic.properties").string(), "--dry-run", "-v"},
               s.root.string());
  CHECK(r.exit_code == 1);  // a dry run that would change something
  CHECK(r.out.find("cleanup.policy = compact,delete (topic config") != std::string::npos);
  CHECK(tree(s.dir()) == before);
}

TEST_CASE("kseg-compact: a corrupt batch in the section to clean changes nothing", "[compact]") {
  Scratch s("crc-mismatch", "orders-0");
  const auto before = tree(s.root);
  auto r = run_tool(kCompact, {s.dir(), "--now", "1700000000000", "--config", "cleanup.policy=compact"}, s.root.string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("00000000000000000000.log: position ") != std::string::npos);
  CHECK(r.err.find("CRC-32C mismatch") != std::string::npos);
  CHECK(r.err.find("kseg reindex --salvage") != std::string::npos);
  CHECK(r.err.find("kseg-compact: ERROR refuse.cleaner_stops ") != std::string::npos);
  CHECK(tree(s.root) == before);
}

TEST_CASE("kseg-compact: refused while another run holds the log dir", "[compact]") {
  Scratch s("compacted", "accounts-0");
  const auto before = tree(s.root);
  auto held = kseg::safe::DirLock::acquire(s.root.string());
  REQUIRE(held.ok());
  auto r = run_tool(kCompact, {s.dir(), "--now", "1700000000000"}, s.root.string());
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("is locked by another process") != std::string::npos);
  CHECK(r.err.find("ERROR refuse.locked ") != std::string::npos);
  CHECK(tree(s.root) == before);
}

TEST_CASE("kseg-compact: a round, then nothing left to do", "[compact]") {
  Scratch s("compacted", "accounts-0");
  // Issue 47, item 3: one line for the partition, the records removed as the plan counts them.
  auto plan = run_tool(kCompact, {s.dir(), "--now", "1800000000000", "--config", "cleanup.policy=compact", "--json",
                                  "--dry-run"}, s.root.string());
  const auto round = nlohmann::json::parse(plan.out)["partitions"][0]["rounds"][0];
  const int64_t removed = round["read"]["records"].get<int64_t>() - round["kept"]["records"].get<int64_t>();
  CHECK(removed > 0);
  auto r = run_tool(kCompact, {s.dir(), "--now", "1800000000000", "--config", "cleanup.policy=compact", "--no-backup"},
                    s.root.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind(s.dir() + ": compacted in 1 round: removed " + std::to_string(removed) + " records (", 0) == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  const auto after = tree(s.root);
  r = run_tool(kCompact, {s.dir(), "--now", "1800000000000", "--config", "cleanup.policy=compact"}, s.root.string());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("nothing to change") != std::string::npos);
  CHECK(tree(s.root) == after);
  r = run_tool(kCompact, {s.dir(), "--config", "no.such.setting=1"}, s.root.string());
  CHECK(r.exit_code == 2);
}

// Issue 50: kseg's own map (no --offset-map-bytes) cleans the whole dirty
// section in one round; keys beyond --memory go through the spill files and
// the round is the same, file for file. The compact oracle judges both
// against Kafka's cleaner; this pins what the tool says and leaves.
TEST_CASE("kseg-compact: keys beyond --memory spill, and the round is the one a map of them all makes", "[compact]") {
  Scratch whole("v2-none", "orders-0"), spilled("v2-none", "orders-0");
  const std::vector<std::string> args = {"--now", "1800000000000", "--config", "cleanup.policy=compact", "--no-backup",
                                         "--json"};
  auto run = [&](const Scratch& s, std::vector<std::string> extra) {
    extra.insert(extra.begin(), s.dir());
    extra.insert(extra.end(), args.begin(), args.end());
    return run_tool(kCompact, extra, s.root.string());
  };
  auto a = run(whole, {});
  REQUIRE(a.exit_code == 0);
  auto b = run(spilled, {"--memory", "256"});
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  const auto ra = nlohmann::json::parse(a.out)["partitions"][0]["rounds"];
  const auto rb = nlohmann::json::parse(b.out)["partitions"][0]["rounds"];
  REQUIRE(ra.size() == 1);
  REQUIRE(rb.size() == 1);
  CHECK(ra[0]["offset_map"]["spill"].is_null());
  CHECK(!ra[0]["offset_map"]["full"].get<bool>());
  const auto spill = rb[0]["offset_map"]["spill"];
  REQUIRE(spill.is_object());
  CHECK(spill["records"].get<int64_t>() > 0);
  CHECK(spill["bytes"].get<int64_t>() >= 24 * spill["records"].get<int64_t>());
  CHECK(rb[0]["offset_map"]["keys"] == ra[0]["offset_map"]["keys"]);
  CHECK(rb[0]["kept"] == ra[0]["kept"]);
  CHECK(tree(whole.root) == tree(spilled.root));  // nothing of the spill is left either
  // The text says what went through the disk.
  Scratch text("v2-none", "orders-0");
  auto t = run_tool(kCompact, {text.dir(), "--now", "1800000000000", "--config", "cleanup.policy=compact", "--memory",
                               "256", "--dry-run"}, text.root.string());
  CHECK(t.exit_code == 1);
  CHECK(t.out.find("its keys did not fit --memory: ") != std::string::npos);
  // A dry run's spill is in $TMPDIR (it writes nothing beside the partition); a real run's beside it.
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string where = tmpdir && *tmpdir ? tmpdir : "/tmp";
  CHECK(t.out.find("went through a spill file in " + where + " (unlinked, nothing left)") != std::string::npos);
  const auto real = nlohmann::json::parse(b.out)["partitions"][0]["rounds"][0]["offset_map"]["spill"];
  CHECK(fs::equivalent(real["dir"].get<std::string>(), spilled.dir()));
}

// The spill on its own (compact_spill.h): its answers are a map's of every
// key; no directory given (a dry run's) is $TMPDIR; its files have no name;
// a part with more keys than the map fails.
TEST_CASE("spill: a map of every key's answers, its files in $TMPDIR for a dry run, unnamed", "[compact]") {
  kseg::test::TempDir tmp("spill");
  CHECK(!kseg::compact::Spill::create((tmp.root / "no-such-partition").string(), 1 << 20).ok());
  const char* old_tmp = std::getenv("TMPDIR");
  const std::string saved = old_tmp ? old_tmp : "";
  ::setenv("TMPDIR", tmp.root.c_str(), 1);
  auto made = kseg::compact::Spill::create("", 1 << 20);
  if (old_tmp) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  REQUIRE(made.ok());
  auto& spill = **made;
  CHECK(spill.dir() == tmp.root.string());
  // 100 keys, offsets 0..999 (key i % 100); from 500 on the map holds them (the dirty section).
  auto key = [](int64_t o) {
    const std::string k = "key-" + std::to_string(o % 100);
    return kseg::key_digest(kseg::Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size()));
  };
  for (int64_t o = 0; o < 1000; ++o) REQUIRE(spill.add(key(o), o, o >= 500).ok());
  kseg::OffsetMap map(24 * 16);  // 14 keys: each of the 1,024 parts has fewer
  int64_t keys = 0;
  REQUIRE(spill.resolve(map, map.max_entries(0.9), keys).ok());
  CHECK(keys == 100);
  CHECK(spill.records() == 1000);
  int superseded = 0;
  for (int64_t o = 0; o < 1000; o += (o % 7 == 3 ? 2 : 1)) {  // some offsets not asked, as a dropped batch's
    auto later = spill.superseded(key(o), o);
    REQUIRE(later.ok());
    INFO(o);
    CHECK(*later == (o < 900));  // key o % 100's latest offset is 900 + o % 100
    superseded += *later;
  }
  CHECK(superseded > 0);
  CHECK(spill.superseded_records() == 900);
  CHECK(fs::is_empty(tmp.root));  // the files have no name
  // 100,000 keys in parts of at most 14: refused, naming --memory.
  auto crowded = kseg::compact::Spill::create(tmp.root.string(), 1 << 20);
  REQUIRE(crowded.ok());
  for (int64_t o = 0; o < 100000; ++o) {
    const std::string k = std::to_string(o);
    REQUIRE((*crowded)->add(kseg::key_digest(kseg::Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size())), o, true).ok());
  }
  auto full = (*crowded)->resolve(map, map.max_entries(0.9), keys);
  REQUIRE(!full.ok());
  CHECK(full.error().message.find("give a larger --memory") != std::string::npos);
}

// A spill that cannot be written (EFBIG under RLIMIT_FSIZE, as a full disk
// would): exit 3 before the first write to the partition, nothing left.
TEST_CASE("kseg-compact: a spill that cannot be written changes nothing and leaves nothing", "[compact]") {
  Scratch s("v2-none", "orders-0");
  const auto before = tree(s.dir());
  CHECK(exit_under_file_limit(s.dir(), 100, true) == 3);  // the spill's first chunk is 4 KiB
  CHECK(tree(s.dir()) == before);
}

// A write that fails part-way (ENOSPC; here EFBIG under RLIMIT_FSIZE): exit
// 3 naming the file, no .cleaned file left, the partition as it was.
TEST_CASE("kseg-compact: a failed write changes nothing and leaves nothing", "[compact]") {
  Scratch s("v2-none", "orders-0");
  const auto before = tree(s.dir());
  CHECK(exit_under_file_limit(s.dir(), 1000, false) == 3);  // the first cleaned segment is several KiB
  CHECK(tree(s.dir()) == before);
}

TEST_CASE("kseg-compact: the topic's configs from the KRaft metadata log beside it", "[compact]") {
  // The live 4.4.0 broker's log dir: topic accounts was created compacted,
  // and the controller wrote its configs to __cluster_metadata.
  Scratch s("live-broker", "accounts-0");
  fs::copy(kCorpus + "live-broker/__cluster_metadata-0", s.root / "__cluster_metadata-0", fs::copy_options::recursive);
  const auto before = tree(s.dir());
  auto r = run_tool(kCompact, {s.dir(), "--now", "1800000000000", "--dry-run", "-v"}, s.root.string());
  CHECK(r.exit_code != 2);
  CHECK(r.err.find("cleanup.policy is") == std::string::npos);
  CHECK(r.out.find("cleanup.policy = compact (KRaft metadata " + (s.root / "__cluster_metadata-0").string() + ")") !=
        std::string::npos);
  CHECK(r.out.find("min.compaction.lag.ms = 0 (KRaft metadata") != std::string::npos);
  CHECK(tree(s.dir()) == before);
  // Without the metadata log the same partition is a topic of the default policy.
  fs::remove_all(s.root / "__cluster_metadata-0");
  r = run_tool(kCompact, {s.dir(), "--now", "1800000000000", "--dry-run"}, s.root.string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cleanup.policy is 'delete' (default)") != std::string::npos);
}

TEST_CASE("kseg-compact: a run of many rounds keeps the originals from before the run", "[compact]") {
  // A map of 9 keys: each round replaces the first segment again; the
  // backup must still hold the one that was there before the run. (Rounds
  // given: --until-clean refuses a map smaller than a segment's keys.)
  Scratch s("v2-none", "orders-0");
  const std::string original = kseg::test::read_text(s.dir() + "/00000000000000000000.log");
  auto r = run_tool(kCompact, {s.dir(), "-v", "--now", "1700000000000", "--config", "cleanup.policy=compact", "--offset-map-bytes",
                               "240", "--rounds", "4"},
                    s.root.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("round 3:") != std::string::npos);
  std::string backup;
  for (const auto& e : fs::directory_iterator(s.dir()))
    if (e.path().filename().string().rfind(".kseg-backup-", 0) == 0) backup = e.path().string();
  REQUIRE(!backup.empty());
  CHECK(kseg::test::read_text(backup + "/00000000000000000000.log") == original);
  CHECK(kseg::test::read_text(s.dir() + "/00000000000000000000.log") != original);
}

// The records a line claims removed are the records the partition no longer holds, aborted
// transactions' batches (removed whole) included (kseg-info counts them before and after).
TEST_CASE("kseg-compact: the records removed, aborted batches included, as the partition shows", "[compact]") {
  Scratch s("transactions", "ledger-0");
  auto records = [&] {
    auto r = run_tool(std::string(KSEG_BINARY_DIR) + "/kseg-info", {"--format", "json", s.dir()}, ".");
    return nlohmann::json::parse(r.out)["partitions"][0]["records"].get<int64_t>();
  };
  const int64_t before = records();
  auto r = run_tool(kCompact, {s.dir(), "--until-clean", "--no-backup", "--config", "cleanup.policy=compact", "--now",
                               "1900000000000"}, s.root.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(" aborted") != std::string::npos);
  const auto at = r.out.find("removed ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoll(r.out.substr(at + 8)) == before - records());
}
