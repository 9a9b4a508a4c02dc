// SPDX-License-Identifier: Apache-2.0
// partition/log_dir: the root files of a log dir the broker wrote (corpus
// case broker-log-dir, copied from a broker shut down cleanly) are found by
// name, and a partition directory knows its log dir's clean shutdown.
#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/unit/support/dirs.h"
#include "tools/ops/partition/log_dir.h"

namespace fs = std::filesystem;
using namespace kseg;

namespace {
const std::string kLogDir = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/broker-log-dir";
}

TEST_CASE("log_dir_files finds the root files of a broker's log dir", "[log_dir]") {
  const LogDirFiles f = log_dir_files(kLogDir);
  REQUIRE(f.checkpoints.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(f.checkpoints[i].which == kRootCheckpoints[i]);
    CHECK(f.checkpoints[i].path == kLogDir + "/" + root_checkpoint_name(kRootCheckpoints[i]));
  }
  CHECK(f.meta_properties == kLogDir + "/meta.properties");
  CHECK(f.clean_shutdown);
  CHECK(parent_shut_down_cleanly(kLogDir + "/orders-0"));
  // A partition directory holds none of them.
  const LogDirFiles p = log_dir_files(kLogDir + "/orders-0");
  CHECK(p.checkpoints.empty());
  CHECK_FALSE(p.meta_properties);
  CHECK_FALSE(p.clean_shutdown);
  CHECK_FALSE(parent_shut_down_cleanly(kLogDir + "/orders-0/00000000000000000000.log"));
}

TEST_CASE("root_checkpoint_of names a checkpoint by its file name", "[log_dir]") {
  CHECK(root_checkpoint_of("recovery-point-offset-checkpoint") == RootCheckpoint::recovery_point);
  CHECK(root_checkpoint_of("replication-offset-checkpoint") == RootCheckpoint::replication);
  CHECK(root_checkpoint_of("log-start-offset-checkpoint.bak") == RootCheckpoint::log_start);
  CHECK(root_checkpoint_of("cleaner-offset-checkpoint") == RootCheckpoint::cleaner);
  CHECK_FALSE(root_checkpoint_of("leader-epoch-checkpoint"));
  CHECK_FALSE(root_checkpoint_of("offset-checkpoint"));
}
