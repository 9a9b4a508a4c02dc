// Big-endian appends for the state-file encoders (indexes, snapshots).
// The mirror of ByteReader's fixed-width reads; no bounds to check.
#pragma once

#include <cstdint>
#include <vector>

namespace kseg {

inline void append_be(std::vector<uint8_t>& out, uint64_t v, int width_bytes) {
  for (int i = width_bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void append_be16(std::vector<uint8_t>& out, int16_t v) { append_be(out, static_cast<uint16_t>(v), 2); }
inline void append_be32(std::vector<uint8_t>& out, uint32_t v) { append_be(out, v, 4); }
inline void append_be32(std::vector<uint8_t>& out, int32_t v) { append_be(out, static_cast<uint32_t>(v), 4); }
inline void append_be64(std::vector<uint8_t>& out, int64_t v) { append_be(out, static_cast<uint64_t>(v), 8); }

inline void store_be32_at(std::vector<uint8_t>& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * (3 - i)));
}

}  // namespace kseg
