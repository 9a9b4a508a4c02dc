// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "formats/meta_properties.h"

using namespace kseg;
namespace mp = kseg::meta_properties;

TEST_CASE("meta.properties: Properties.load subset", "[formats]") {
  auto p = mp::load("# comment\n! other\n\n  a=1\nb : 2\nc 3\nd\\=x=4\ne=lo\\\n   ng\nf=\\u0041\\t\ng=\na=5\n");
  REQUIRE(p.ok());
  CHECK(*p->get("a") == "5");
  CHECK(*p->get("b") == "2");
  CHECK(*p->get("c") == "3");
  CHECK(*p->get("d=x") == "4");
  CHECK(*p->get("e") == "long");
  CHECK(*p->get("f") == "A\t");
  CHECK(*p->get("g") == "");
  CHECK(p->get("zz") == nullptr);
  CHECK(!mp::load("k=\\u00zz\n").ok());
}

TEST_CASE("meta.properties: KRaft v1 and ZooKeeper v0", "[formats]") {
  auto m = mp::parse("#\n#Thu Jan 01 00:00:00 UTC 2024\nnode.id=1\ndirectory.id=5ayvDjdz92HRCk7FCvGyaQ\n"
                     "version=1\ncluster.id=abcdefghijklmnopqrstuv\n");
  REQUIRE(m.ok());
  CHECK(m->version == 1);
  CHECK(m->node_id == 1);
  CHECK(m->cluster_id == "abcdefghijklmnopqrstuv");
  CHECK(m->directory_id.has_value());
  auto z = mp::parse("broker.id=3\n");  // version defaults to 0
  REQUIRE(z.ok());
  CHECK(z->version == 0);
  CHECK(z->node_id == 3);
  CHECK(mp::parse("version=1\ncluster.id=x\n").error().message == "Failed to find node.id");
  CHECK(mp::parse("version=1\nnode.id=1\n").error().message == "cluster.id was not found.");
  CHECK(mp::parse("version=2\n").error().message == "Unknown meta.properties version number 2");
  CHECK(mp::parse("version=x\n").error().message == "Invalid meta.properties version string 'x'");
  CHECK(mp::parse("version=1\nnode.id=a\ncluster.id=c\n").error().message ==
        "Unable to read node.id as a base-10 number.");
  CHECK_THAT(mp::parse("version=1\nnode.id=1\ncluster.id=c\ndirectory.id=zz\n").error().message,
             Catch::StartsWith("Unable to read directory.id as a Uuid: "));
}

TEST_CASE("meta.properties: serialize reads back", "[formats]") {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"version", "1"}, {"node.id", "2"}, {"cluster.id", "a=b:c #!"}, {"weird key", " lead"}};
  const std::string text = mp::serialize(kv, "date");
  CHECK(text.rfind("#\n#date\n", 0) == 0);
  auto p = mp::load(text);
  REQUIRE(p.ok());
  CHECK(p->entries == kv);
}

// Issue 20: meta.corrupt named no position; an error about a key names its line.
TEST_CASE("meta.properties: an error about a key names the byte position of its line", "[formats]") {
  const auto bad_id = mp::parse("#c\nversion=1\nnode.id=a\ncluster.id=c\n");  // node.id's line at byte 13
  REQUIRE_FALSE(bad_id.ok());
  CHECK(bad_id.error().position == Position{13});
  const auto bad_version = mp::parse("broker.id=1\nversion=7\n");
  CHECK(bad_version.error().position == Position{12});
  CHECK_FALSE(mp::parse("version=1\ncluster.id=x\n").error().position.has_value());  // a missing key: the whole file
}
