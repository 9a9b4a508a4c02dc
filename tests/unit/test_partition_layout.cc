// SPDX-License-Identifier: Apache-2.0
// classify_partition: the names of a partition directory as LogLoader reads
// them, in one place for verify and reindex.
#include <catch2/catch.hpp>

#include "formats/partition_layout.h"

using namespace kseg;
using file_names::FileKind;

TEST_CASE("classify_partition sorts a directory's names as Kafka's loader does", "[layout]") {
  const auto l = classify_partition({"00000000000000000100.log", "00000000000000000100.index", "partition.metadata",
                                     "00000000000000000000.timeindex", "00000000000000000000.log", "leader-epoch-checkpoint",
                                     "00000000000000000100.snapshot", "00000000000000000050.index",
                                     "00000000000000000000.log.swap", "00000000000000000100.log.deleted", "x.tmp",
                                     "77.log", "notes.txt", "00000000000000000200-0000000003.checkpoint",
                                     "00000000000000000300-0000000003.checkpoint.part"});
  REQUIRE(l.segments.size() == 3);  // 0, 77 and 100; 50 has no .log
  auto it = l.segments.begin();
  CHECK(it->first == Offset{0});
  CHECK(it->second.has(FileKind::log));
  CHECK(it->second.has(FileKind::timeindex));
  CHECK_FALSE(it->second.has(FileKind::index));
  ++it;
  CHECK(it->first == Offset{77});
  CHECK_FALSE(it->second.canonical);
  ++it;
  CHECK(it->first == Offset{100});
  CHECK(it->second.canonical);
  CHECK(it->second.names.at(FileKind::index) == "00000000000000000100.index");
  REQUIRE(l.snapshots.size() == 1);
  CHECK(l.snapshots[0].first == Offset{100});
  CHECK(l.kraft_snapshots == std::vector<std::string>{"00000000000000000200-0000000003.checkpoint"});
  CHECK(l.odd_prefixes == std::vector<std::string>{"77.log"});
  std::map<Leftover::Kind, std::string> left;
  for (const auto& o : l.leftovers) left[o.kind] = o.name;
  CHECK(left.size() == 6);
  CHECK(left[Leftover::swap] == "00000000000000000000.log.swap");
  CHECK(left[Leftover::deleted] == "00000000000000000100.log.deleted");
  CHECK(left[Leftover::tmp] == "x.tmp");
  CHECK(left[Leftover::unknown] == "notes.txt");
  CHECK(left[Leftover::kraft_partial] == "00000000000000000300-0000000003.checkpoint.part");
  CHECK(left[Leftover::orphan_index] == "00000000000000000050.index");
}
