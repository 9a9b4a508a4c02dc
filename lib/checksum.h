// CRC-32 (IEEE, legacy v0/v1 messages) and CRC-32C (Castagnoli: v2 batches,
// producer snapshots). Both take a running value so large inputs can be fed
// in pieces: crc32c(b, crc32c(a)) == crc32c(a ++ b).
#pragma once

#include <cstdint>

#include "lib/byte_reader.h"

namespace kseg {

uint32_t crc32(Bytes data, uint32_t crc = 0);
uint32_t crc32c(Bytes data, uint32_t crc = 0);

}  // namespace kseg
