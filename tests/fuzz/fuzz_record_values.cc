// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the decoders of internal topics' record values, which read
// Kafka's generated-message encoding: the input is one __remote_log_metadata
// value. It must decode or fail with a message, never crash or read out of
// bounds, and a value that decodes must print as one of the four objects;
// the tagged fields it does not name hold no more bytes than the value.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "formats/remote_log_metadata.h"

using namespace kseg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schema::UnknownTags unknown;
  auto text = remote_log_metadata::describe(Bytes(data, size), &unknown);
  if (text.ok()) {
    const std::string_view s = *text;
    if (!s.starts_with("RemoteLogSegmentMetadata") && !s.starts_with("RemotePartitionDeleteMetadata{")) std::abort();
    size_t held = 0;
    for (const auto& t : unknown.kept) held += t.bytes.size();
    if (held > size || unknown.kept.size() != unknown.count) std::abort();
  } else if (text.error().message.empty()) {
    std::abort();
  }
  return 0;
}
