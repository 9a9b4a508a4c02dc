// SPDX-License-Identifier: Apache-2.0
#include "formats/log_batch.h"

#include <fmt/format.h>

namespace kseg {

Result<int64_t> entry_last_offset(const EntryRef& e) {
  if (e.magic < 2) return e.offset;
  auto h = v2::decode_header(e);
  if (!h.ok()) return h.error();
  return h->last_offset();
}

std::string RecordWalker::invalid_count_text(const v2::BatchHeader& h) {
  return fmt::format("invalid record count {}", h.records_count);
}

}  // namespace kseg
