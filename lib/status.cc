// SPDX-License-Identifier: Apache-2.0
#include "lib/status.h"

namespace kseg {

const char* errc_name(Errc c) {
  switch (c) {
    case Errc::ok: return "ok";
    case Errc::truncated: return "truncated";
    case Errc::bad_length: return "bad_length";
    case Errc::bad_magic: return "bad_magic";
    case Errc::bad_crc: return "bad_crc";
    case Errc::bad_codec: return "bad_codec";
    case Errc::decompress: return "decompress";
    case Errc::too_large: return "too_large";
    case Errc::bad_varint: return "bad_varint";
    case Errc::bad_value: return "bad_value";
    case Errc::trailing_bytes: return "trailing_bytes";
    case Errc::io: return "io";
    case Errc::usage: return "usage";
    case Errc::refused: return "refused";
    case Errc::unsupported: return "unsupported";
    case Errc::internal: return "internal";
  }
  return "unknown";
}

}  // namespace kseg
