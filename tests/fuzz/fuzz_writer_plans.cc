// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the writers' planners over a mutated partition: the input
// replaces one state file of a private copy of a small corpus partition
// (v2-none/orders-0 with its log dir's checkpoints): an .index, a
// .timeindex, a producer .snapshot, the leader-epoch-checkpoint, a root
// checkpoint, the truncate journal, partition.metadata. Then kseg-truncate
// plans each kind of cut (plan_truncate, as --dry-run does) and kseg-compact
// loads the partition and plans a round (dry run). Every planner must return:
// a refusal or an error is fine, a crash is not. The file is put back after
// each input, so the partition is the same for the next.
//
//   byte 0   which file (see kFiles)
//   byte 1   the cut: an offset, a time step, a size
//   rest     the file's new bytes
//
// The last selector instead parses the bytes as a config file
// (formats/properties.h) and reads every value as a whole number.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "formats/properties.h"
#include "tools/ops/compact/compact_config.h"
#include "tools/ops/compact/compact_round.h"
#include "tools/ops/truncate/truncate.h"

using namespace kseg;
namespace fs = std::filesystem;

namespace {

// Relative to the partition directory.
constexpr const char* kFiles[] = {
    "00000000000000000000.index",           "00000000000000000088.index",
    "00000000000000000259.index",           "00000000000000000000.timeindex",
    "00000000000000000171.timeindex",       "00000000000000000171.snapshot",
    "00000000000000000272.snapshot",        "leader-epoch-checkpoint",
    "../recovery-point-offset-checkpoint",  "../replication-offset-checkpoint",
    "../log-start-offset-checkpoint",       "../cleaner-offset-checkpoint",
    "truncate.kseg-journal",                "partition.metadata",
};
constexpr size_t kSelectors = std::size(kFiles) + 1;  // + the config file parser

struct Scratch {
  fs::path root, dir;
  Scratch() {
    root = fs::temp_directory_path() / ("kseg-fuzz-writer-plans-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    dir = root / "orders-0";
    fs::copy(std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/v2-none/orders-0", dir, fs::copy_options::recursive);
    for (const char* name : {"recovery-point-offset-checkpoint", "replication-offset-checkpoint"})
      std::ofstream(root / name) << "0\n1\norders 0 272\n";
    std::ofstream(root / "log-start-offset-checkpoint") << "0\n1\norders 0 0\n";
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

std::optional<std::string> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void put(const fs::path& p, const std::optional<std::string>& bytes) {
  std::error_code ec;
  if (!bytes) {
    fs::remove(p, ec);
    return;
  }
  std::ofstream(p, std::ios::binary | std::ios::trunc) << *bytes;
}

void plan_cuts(const std::string& dir, uint8_t knob) {
  TruncateOptions o;
  o.dry_run = true;
  o.now_ms = 1800000000000;
  const auto plan = [&](TruncateMode mode, int64_t value) {
    o.mode = mode;
    o.value = value;
    (void)plan_truncate(dir, o);
  };
  plan(TruncateMode::to_offset, knob);
  plan(TruncateMode::to_offset, knob + 100);
  plan(TruncateMode::to_time, 0);
  plan(TruncateMode::to_time, int64_t{knob} * 10'000'000'000);
  plan(TruncateMode::log_start, knob);
  plan(TruncateMode::full, knob);
  o.retention_bytes = int64_t{knob} * 100;
  plan(TruncateMode::retention, 0);
  o.retention_bytes.reset();
  o.retention_ms = knob;
  plan(TruncateMode::retention, 0);
}

void plan_round(const std::string& dir) {
  std::vector<Problem> notes;
  auto p = compact::load(dir, nullptr, notes);
  if (!p.ok()) return;
  CompactOptions o;
  o.dry_run = true;
  o.overrides.emplace_back("offset.map.bytes", "65536");  // a small map: cheap, and rounds that fill it
  auto s = compact::resolve(o, p->topic, p->log_dir);
  if (!s.ok()) return;
  compact::RoundOptions r;
  r.now_ms = 1800000000000;
  r.dry_run = true;
  (void)compact::clean_round(*p, *s, r);
}

void parse_config(std::string_view text) {
  auto props = properties::parse(text);
  if (!props.ok()) return;
  for (const auto& [key, value] : props->entries) {
    (void)properties::parse_number(properties::trim(value), INT64_MIN, INT64_MAX);
    (void)properties::parse_number(value, 0, INT32_MAX);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t which = data[0] % kSelectors;
  const std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  if (which == std::size(kFiles)) {
    parse_config(bytes);
    return 0;
  }
  Scratch& s = scratch();
  const fs::path file = s.dir / kFiles[which];
  const auto original = slurp(file);
  put(file, bytes);
  plan_cuts(s.dir.string(), data[1]);
  plan_round(s.dir.string());
  put(file, original);
  return 0;
}
