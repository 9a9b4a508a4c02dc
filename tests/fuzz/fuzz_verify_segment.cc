// SPDX-License-Identifier: Apache-2.0
// Fuzz target for kseg-verify's checks of one segment with its indexes: the
// batch scan, the .index and .timeindex checks that follow the batches, the
// producer and epoch replay. The input is a partition of one segment:
//
//   bytes 0..3  length L of the .log (little-endian, taken mod the rest)
//   bytes 4..7  length I of the .index (the same)
//   then the .log, the .index, and the rest is the .timeindex
//
// The files are written to a temporary partition directory and checked as
// a partition (quick, deep, and cut by --max-bytes) and each index alone.
// Every run must return (never crash, never read out of bounds) and report
// each problem with a code from the catalogue. Seeds are Kafka-written
// segments of the corpus with their indexes.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/ops/verify/verify_partition.h"

using namespace kseg;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// A partition directory for the whole process, removed at exit.
struct TempPartition {
  std::string root, dir;
  TempPartition() {
    char tmpl[] = "/tmp/kseg-fuzz-verify-XXXXXX";
    check(mkdtemp(tmpl) != nullptr);
    root = tmpl;
    dir = root + "/orders-0";
    std::filesystem::create_directory(dir);
  }
  ~TempPartition() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
};

const std::string& partition_dir() {
  static const TempPartition t;
  return t.dir;
}

void write(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  check(out.good());
}

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }

void run(const Target& t, const LogCheckOptions& opts) {
  TargetResult r;
  r.target = t;
  if (t.kind == Target::partition) verify_partition(opts, r);
  else verify_single_file(opts, r);
  for (const auto& p : r.findings.problems) check(code_info(p.code).id == p.code);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  size_t rest = size - 8;
  const size_t log_len = rest == 0 ? 0 : le32(data) % (rest + 1);
  rest -= log_len;
  const size_t index_len = rest == 0 ? 0 : le32(data + 4) % (rest + 1);
  const uint8_t* p = data + 8;
  const std::string base = partition_dir() + "/00000000000000000000";
  write(base + ".log", p, log_len);
  write(base + ".index", p + log_len, index_len);
  write(base + ".timeindex", p + log_len + index_len, rest - index_len);
  for (auto depth : {VerifyDepth::quick, VerifyDepth::deep}) {
    LogCheckOptions opts;
    opts.depth = depth;
    opts.max_decompressed_bytes = 1 << 20;
    run({Target::partition, partition_dir()}, opts);
  }
  LogCheckOptions opts;
  opts.max_bytes = static_cast<int64_t>(log_len / 2) + 1;  // a --max-bytes cut
  run({Target::partition, partition_dir()}, opts);
  run({Target::file, base + ".index"}, LogCheckOptions{});
  run({Target::file, base + ".timeindex"}, LogCheckOptions{});
  return 0;
}
