// SPDX-License-Identifier: Apache-2.0
// XXH32 (xxHash, 32-bit), as used by Kafka's LZ4 frame for the frame
// descriptor checksum and optional block checksums.
//   xxh32("", 0) == 0x02CC5D05, xxh32("abc", 0) == 0x32D153FF
#pragma once

#include <cstdint>

#include "lib/byte_reader.h"

namespace kseg {

uint32_t xxh32(Bytes data, uint32_t seed = 0);

}  // namespace kseg
