// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "formats/file_names.h"

using namespace kseg;
namespace fnm = kseg::file_names;

TEST_CASE("file names: segment files", "[formats]") {
  CHECK(fnm::offset_prefix(Offset{0}) == "00000000000000000000");
  CHECK(fnm::offset_prefix(Offset{123}) == "00000000000000000123");
  CHECK(fnm::offset_prefix(Offset{INT64_MAX}) == "09223372036854775807");
  CHECK(fnm::segment_file_name(Offset{123}, fnm::FileKind::timeindex) == "00000000000000000123.timeindex");
  CHECK(fnm::segment_file_name(Offset{5}, fnm::FileKind::log, fnm::TransientSuffix::swap) ==
        "00000000000000000005.log.swap");
  for (auto kind : {fnm::FileKind::log, fnm::FileKind::index, fnm::FileKind::timeindex, fnm::FileKind::txnindex,
                    fnm::FileKind::snapshot})
    for (auto t : {fnm::TransientSuffix::none, fnm::TransientSuffix::deleted, fnm::TransientSuffix::cleaned,
                   fnm::TransientSuffix::swap}) {
      auto p = fnm::parse_segment_file_name(fnm::segment_file_name(Offset{987654321}, kind, t));
      REQUIRE(p.ok());
      CHECK(p->offset == Offset{987654321});
      CHECK(p->kind == kind);
      CHECK(p->transient == t);
      CHECK(p->canonical_prefix);
    }
  auto odd = fnm::parse_segment_file_name("123.log");  // Kafka parses it, not canonical
  REQUIRE(odd.ok());
  CHECK(odd->offset == Offset{123});
  CHECK(!odd->canonical_prefix);
  CHECK(fnm::parse_segment_file_name("00000000000000000000.foo")->kind == fnm::FileKind::unknown);
  CHECK(!fnm::parse_segment_file_name("leader-epoch-checkpoint").ok());
  CHECK(!fnm::parse_segment_file_name("abc.log").ok());
  CHECK(!fnm::offset_from_file_name("99999999999999999999.log").ok());
}

TEST_CASE("file names: partition directories", "[formats]") {
  auto p = fnm::parse_partition_dir_name("orders-3");
  REQUIRE(p.ok());
  CHECK(p->topic == "orders");
  CHECK(p->partition == 3);
  CHECK(p->kind == fnm::DirKind::partition);
  p = fnm::parse_partition_dir_name("my-topic-12");
  CHECK(p->topic == "my-topic");
  CHECK(p->partition == 12);
  p = fnm::parse_partition_dir_name("a.b-0.0123456789abcdef0123456789abcdef-delete");
  REQUIRE(p.ok());
  CHECK(p->topic == "a.b");
  CHECK(p->partition == 0);
  CHECK(p->kind == fnm::DirKind::deleting);
  CHECK(p->unique_id == "0123456789abcdef0123456789abcdef");
  CHECK(fnm::parse_partition_dir_name("t-1.abc-future")->kind == fnm::DirKind::future);
  CHECK(fnm::parse_partition_dir_name("t-1.abc-stray")->kind == fnm::DirKind::stray);
  CHECK(!fnm::parse_partition_dir_name("noDash").ok());
  CHECK(!fnm::parse_partition_dir_name("-3").ok());
  CHECK(!fnm::parse_partition_dir_name("t-").ok());
  CHECK(!fnm::parse_partition_dir_name("t-x").ok());
  CHECK(!fnm::parse_partition_dir_name("t-1-delete").ok());  // no uniqueId
  CHECK(!fnm::parse_partition_dir_name("remote-log-index-cache").ok());
  CHECK(fnm::partition_dir_name("orders", 3) == "orders-3");
}

TEST_CASE("file names: KRaft snapshots", "[formats]") {
  const std::string name = fnm::kraft_snapshot_name(Offset{42}, 7);
  CHECK(name == "00000000000000000042-0000000007.checkpoint");
  auto k = fnm::parse_kraft_snapshot_name(name);
  REQUIRE(k.ok());
  CHECK(k->end_offset == Offset{42});
  CHECK(k->epoch == 7);
  CHECK(fnm::parse_kraft_snapshot_name(name + ".deleted")->state == fnm::SnapshotState::deleted);
  CHECK(fnm::parse_kraft_snapshot_name("00000000000000000042-0000000007-1234.checkpoint.part")->state ==
        fnm::SnapshotState::partial);
  CHECK(!fnm::parse_kraft_snapshot_name("bootstrap.checkpoint").ok());
  CHECK(!fnm::parse_kraft_snapshot_name("00000000000000000042.log").ok());
}
