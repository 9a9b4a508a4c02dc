// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/support/partition_builder.h"

#include <stdexcept>

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/control.h"
#include "formats/legacy.h"
#include "lib/byte_writer.h"
#include "tests/unit/support/scratch.h"

namespace kseg::test {

namespace fs = std::filesystem;

namespace {

Bytes bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

void check(const Status& st) {
  if (!st.ok()) throw std::runtime_error("PartitionBuilder: " + st.error().message);
}

}  // namespace

PartitionBuilder::PartitionBuilder(fs::path dir) : dir_(std::move(dir)) {
  fs::create_directories(dir_);
  segments_.push_back({});
}

PartitionBuilder& PartitionBuilder::batch(const Batch& b) {
  if (b.records < 1) throw std::invalid_argument("PartitionBuilder: a batch holds at least one record");
  const int64_t ts = b.timestamp.value_or(next_timestamp_);
  std::vector<std::string> keys, values;
  for (int i = 0; i < b.records; ++i) {
    keys.push_back(b.key.empty() ? "" : fmt::format("{}-{}", b.key, next_ + i));
    values.push_back(fmt::format("value-{}", next_ + i));
  }
  auto key_blob = [&](int i) { return v2::Blob{bytes_of(keys[i]), b.key.empty()}; };
  Segment& seg = segments_.back();
  seg.positions.push_back(seg.bytes.size());
  if (b.magic == 2) {
    std::vector<uint8_t> records;
    ByteWriter w(records);
    for (int i = 0; i < b.records; ++i)
      v2::append_record({0, i, i, key_blob(i), {bytes_of(values[i]), false}, {}}, w);
    v2::BatchHeader h;
    h.base_offset = next_;
    h.partition_leader_epoch = b.leader_epoch;
    h.magic = 2;
    h.attributes = b.transactional ? 0x10 : 0;
    h.last_offset_delta = b.records - 1;
    h.base_timestamp = ts;
    h.max_timestamp = ts + b.records - 1;
    h.producer_id = b.producer_id;
    h.producer_epoch = b.producer_id < 0 ? int16_t{-1} : b.producer_epoch;
    h.base_sequence = -1;
    if (b.producer_id >= 0) {
      int32_t& next_seq = sequences_[b.producer_id];
      h.base_sequence = b.base_sequence.value_or(next_seq);
      next_seq = h.base_sequence + b.records;
    }
    h.records_count = b.records;
    check(v2::append_batch(h, b.codec, records, seg.bytes));
  } else {
    // Legacy: a message a record; compressed, one wrapper whose offset is
    // the last inner one (inner offsets relative for v1, absolute for v0).
    const bool wrapped = b.codec != Codec::none;
    std::vector<uint8_t> set;
    for (int i = 0; i < b.records; ++i) {
      legacy::Message m;
      m.offset = wrapped && b.magic == 1 ? i : next_ + i;
      m.magic = b.magic;
      m.timestamp = b.magic == 0 ? -1 : ts + i;
      m.key = key_blob(i);
      m.value = {bytes_of(values[i]), false};
      legacy::append_message(m, wrapped ? set : seg.bytes);
      if (!wrapped && i + 1 < b.records) seg.positions.push_back(seg.bytes.size());
    }
    if (wrapped) {
      legacy::Message wrapper;
      wrapper.offset = next_ + b.records - 1;
      wrapper.magic = b.magic;
      wrapper.timestamp = b.magic == 0 ? -1 : ts + b.records - 1;
      check(legacy::append_wrapper(wrapper, b.codec, set, seg.bytes));
    }
  }
  next_ += b.records;
  next_timestamp_ = ts + b.records;
  return *this;
}

PartitionBuilder& PartitionBuilder::batches(int n, const Batch& b) {
  for (int i = 0; i < n; ++i) batch(b);
  return *this;
}

PartitionBuilder& PartitionBuilder::marker(bool commit, int64_t producer_id, int16_t producer_epoch,
                                           int32_t coordinator_epoch) {
  const auto key = control::encode_key({0, static_cast<int16_t>(commit ? control::Type::commit : control::Type::abort)});
  const auto value = control::encode_end_txn_marker({0, coordinator_epoch});
  std::vector<uint8_t> records;
  ByteWriter w(records);
  v2::append_record({0, 0, 0, {key, false}, {value, false}, {}}, w);
  v2::BatchHeader h;
  h.base_offset = next_;
  h.magic = 2;
  h.attributes = 0x10 | 0x20;  // transactional, control
  h.base_timestamp = h.max_timestamp = next_timestamp_;
  h.producer_id = producer_id;
  h.producer_epoch = producer_epoch;
  h.base_sequence = -1;
  h.records_count = 1;
  Segment& seg = segments_.back();
  seg.positions.push_back(seg.bytes.size());
  check(v2::append_batch(h, Codec::none, records, seg.bytes));
  ++next_;
  ++next_timestamp_;
  return *this;
}

PartitionBuilder& PartitionBuilder::skip(int64_t offsets) {
  next_ += offsets;
  return *this;
}

PartitionBuilder& PartitionBuilder::roll() {
  if (segments_.back().bytes.empty()) segments_.back().base = next_;  // nothing in it yet: re-based
  else segments_.push_back({next_, {}, {}});
  return *this;
}

PartitionBuilder& PartitionBuilder::raw(std::span<const uint8_t> bytes) {
  Segment& seg = segments_.back();
  seg.bytes.insert(seg.bytes.end(), bytes.begin(), bytes.end());
  return *this;
}

std::vector<fs::path> PartitionBuilder::write() const {
  std::vector<fs::path> out;
  for (const auto& s : segments_) {
    out.push_back(dir_ / fmt::format("{:020}.log", s.base));
    write_bytes(out.back(), s.bytes);
  }
  return out;
}

}  // namespace kseg::test
