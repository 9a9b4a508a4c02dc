// SPDX-License-Identifier: Apache-2.0
#include "lib/base64.h"

#include <cstdint>

namespace kseg {

void append_base64(std::string& out, Bytes in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (const size_t left = in.size() - i; left > 0) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (left == 2 ? uint32_t{in[i + 1]} << 8 : 0u);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
}

}  // namespace kseg
