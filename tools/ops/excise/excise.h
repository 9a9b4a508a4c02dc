// SPDX-License-Identifier: Apache-2.0
// kseg-excise: chosen records removed from a partition in place, every other
// record at its offset. A v2 batch holding a chosen record is rebuilt as
// Kafka's cleaner rebuilds the batches it filters (formats/kept_records.h:
// the same base offset, last offset delta, producer id, epoch and base
// sequence, leader epoch and codec), and kept, empty, when every record
// goes, so that producer state and transactions read as before; control
// batches are never touched; every other batch is copied byte for byte. An
// uncompressed v0/v1 message chosen is dropped whole (it is its own entry).
// The rewritten segment's .index and .timeindex are rebuilt as Kafka's
// recovery writes them; everything goes through the safe-write protocol.
// The same input bytes give the same output bytes, so the replicas of a
// partition excised alike stay alike. See man/kseg-excise.1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/ops/write/writer_run.h"

namespace kseg {

class Sink;

// Which records go: every given selector must match (an AND). A record
// without a key matches no key selector; one without the header, no header
// selector.
struct ExciseSelectors {
  std::vector<std::pair<int64_t, int64_t>> offsets;  // inclusive ranges; any of them
  std::optional<std::string> key_regex;              // ECMAScript, searched in the key's bytes
  std::optional<std::string> key;                    // the key exactly (--key-hex)
  std::optional<std::string> header_name;            // a header of this name
  std::optional<std::string> header_regex;           // whose value matches this
  std::optional<int64_t> producer_id;
  std::optional<std::string> value_contains;         // bytes the value holds
  std::optional<int64_t> from_time, to_time;         // record timestamps, inclusive
  bool any() const {
    return !offsets.empty() || key_regex || key || header_name || producer_id || value_contains || from_time ||
           to_time;
  }
};

// A --key or --header regular expression (ECMAScript), searched in bytes. One that is only
// literal text, anchored or not (^user-42$, the usual erasure by key), is compared as text:
// std::regex took two thirds of a run that decompressed and matched every record.
class ExcisePattern {
 public:
  explicit ExcisePattern(const std::string& regex);  // throws std::regex_error
  bool search(std::string_view text) const;
  bool literal() const { return !re_.has_value(); }

 private:
  std::optional<std::regex> re_;
  std::string text_;            // the literal, unescaped
  bool head_ = false, tail_ = false;  // anchored with ^, with $
};

struct ExciseOptions : WriterOptions {
  ExciseSelectors select;
  std::string topic_config;   // a properties file (index.interval.bytes, segment.index.bytes)
  std::string broker_config;  // server.properties
  bool digest = false;        // print a digest of the partition's .log files after the run
  size_t max_listed = 10000;  // records listed per partition (all are counted)
  // The terminal's question comes between a listing run and the run that writes, each with the
  // lock: the listing fills `shown` (partition -> a fingerprint of every record chosen), and the
  // run that writes, given `shown`, refuses a partition whose chosen records are not those.
  std::map<std::string, std::string>* shown = nullptr;
};

// Runs a whole excise; returns the exit code.
int run_excise(const ExciseOptions& options, Sink& out, Sink& err);

}  // namespace kseg
