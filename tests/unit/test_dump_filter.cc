// SPDX-License-Identifier: Apache-2.0
// kseg-dump's filters (--from/--to-offset, --from/--to-time, --producer-id,
// --key) against Kafka's own output: for every single-segment golden of
// DumpLogSegments --deep-iteration (and --print-data-log for --key), the
// filtered dump must equal Kafka's lines kept by the same rule, applied to
// the offsets, timestamps, producer ids and keys Kafka printed. The bounds
// are picked from each golden, so every case exercises a cut in its middle.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/unit/support/dirs.h"
#include "tests/unit/support/run_tool.h"
#include "tests/unit/support/scratch.h"

namespace fs = std::filesystem;
using kseg::test::read_lines;
using kseg::test::read_text;
using kseg::test::run_tool;

namespace {

// One batch line of Kafka's output with its record lines (a record line
// printed with a value that holds newlines spans several lines).
struct Item {
  std::string text;  // the line(s), newlines included
  bool batch = false;
  int64_t producer_id = -1;
  int64_t offset = 0, timestamp = -1;  // records
  std::optional<std::string> key;      // records of a --print-data-log golden
};

struct Parsed {
  std::string head;  // "Dumping ..." and "Log starting offset: ..."
  std::vector<Item> items;
  bool ok = true;  // false: a line this test cannot place
};

int64_t field(const std::string& line, const std::string& name) {
  const auto at = line.find(" " + name + ": ");
  if (at == std::string::npos) return INT64_MIN;
  return std::stoll(line.substr(at + name.size() + 3));
}

Parsed parse(const std::string& out) {
  Parsed p;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const std::string with_nl = line + "\n";
    if (line.rfind("baseOffset: ", 0) == 0 || (line.rfind("offset: ", 0) == 0 && line.find(" position: ") != std::string::npos)) {
      Item b;
      b.batch = true;
      b.text = with_nl;
      const int64_t pid = field(" " + line, "producerId");
      b.producer_id = pid == INT64_MIN ? -1 : pid;
      p.items.push_back(b);
    } else if (line.rfind("| offset: ", 0) == 0) {
      Item r;
      r.text = with_nl;
      // "| offset: N <TimestampType>: T ..."
      std::istringstream words(line);
      std::string bar, name, off, type, ts;
      words >> bar >> name >> off >> type >> ts;
      r.offset = std::stoll(off);
      r.timestamp = std::stoll(ts);
      if (const auto k = line.find(" key: "); k != std::string::npos) {
        const auto v = line.find(" payload: ", k + 6);
        r.key = line.substr(k + 6, v == std::string::npos ? std::string::npos : v - k - 6);
      }
      p.items.push_back(r);
    } else if (p.items.empty()) {
      p.head += with_nl;
    } else if (line.find("invalid bytes at the end of") != std::string::npos) {
      p.ok = false;  // a torn tail: printed only when the scan reaches it
    } else {
      p.items.back().text += with_nl;  // the rest of a value with newlines
    }
  }
  return p;
}

// Kafka's lines kept by the filter's rule: a record when `keep` says so, a
// batch when any of its records is kept.
std::string expected(const Parsed& p, const std::function<bool(const Item& batch, const Item& record)>& keep) {
  std::string out = p.head;
  for (size_t i = 0; i < p.items.size();) {
    const Item& b = p.items[i++];
    std::string recs;
    for (; i < p.items.size() && !p.items[i].batch; ++i)
      if (keep(b, p.items[i])) recs += p.items[i].text;
    if (!recs.empty()) out += b.text + recs;
  }
  return out;
}

struct Golden {
  fs::path case_dir;
  std::vector<std::string> args;
  std::string out;
};

// Single-segment goldens of the given kind ("deep", "data") where Kafka
// finished cleanly on healthy data.
std::vector<Golden> goldens(const std::string& kind) {
  std::vector<Golden> all;
  const fs::path root = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka";
  for (const auto& c : fs::directory_iterator(root)) {
    if (!fs::is_directory(c.path() / "dump")) continue;
    for (const auto& f : fs::directory_iterator(c.path() / "dump")) {
      const std::string name = f.path().filename().string();
      if (!name.ends_with(".log." + kind + ".args")) continue;
      const std::string stem = f.path().string().substr(0, f.path().string().size() - 5);
      if (std::stoi(read_text(stem + ".exit")) != 0 || !read_text(stem + ".err").empty()) continue;
      std::string out = read_text(stem + ".out");
      // A batch with a problem is shown whatever the filters say (kseg's rule), so a
      // golden with a bad checksum does not follow the rule alone.
      if (out.find("isvalid: false") != std::string::npos) continue;
      all.push_back({c.path(), read_lines(f.path().string()), std::move(out)});
    }
  }
  std::sort(all.begin(), all.end(), [](const Golden& a, const Golden& b) { return a.args < b.args; });
  return all;
}

std::string bin() { return std::string(KSEG_BINARY_DIR) + "/kseg-dump"; }

}  // namespace

TEST_CASE("kseg-dump filters keep exactly Kafka's lines they select", "[golden][filter]") {
  size_t compared = 0, cut = 0;
  for (const Golden& g : goldens("deep")) {
    const Parsed p = parse(g.out);
    if (!p.ok) continue;
    std::vector<int64_t> offsets, times;
    std::optional<int64_t> pid;
    for (const Item& it : p.items) {
      if (!it.batch) {
        offsets.push_back(it.offset);
        if (it.timestamp >= 0) times.push_back(it.timestamp);
      } else if (it.producer_id >= 0 && !pid) {
        pid = it.producer_id;
      }
    }
    if (offsets.empty()) continue;
    std::sort(times.begin(), times.end());
    struct Filter {
      std::vector<std::string> args;
      std::function<bool(const Item&, const Item&)> keep;
    };
    std::vector<Filter> filters;
    const int64_t lo = offsets[offsets.size() / 3], hi = offsets[offsets.size() * 2 / 3];
    filters.push_back({{"--from-offset", std::to_string(lo), "--to-offset", std::to_string(hi)},
                       [=](const Item&, const Item& r) { return r.offset >= lo && r.offset <= hi; }});
    filters.push_back({{"--from-offset", std::to_string(hi)}, [=](const Item&, const Item& r) { return r.offset >= hi; }});
    filters.push_back({{"--to-offset", std::to_string(lo)}, [=](const Item&, const Item& r) { return r.offset <= lo; }});
    if (!times.empty()) {
      const int64_t t0 = times[times.size() / 3], t1 = times[times.size() * 2 / 3];
      filters.push_back({{"--from-time", std::to_string(t0), "--to-time", std::to_string(t1)},
                         [=](const Item&, const Item& r) { return r.timestamp >= t0 && r.timestamp <= t1; }});
      filters.push_back({{"--from-time", std::to_string(t1)}, [=](const Item&, const Item& r) { return r.timestamp >= t1; }});
    }
    if (pid)
      filters.push_back({{"--producer-id", std::to_string(*pid)},
                         [=](const Item& b, const Item&) { return b.producer_id == *pid; }});
    for (const Filter& f : filters) {
      for (const bool seek : {true, false}) {
        auto args = g.args;
        args.insert(args.end(), f.args.begin(), f.args.end());
        if (!seek) args.push_back("--no-seek");
        const auto run = run_tool(bin(), args, g.case_dir.string());
        std::string shown;
        for (const auto& a : args) shown += a + " ";
        INFO("in " << g.case_dir.string() << ": kseg-dump " << shown << "\nstderr: " << run.err);
        CHECK(run.exit_code == 0);
        CHECK(run.err.empty());  // no seek warning on an index Kafka wrote
        const std::string want = expected(p, f.keep);
        CHECK(run.out == want);
        ++compared;
        if (run.out.size() < g.out.size()) ++cut;
        if (!seek) continue;
        // The JSON form selects the same batches and records.
        args.insert(args.end(), {"--format", "jsonl"});
        const auto json = run_tool(bin(), args, g.case_dir.string());
        CHECK(json.exit_code == 0);
        std::string want_offsets, json_offsets;
        size_t batches = 0, json_batches = 0;
        for (const Item& it : parse(want).items) {
          if (it.batch) ++batches;
          else want_offsets += std::to_string(it.offset) + " ";
        }
        std::istringstream lines(json.out);
        for (std::string line; std::getline(lines, line);) {
          const auto j = nlohmann::json::parse(line);
          if (j["type"] == "batch") ++json_batches;
          if (j["type"] == "record") json_offsets += std::to_string(j["offset"].get<int64_t>()) + " ";
        }
        CHECK(json_offsets == want_offsets);
        CHECK(json_batches == batches);
      }
    }
  }
  std::printf("filters: %zu filtered dumps equal Kafka's lines (%zu of them shorter than the whole dump)\n", compared, cut);
  CHECK(compared >= 400);
  CHECK(cut * 2 >= compared);
}

TEST_CASE("kseg-dump --key keeps Kafka's records of that key", "[golden][filter]") {
  size_t compared = 0;
  for (const Golden& g : goldens("data")) {
    const Parsed p = parse(g.out);
    if (!p.ok) continue;
    // A key that reads the same as bytes and as Kafka's printed string.
    std::optional<std::string> key;
    for (const Item& it : p.items)
      if (!it.batch && it.key && !it.key->empty() &&
          std::all_of(it.key->begin(), it.key->end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; })) {
        key = it.key;
        break;
      }
    if (!key) continue;
    auto args = g.args;
    args.insert(args.end(), {"--key", *key});
    const auto run = run_tool(bin(), args, g.case_dir.string());
    INFO("in " << g.case_dir.string() << " --key " << *key << "\nstderr: " << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out == expected(p, [&](const Item&, const Item& r) { return r.key == key; }));
    ++compared;
  }
  std::printf("filters: --key on %zu goldens\n", compared);
  CHECK(compared >= 20);
}

// The seek is real: a segment whose first entry is damaged (its size field
// zeroed, so a reader from byte 0 stops there) still prints the records past
// the first index entry, and only without --no-seek. A damaged .index is not
// followed: stderr says so and the .log is read from the start.
TEST_CASE("kseg-dump seeks with the .index and distrusts a bad one", "[filter]") {
  const fs::path src = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka" / "v2-none" / "orders-0";
  kseg::test::TempDir tmp("filter");
  const fs::path dir = tmp.root;
  fs::create_directories(dir / "orders-0");
  for (const char* f : {"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex"})
    fs::copy_file(src / f, dir / "orders-0" / f);
  const std::string log = (dir / "orders-0" / "00000000000000000000.log").string();
  const std::string index = (dir / "orders-0" / "00000000000000000000.index").string();
  // The index's last entry: where the seek lands for an offset past it.
  std::string idx = read_text(index);
  REQUIRE(idx.size() >= 16);
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(idx[at])) << 24) | (uint32_t(uint8_t(idx[at + 1])) << 16) |
           (uint32_t(uint8_t(idx[at + 2])) << 8) | uint32_t(uint8_t(idx[at + 3]));
  };
  size_t last = 0;
  while (last + 16 <= idx.size() && be32(last + 8) != 0) last += 8;
  const int64_t entry_offset = be32(last);
  REQUIRE(be32(last + 4) > 0);
  const std::string from = std::to_string(entry_offset);
  const auto whole = run_tool(bin(), {"--deep-iteration", "--from-offset", from, log}, dir.string());
  REQUIRE(whole.exit_code == 0);
  REQUIRE(whole.out.find("| offset: " + from + " ") != std::string::npos);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.write("\0\0\0\0", 4);
  }
  const auto seeking = run_tool(bin(), {"--deep-iteration", "--from-offset", from, log}, dir.string());
  CHECK(seeking.out == whole.out);
  const auto scanning = run_tool(bin(), {"--deep-iteration", "--from-offset", from, "--no-seek", log}, dir.string());
  CHECK(scanning.exit_code != 0);
  CHECK(scanning.out.find("| offset: " + from + " ") == std::string::npos);
  // An index entry pointing into the middle of a batch.
  {
    std::fstream f(index, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(last + 4));
    const uint32_t pos = be32(last + 4) + 3;
    const char b[4] = {char(pos >> 24), char(pos >> 16), char(pos >> 8), char(pos)};
    f.write(b, 4);
  }
  const auto distrust = run_tool(bin(), {"--deep-iteration", "--from-offset", from, log}, dir.string());
  CHECK(distrust.err.find("not seeking") != std::string::npos);
  CHECK(distrust.exit_code != 0);  // read from the start, so the zeroed size is found
}

TEST_CASE("kseg-dump filter options refuse what they cannot read", "[filter]") {
  const fs::path c = fs::path(KSEG_SOURCE_DIR) / "testdata" / "kafka" / "v2-none";
  const auto bad = run_tool(bin(), {"--from-time", "yesterday", "orders-0"}, c.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--from-time") != std::string::npos);
  // An ISO time and its epoch milliseconds select the same records.
  const auto iso = run_tool(bin(), {"--deep-iteration", "--from-time", "2023-11-14T22:13:20.050Z", "orders-0"}, c.string());
  const auto ms = run_tool(bin(), {"--deep-iteration", "--from-time", "1700000000050", "orders-0"}, c.string());
  CHECK(iso.exit_code == 0);
  CHECK(iso.out == ms.out);
  CHECK(!iso.out.empty());
}
