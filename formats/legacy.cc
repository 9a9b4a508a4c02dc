// SPDX-License-Identifier: Apache-2.0
#include "formats/legacy.h"

#include <fmt/format.h>

#include "lib/byte_writer.h"
#include "lib/checksum.h"
#include "lib/codec.h"

namespace kseg::legacy {

Result<Message> decode(const EntryRef& entry) {
  ByteReader r(entry.bytes, entry.position);
  Message m;
  m.position = entry.position;
  m.offset = r.i64();
  m.size = r.i32();
  m.crc = r.u32();
  m.magic = r.i8();
  m.attributes = r.i8();
  if (m.magic > 0) m.timestamp = r.i64();
  auto blob = [&r](v2::Blob& b) {
    const int32_t n = r.i32();
    b.null = n < 0;
    b.bytes = n < 0 ? Bytes{} : r.bytes(Length{n});
  };
  blob(m.key);
  blob(m.value);
  if (!r.ok())
    return Error{Errc::truncated, r.fail_position(),
                 fmt::format("magic {} message of size {} is shorter than its key and value lengths say", m.magic,
                             m.size)};
  return m;
}

uint32_t compute_crc(Bytes entry) {
  if (entry.size() < static_cast<size_t>(kMagicOffset)) return 0;
  return crc32(entry.subspan(static_cast<size_t>(kMagicOffset)));
}

Status inner_messages(const Message& wrapper, std::vector<uint8_t>& scratch, size_t max_decompressed,
                      std::vector<InnerMessage>& out) {
  out.clear();
  const int id = wrapper.codec_id();
  const Position value_at = wrapper.position;  // inner positions are reported relative to the wrapper
  if (id == static_cast<int>(Codec::zstd) || codec_name(id) == nullptr)
    return Status::fail(Errc::bad_codec, wrapper.position + Length{kAttributesOffset},
                        fmt::format("invalid wrapper compression type id {} for magic {}", id, wrapper.magic));
  if (wrapper.value.null)
    return Status::fail(Errc::bad_value, wrapper.position,
                        fmt::format("compressed message set with a null value (magic {})", wrapper.magic));
  CodecOptions opts;
  opts.max_output = max_decompressed;
  opts.lz4_broken_header_checksum = wrapper.magic == 0;
  KSEG_RETURN_IF_ERROR(decompress(static_cast<Codec>(id), wrapper.value.bytes, value_at, scratch, opts));

  // Inner entries: stop quietly when fewer than 12 bytes or fewer than `size`
  // bytes remain, as Kafka does; a size below 14 is corruption.
  const Bytes set{scratch};
  size_t pos = 0;
  while (set.size() - pos >= static_cast<size_t>(kLogOverhead)) {
    const int32_t size = static_cast<int32_t>(load_be32(set.data() + pos + kOffsetFieldBytes));
    if (size < kMinRecordOverhead)
      return Status::fail(Errc::bad_length, wrapper.position,
                          fmt::format("inner message at decompressed byte {} has size {} below the minimum 14", pos,
                                      size));
    if (set.size() - pos - kLogOverhead < static_cast<size_t>(size)) break;
    EntryRef e;
    e.bytes = set.subspan(pos, static_cast<size_t>(kLogOverhead + size));
    e.position = Position{static_cast<int64_t>(pos)};
    auto m = decode(e);
    if (!m.ok()) return m.status();
    if (m->codec_id() != 0)
      return Status::fail(Errc::bad_codec, wrapper.position, "inner messages must not be compressed");
    InnerMessage im;
    im.message = *m;
    im.crc_valid = compute_crc(e.bytes) == m->crc;
    out.push_back(im);
    pos += e.bytes.size();
  }
  if (out.empty())
    return Status::fail(Errc::bad_value, wrapper.position, "compressed message set with no inner messages");

  // v1: inner offsets are relative; absolute base = wrapper offset - last
  // inner offset, except that a wrapper offset of 0 keeps them as they are.
  int64_t base = 0;
  if (wrapper.magic > 0 && wrapper.offset != 0) {
    const int64_t last_inner = out.back().message.offset;
    if (wrapper.offset < last_inner)
      return Status::fail(Errc::bad_value, wrapper.position,
                          fmt::format("wrapper offset {} is less than the last inner offset {} and not zero",
                                      wrapper.offset, last_inner));
    // Java's wrapping long subtraction: a corrupt negative last_inner must not overflow.
    base = static_cast<int64_t>(static_cast<uint64_t>(wrapper.offset) - static_cast<uint64_t>(last_inner));
  }
  for (auto& im : out) {
    im.absolute_offset = wrapper.magic > 0 ? v2::wrapping_add(base, im.message.offset) : im.message.offset;
    im.timestamp_type = wrapper.timestamp_type();
    if (wrapper.magic == 0)
      im.timestamp = -1;
    else if (im.timestamp_type == v2::TimestampType::log_append_time)
      im.timestamp = wrapper.timestamp;
    else
      im.timestamp = im.message.timestamp;  // an inner v0 message reports -1
  }
  return {};
}

void append_message(const Message& m, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  ByteWriter w(out);
  w.i64(m.offset);
  w.i32(0);  // size, patched below
  w.u32(0);  // crc, patched below
  w.i8(m.magic);
  w.i8(m.attributes);
  if (m.magic > 0) w.i64(m.timestamp);
  for (const v2::Blob* b : {&m.key, &m.value}) {
    w.i32(b->size());
    if (!b->null) w.bytes(b->bytes);
  }
  w.patch_i32(start + static_cast<size_t>(kOffsetFieldBytes), static_cast<int32_t>(out.size() - start - kLogOverhead));
  w.patch_u32(start + static_cast<size_t>(kCrcOffset), compute_crc(Bytes(out).subspan(start)));
}

Status append_wrapper(const Message& wrapper, Codec codec, Bytes inner, std::vector<uint8_t>& out) {
  std::vector<uint8_t> compressed;
  CodecOptions opts;
  opts.lz4_broken_header_checksum = wrapper.magic == 0;
  KSEG_RETURN_IF_ERROR(compress(codec, inner, compressed, opts));
  Message m = wrapper;
  m.attributes = static_cast<int8_t>((wrapper.attributes & ~0x07) | static_cast<int>(codec));
  m.key = {};
  m.value = {Bytes(compressed), false};
  append_message(m, out);
  return {};
}

}  // namespace kseg::legacy
