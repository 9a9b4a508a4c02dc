// Magic-independent questions about one entry of a segment file: what is its
// last offset, and what are its records' offsets and timestamps. A legacy
// entry is a "batch" of one message, or of a compressed wrapper's inner
// messages; a v2 entry is a record batch.
#pragma once

#include <functional>
#include <vector>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"

namespace kseg {

// Kafka's RecordBatch.lastOffset(): base + lastOffsetDelta (v2), the
// message offset (legacy; for a wrapper, the offset of its last inner message).
Result<int64_t> entry_last_offset(const EntryRef& e);

struct RecordStamp {
  int64_t offset = 0;
  int64_t timestamp = -1;
};

// Calls `fn` for each record (deep iteration), with Kafka's offset and timestamp.
class RecordWalker {
 public:
  explicit RecordWalker(size_t max_decompressed) : max_(max_decompressed) {}
  Status walk(const EntryRef& e, const std::function<void(const RecordStamp&)>& fn);

 private:
  size_t max_;
  std::vector<uint8_t> scratch_;
  std::vector<legacy::InnerMessage> inner_;
};

}  // namespace kseg
