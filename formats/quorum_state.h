// SPDX-License-Identifier: Apache-2.0
// `quorum-state` (the __cluster_metadata-0 directory of a KRaft controller
// or broker): the node's election state, one JSON object (Kafka's
// QuorumStateData, written by FileQuorumStateStore), for example
//
//   {"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,
//    "appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}
//
// data_version 0 carries clusterId, appliedOffset and currentVoters; 1
// (Kafka 3.8+) drops them and adds votedDirectoryId. See
// formats/quorum-state.md.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "lib/status.h"
#include "lib/types.h"

namespace kseg::quorum_state {

struct QuorumState {
  int32_t data_version = 0;
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
  int32_t voted_id = -1;
  nlohmann::ordered_json fields;  // every field, in file order, as found
};

// A JSON object with an integer data_version of 0 or 1 and integer
// leaderId, leaderEpoch and votedId; other fields are kept, not checked.
// Errors carry the byte position where the JSON stops parsing.
Result<QuorumState> parse(std::string_view text);

}  // namespace kseg::quorum_state
