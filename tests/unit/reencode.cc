// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/reencode.h"

#include <algorithm>

#include <fmt/format.h>

#include "formats/batch_v2.h"
#include "formats/legacy.h"
#include "formats/log_entry.h"

namespace kseg::test {

namespace {

bool same(Bytes a, Bytes b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// The records of a v2 batch and their headers, decoded; false if any fails.
bool decode_records(Bytes region, int32_t count, std::vector<v2::Record>& recs,
                    std::vector<std::vector<v2::Header>>& headers) {
  recs.clear();
  headers.clear();
  v2::RecordReader rr(region, Position{0}, count);
  v2::Record rec;
  while (rr.next(rec)) {
    recs.push_back(rec);
    auto& hs = headers.emplace_back();
    v2::HeaderReader hr(rec);
    v2::Header h;
    while (hr.next(h)) hs.push_back(h);
    if (!hr.ok()) return false;
  }
  return rr.finish().ok();
}

// Appends the re-encoded v2 batch, or returns false (nothing appended).
bool reencode_v2(const EntryRef& e, std::optional<Codec> codec, std::vector<uint8_t>& out, ReencodeStats& st,
                 size_t max) {
  auto h = v2::decode_header(e);
  if (!h.ok() || v2::compute_crc(e.bytes) != h->crc || codec_name(h->codec_id()) == nullptr) return false;
  std::vector<uint8_t> scratch;
  auto region = v2::records_bytes(e, *h, scratch, max);
  std::vector<v2::Record> recs;
  std::vector<std::vector<v2::Header>> headers;
  if (!region.ok() || !decode_records(*region, h->records_count, recs, headers)) return false;
  std::vector<uint8_t> rebuilt;
  ByteWriter w(rebuilt);
  for (size_t i = 0; i < recs.size(); ++i) {
    const v2::Record& r = recs[i];
    v2::append_record({r.attributes, r.timestamp_delta, r.offset_delta, r.key, r.value, headers[i]}, w);
  }
  const size_t start = out.size();
  const auto target = codec.value_or(static_cast<Codec>(h->codec_id()));
  if (!v2::append_batch(*h, target, rebuilt, out).ok()) return false;
  if (h->codec_id() == 0) {
    ++st.v2_plain;
    if (same(Bytes(out).subspan(start), e.bytes)) ++st.v2_plain_same;
  } else {
    ++st.v2_packed;
    if (same(rebuilt, *region)) ++st.region_same;
  }
  return true;
}

bool reencode_legacy(const EntryRef& e, std::optional<Codec> codec, std::vector<uint8_t>& out, ReencodeStats& st,
                     size_t max) {
  auto m = legacy::decode(e);
  if (!m.ok() || legacy::compute_crc(e.bytes) != m->crc) return false;
  const size_t start = out.size();
  if (m->codec_id() == 0) {
    legacy::append_message(*m, out);
    ++st.legacy_plain;
    if (same(Bytes(out).subspan(start), e.bytes)) ++st.legacy_plain_same;
    return true;
  }
  if (!m->key.null) return false;
  std::vector<uint8_t> scratch, set;
  std::vector<legacy::InnerMessage> inner;
  if (!legacy::inner_messages(*m, scratch, max, inner).ok()) return false;
  for (const auto& im : inner) {
    if (!im.crc_valid || im.message.codec_id() != 0) return false;
    legacy::append_message(im.message, set);
  }
  Codec target = static_cast<Codec>(m->codec_id());
  if (codec && *codec != Codec::zstd && *codec != Codec::none) target = *codec;
  if (!legacy::append_wrapper(*m, target, set, out).ok()) return false;
  ++st.legacy_packed;
  if (same(set, scratch)) ++st.region_same;
  return true;
}

// Hex by hand: fmt::join with a "{:02x}" spec parses it at run time, where g++ 12 at -O3 with
// assertions on warns falsely inside fmt (-Wstringop-overflow).
std::string blob(const v2::Blob& b) {
  if (b.null) return "null";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.bytes.size());
  for (uint8_t c : b.bytes) { s += kHex[c >> 4]; s += kHex[c & 15]; }
  return s;
}

}  // namespace

std::string ReencodeStats::summary() const {
  return fmt::format(
      "v2 uncompressed {} ({} byte-identical), v2 compressed {}, legacy uncompressed {} ({} byte-identical), "
      "legacy wrappers {}, compressed with identical records/inner set {}, copied unchanged {}",
      v2_plain, v2_plain_same, v2_packed, legacy_plain, legacy_plain_same, legacy_packed, region_same, copied);
}

Status reencode_log(Bytes log, std::optional<Codec> codec, std::vector<uint8_t>& out, ReencodeStats& st,
                    size_t max_decompressed) {
  out.clear();
  EntryScanner scanner(log, Position{0});
  while (auto e = scanner.next()) {
    bool rebuilt = false;
    if (e->magic == 2) rebuilt = reencode_v2(*e, codec, out, st, max_decompressed);
    else if (e->magic == 0 || e->magic == 1) rebuilt = reencode_legacy(*e, codec, out, st, max_decompressed);
    if (!rebuilt) {
      out.insert(out.end(), e->bytes.begin(), e->bytes.end());
      ++st.copied;
    }
  }
  const Bytes tail = log.subspan(static_cast<size_t>(scanner.valid_end().value));
  out.insert(out.end(), tail.begin(), tail.end());
  return {};
}

std::vector<std::string> record_lines(Bytes log, size_t max_decompressed) {
  std::vector<std::string> lines;
  EntryScanner scanner(log, Position{0});
  std::vector<uint8_t> scratch;
  while (auto e = scanner.next()) {
    const std::string raw = fmt::format("raw entry offset={} {}", e->offset, blob({e->bytes, false}));
    if (e->magic == 2) {
      auto h = v2::decode_header(*e);
      if (!h.ok() || v2::compute_crc(e->bytes) != h->crc) { lines.push_back(raw); continue; }
      auto region = v2::records_bytes(*e, *h, scratch, max_decompressed);
      std::vector<v2::Record> recs;
      std::vector<std::vector<v2::Header>> headers;
      if (!region.ok() || !decode_records(*region, h->records_count, recs, headers)) { lines.push_back(raw); continue; }
      lines.push_back(fmt::format("batch base={} epoch={} attr={} lod={} bts={} mts={} pid={} pe={} seq={} n={}",
                                  h->base_offset, h->partition_leader_epoch, h->attributes & ~0x07,
                                  h->last_offset_delta, h->base_timestamp, h->max_timestamp, h->producer_id,
                                  h->producer_epoch, h->base_sequence, h->records_count));
      for (size_t i = 0; i < recs.size(); ++i) {
        std::string hs;
        for (const auto& hd : headers[i]) hs += fmt::format("{}:{},", hd.key, blob(hd.value));
        lines.push_back(fmt::format("  record attr={} tsd={} od={} key={} value={} headers=[{}]", recs[i].attributes,
                                    recs[i].timestamp_delta, recs[i].offset_delta, blob(recs[i].key),
                                    blob(recs[i].value), hs));
      }
    } else if (e->magic == 0 || e->magic == 1) {
      auto m = legacy::decode(*e);
      if (!m.ok() || legacy::compute_crc(e->bytes) != m->crc) { lines.push_back(raw); continue; }
      auto line = [](const legacy::Message& x, bool with_value) {
        return fmt::format("message offset={} magic={} attr={} ts={} key={} value={}", x.offset, x.magic,
                           x.attributes & ~0x07, x.timestamp, blob(x.key), with_value ? blob(x.value) : "-");
      };
      if (m->codec_id() == 0) { lines.push_back(line(*m, true)); continue; }
      std::vector<legacy::InnerMessage> inner;
      if (!legacy::inner_messages(*m, scratch, max_decompressed, inner).ok()) { lines.push_back(raw); continue; }
      lines.push_back("wrapper " + line(*m, false));
      for (const auto& im : inner) lines.push_back("  inner " + line(im.message, true));
    } else {
      lines.push_back(raw);
    }
  }
  lines.push_back(fmt::format("tail {}", blob({log.subspan(static_cast<size_t>(scanner.valid_end().value)), false})));
  return lines;
}

}  // namespace kseg::test
