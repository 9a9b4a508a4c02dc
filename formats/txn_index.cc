// SPDX-License-Identifier: Apache-2.0
#include "formats/txn_index.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"

namespace kseg::txn_index {

std::string to_kafka_string(const AbortedTxn& txn) {
  return fmt::format("AbortedTxn(producerId={}, firstOffset={}, lastOffset={}, lastStableOffset={})",
                     txn.producer_id, txn.first_offset, txn.last_offset, txn.last_stable_offset);
}

AbortedTxn View::entry(int64_t i) const {
  const uint8_t* p = data_.data() + i * kEntrySize;
  return {static_cast<int16_t>(load_be16(p)), static_cast<int64_t>(load_be64(p + kProducerIdOffset)),
          static_cast<int64_t>(load_be64(p + kFirstOffsetOffset)),
          static_cast<int64_t>(load_be64(p + kLastOffsetOffset)),
          static_cast<int64_t>(load_be64(p + kLastStableOffsetOffset))};
}

Status check_version(const View& index, int64_t i, std::string_view file_path) {
  const int16_t version = index.entry(i).version;
  if (version == kCurrentVersion) return {};
  return Status::fail(Errc::bad_magic, index.entry_position(i),
                      fmt::format("Unexpected aborted transaction version {} in transaction index {}, supported "
                                  "version range is {} to {}",
                                  version, file_path, kCurrentVersion, kCurrentVersion));
}

Result<std::vector<AbortedTxn>> decode(const View& index, std::string_view file_path) {
  std::vector<AbortedTxn> out;
  out.reserve(static_cast<size_t>(index.entry_count()));
  for (int64_t i = 0; i < index.entry_count(); ++i) {
    KSEG_RETURN_IF_ERROR(check_version(index, i, file_path));
    out.push_back(index.entry(i));
  }
  return out;
}

Status sanity_check(const View& index, Offset base_offset, std::string_view file_path) {
  for (int64_t i = 0; i < index.entry_count(); ++i) {
    KSEG_RETURN_IF_ERROR(check_version(index, i, file_path));
    const AbortedTxn txn = index.entry(i);
    if (txn.last_offset < base_offset.value)
      return Status::fail(Errc::bad_value, index.entry_position(i) + Length{kLastOffsetOffset},
                          fmt::format("Last offset of aborted transaction {} in index {} is less than start "
                                      "offset {}",
                                      to_kafka_string(txn), file_path, base_offset));
  }
  return {};
}

Status validate_entries(const View& index) {
  for (int64_t i = 0; i < index.entry_count(); ++i) {
    const AbortedTxn txn = index.entry(i);
    const Position at = index.entry_position(i);
    if (txn.first_offset > txn.last_offset)
      return Status::fail(Errc::bad_value, at + Length{kFirstOffsetOffset},
                          fmt::format("aborted transaction {}: firstOffset {} is greater than lastOffset {}", i,
                                      txn.first_offset, txn.last_offset));
    if (i > 0 && txn.last_offset <= index.entry(i - 1).last_offset)
      return Status::fail(Errc::bad_value, at + Length{kLastOffsetOffset},
                          fmt::format("aborted transaction {}: lastOffset {} is not greater than the previous "
                                      "entry's {}",
                                      i, txn.last_offset, index.entry(i - 1).last_offset));
  }
  if (index.trailing_bytes().bytes != 0)
    return Status::fail(Errc::trailing_bytes, index.entry_position(index.entry_count()),
                        fmt::format("{} bytes after the last whole {}-byte entry (Kafka ignores them, but appends "
                                    "after them misaligned)",
                                    index.trailing_bytes(), kEntrySize));
  return {};
}

void append_entry(std::vector<uint8_t>& out, const AbortedTxn& txn) {
  ByteWriter w(out);
  w.i16(txn.version);
  w.i64(txn.producer_id);
  w.i64(txn.first_offset);
  w.i64(txn.last_offset);
  w.i64(txn.last_stable_offset);
}

std::vector<uint8_t> encode(std::span<const AbortedTxn> txns) { return encode_entries(txns, kEntrySize, append_entry); }

}  // namespace kseg::txn_index
