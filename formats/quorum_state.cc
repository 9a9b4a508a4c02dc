// SPDX-License-Identifier: Apache-2.0
#include "formats/quorum_state.h"

#include <fmt/format.h>

namespace kseg::quorum_state {

namespace {

Result<int32_t> int_field(const nlohmann::ordered_json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) return Error{Errc::bad_value, std::nullopt, fmt::format("no field {}", name)};
  // An unsigned value past INT64_MAX would read back as a negative int64.
  if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > INT32_MAX) ||
      it->get<int64_t>() < INT32_MIN || it->get<int64_t>() > INT32_MAX)
    return Error{Errc::bad_value, std::nullopt, fmt::format("field {} is not a 32-bit integer: {}", name, it->dump())};
  return static_cast<int32_t>(it->get<int64_t>());
}

}  // namespace

Result<QuorumState> parse(std::string_view text) {
  QuorumState q;
  try {
    q.fields = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts from 1, at the character that stopped the parse.
    const int64_t at = e.byte > 0 ? static_cast<int64_t>(e.byte) - 1 : 0;
    return Error{Errc::bad_value, Position{std::min<int64_t>(at, static_cast<int64_t>(text.size()))},
                 "not JSON: the parse stops here"};
  }
  if (!q.fields.is_object()) return Error{Errc::bad_value, Position{0}, "not a JSON object"};
  KSEG_ASSIGN_OR_RETURN(q.data_version, int_field(q.fields, "data_version"));
  if (q.data_version < 0 || q.data_version > 1)
    return Error{Errc::bad_value, std::nullopt, fmt::format("unknown data_version {} (Kafka writes 0 or 1)", q.data_version)};
  KSEG_ASSIGN_OR_RETURN(q.leader_id, int_field(q.fields, "leaderId"));
  KSEG_ASSIGN_OR_RETURN(q.leader_epoch, int_field(q.fields, "leaderEpoch"));
  KSEG_ASSIGN_OR_RETURN(q.voted_id, int_field(q.fields, "votedId"));
  return q;
}

}  // namespace kseg::quorum_state
