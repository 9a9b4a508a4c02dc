// SPDX-License-Identifier: Apache-2.0
// kseg-info: one screen per partition and log dir, from batch headers alone:
// segments, offsets and time ranges, bytes, records, codecs, producers and
// open transactions (as Kafka's loader rebuilds producer state), index
// health by Kafka's own sanity checks, the end of each log as the scanner
// finds it, leftovers. Text or one streamed JSON document
// (formats/kseg-info.schema.json). Reads only. See man/kseg-info.1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/batch_v2.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

class Sink;

struct InfoOptions : PartitionSelection {
  bool json = false;
  bool json_lines = false;  // with json: a document per partition and per log dir, one line each
  bool iso_time = false;  // timestamps >= 0 as ISO 8601 strings (text and JSON)
  bool progress = false;  // the progress line on stderr (Progress::wanted)
  // Legacy compressed wrappers are decompressed to count their inner
  // messages; a wrapper whose set is larger is counted as unreadable.
  size_t max_decompressed_bytes = v2::kDefaultMaxDecompressed;
};

// Exit 0: read; 2: usage; 3: a path missing, unreadable or holding no partition.
int run_info(const InfoOptions& options, Sink& out, Sink& err);

}  // namespace kseg
