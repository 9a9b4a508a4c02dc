// SPDX-License-Identifier: Apache-2.0
// CRC-32 (IEEE, legacy v0/v1 messages) and CRC-32C (Castagnoli: v2 batches,
// producer snapshots). Both take a running value so large inputs can be fed
// in pieces: crc32c(b, crc32c(a)) == crc32c(a ++ b). The running value is the
// finished CRC of the bytes so far (standard init/xor-out), 0 for none.
//
//   crc32(as_bytes("123456789"))  == 0xCBF43926
//   crc32c(as_bytes("123456789")) == 0xE3069283
#pragma once

#include <cstdint>

#include "lib/byte_reader.h"

namespace kseg {

uint32_t crc32(Bytes data, uint32_t crc = 0);
uint32_t crc32c(Bytes data, uint32_t crc = 0);

// Name of the CRC-32C implementations crc32c() dispatches to on this machine:
// "isa-l", "sse4.2" or "table", after "pclmul+" when short inputs are folded.
const char* crc32c_implementation();

// The individual CRC-32C implementations, same contract as crc32c(); exposed
// so tests can check they agree. crc32c_sse42 must only be called when
// crc32c_sse42_available(); crc32c_isal only when crc32c_isal_available();
// crc32c_fold only when crc32c_fold_available().
namespace crc_detail {
uint32_t crc32_zlib(Bytes data, uint32_t crc);
uint32_t crc32c_table(Bytes data, uint32_t crc);
bool crc32c_sse42_available();
uint32_t crc32c_sse42(Bytes data, uint32_t crc);
bool crc32c_isal_available();
uint32_t crc32c_isal(Bytes data, uint32_t crc);
bool crc32c_fold_available();
uint32_t crc32c_fold(Bytes data, uint32_t crc);
}  // namespace crc_detail

}  // namespace kseg
