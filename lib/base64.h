// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648's alphabet, padded): Java's Base64.getEncoder(),
// and so what Jackson writes for a binary node. Kafka's Uuid text is the
// URL-safe alphabet without padding (formats/kafka_uuid.h).
#pragma once

#include <string>

#include "lib/byte_reader.h"

namespace kseg {

void append_base64(std::string& out, Bytes bytes);

}  // namespace kseg
