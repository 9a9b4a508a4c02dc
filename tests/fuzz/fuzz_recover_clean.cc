// SPDX-License-Identifier: Apache-2.0
// Differential fuzz target for kseg-reindex's block path against
// recover_segment over the whole bytes: recover::CleanRecovery fed a .log in
// windows, and recover_clean reading it from a file in blocks on 1-4
// threads. The input:
//
//   bytes 0..1  block size - 1 (little-endian, mod 8192)
//   byte  2     bit 0: base offset = the first entry's offset (else 0);
//               bit 1: room for 12 index entries only (capacity failures);
//               bit 2: checksums fixed first, so that changed bytes inside
//               entries reach the rules after the CRC (offsets, markers);
//               bits 3-4: recover_clean's threads - 1
//   byte  3     index.interval.bytes / 64
//   the rest    the .log
//
// Both must succeed exactly when recover_segment finds every byte valid, and
// then return the same result; on anything else they must give up. Each
// window fed is a copy freed after its feed, as a block is reused, so under
// ASan a read outside the window or of an earlier one fails. Seeds are
// Kafka-written segments of testdata/kafka with that 4-byte prefix.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "formats/batch_v2.h"
#include "lib/byte_writer.h"
#include "formats/legacy.h"
#include "formats/segment_recover.h"
#include "lib/byte_reader.h"
#include "lib/mapped_file.h"
#include "tools/ops/reindex/reindex.h"

using namespace kseg;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// Sets the stored CRC of every entry the scanner reaches to its bytes' CRC.
void fix_crcs(std::vector<uint8_t>& log) {
  EntryScanner scanner(Bytes(log.data(), log.size()), Position{0});
  ByteWriter w(log);
  while (auto e = scanner.next()) {
    const auto at = static_cast<size_t>(e->position.value);
    if (e->magic == 2)
      w.patch_u32(at + v2::kCrcOffset, v2::compute_crc(e->bytes));
    else if (e->magic == 0 || e->magic == 1)
      w.patch_u32(at + legacy::kCrcOffset, legacy::compute_crc(e->bytes));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t block = 1 + (data[0] | data[1] << 8) % 8192;
  recover::Config config;
  config.index_interval_bytes = data[3] * 64;
  if (data[2] & 2) config.segment_index_bytes = 12 * 12;
  std::vector<uint8_t> bytes(data + 4, data + size);
  if (data[2] & 4) fix_crcs(bytes);
  const Bytes log(bytes.data(), bytes.size());
  const Offset base{(data[2] & 1) && log.size() >= 8 ? static_cast<int64_t>(load_be64(log.data())) : 0};

  // What recover_clean does with a file's blocks: each window is the untaken
  // rest of the previous one followed by the next block.
  recover::CleanRecovery clean(base, config);
  std::optional<recover::SegmentRecovery> got;
  size_t taken = 0;
  for (size_t block_end = 0; block_end < log.size();) {
    block_end = std::min(log.size(), block_end + block);
    const std::vector<uint8_t> window(log.begin() + static_cast<std::ptrdiff_t>(taken),
                                      log.begin() + static_cast<std::ptrdiff_t>(block_end));
    auto used = clean.feed(Bytes(window.data(), window.size()), Position{static_cast<int64_t>(taken)});
    if (!used) break;
    check(*used <= window.size());
    taken += *used;
    if (block_end == log.size() && taken == log.size())
      got = clean.finish(Length{static_cast<int64_t>(log.size())});
  }
  if (log.empty()) got = clean.finish(Length{0});

  auto want = recover::recover_segment(log, base, config);
  const bool all_valid = want.ok() && want->stop == SegmentEnd::clean;
  check(got.has_value() == all_valid);
  check(!got || *got == *want);

  // recover_clean reads a file: an anonymous one in memory.
  const int fd = memfd_create("fuzz_recover_clean", MFD_CLOEXEC);
  check(fd >= 0);
  check(write(fd, log.data(), log.size()) == static_cast<ssize_t>(log.size()));
  auto file = MappedFile::open(fmt::format("/proc/self/fd/{}", fd));
  close(fd);
  check(file.ok());
  config.threads = 1 + ((data[2] >> 3) & 3);
  auto read = recover_clean(*file, base, config, block);
  check(read.has_value() == all_valid);
  check(!read || *read == *want);
  return 0;
}
