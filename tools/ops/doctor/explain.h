// SPDX-License-Identifier: Apache-2.0
// One partition as doctor reports it: kseg-verify's findings, each with what
// Kafka 4.4 does with it given the partition's start-up (startup.h) and the
// kseg commands that fix it, with what each loses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/ops/common/problem.h"
#include "tools/ops/doctor/startup.h"
#include "tools/ops/reindex/reindex.h"
#include "tools/ops/verify/verify_problem.h"

namespace kseg::doctor {

struct Fix {
  std::string command;  // a whole command line
  std::string loses;    // "nothing", or bytes and offsets
};

// A fetch through an offset index Kafka trusts as it is (a segment it does not
// recover): from the offset of an entry whose position lies past that
// offset's batch, LogSegment.read starts at the first batch from there that
// ends at or after it, and consumers never see the offsets between.
struct FetchSkip {
  int64_t from = 0;         // the first such entry's offset: a fetch from it
  int64_t served_from = 0;  // is served from this offset on (the batch's base)
  int64_t entries = 0;      // entries that skip so (0: none; the fetch model found nothing skipped)
};

struct Finding {
  Problem problem;
  std::string kafka;       // what Kafka 4.4 does with it, at start-up or in service
  std::vector<Fix> fixes;  // alternatives side by side; empty when Kafka handles it
  bool kafka_handles = false;
  bool by_hand = false;    // its fix is no kseg command: a person does it (--fix leaves it)
  std::optional<FetchSkip> fetch = {};  // an offset index finding: what a fetch through it skips (none: no model)
};

// What kseg would do about a partition, in the order that loses least.
enum class Action { none, reindex, producer_state, salvage, by_hand };

struct PartitionDoc {
  std::string dir;
  std::string name;  // the directory's name
  std::vector<Finding> findings;
  std::optional<Startup> startup;
  std::string startup_error;  // why there is no prediction
  std::optional<Removed> salvage, recover;  // the priced repairs of invalid bytes
  std::vector<std::string> io_errors;
  Counts counts{};           // findings by severity
  int64_t suppressed = 0;    // past --max-problems
  int64_t bytes = 0;         // .log bytes
  int64_t log_start = 0, log_end = 0;  // first segment's base, next offset after the last batch
  Action action = Action::none;
  // What kseg can do now that Kafka's start-up would otherwise do by
  // recovering segments (a missing .index, a .txnindex below its base):
  // nothing is lost either way; done now, the broker has less to recover.
  Action saves_recovery = Action::none;
  bool stray = false;        // Kafka renames it -stray at start-up and serves the partition empty
  bool needs_fix() const;    // a finding Kafka does not handle, or a start-up that loses or fails
  // needs_fix() but for what only the running broker can end (a hanging
  // transaction): what keeps --fix from doing the partition's recovery.
  bool blocks_recovery() const;
};

// Fills each finding's kafka and fixes from its problem, the start-up and
// the priced repairs, and the partition's action.
void explain(PartitionDoc& d);

// A finding on a log dir's own files (its root checkpoints, meta.properties):
// what Kafka does with it at start-up, and whether that needs no one.
struct RootKafka {
  std::string kafka;
  bool handles = false;  // Kafka deals with it, losing nothing
  // What it does to the broker: "none", "offline" (the log dir goes offline;
  // a broker of one log dir stops), "cleaner_stops" (the log cleaner's thread
  // dies), "partitions_unserved" (partitions fail to become leader or follower).
  std::string effect = "none";
  bool offline() const { return effect == "offline"; }
};
RootKafka explain_root(const Problem& p);

// Codes whose bytes stop Kafka's recovery scan: recovery truncates there, and
// kseg-reindex --salvage or --recover removes them.
bool invalid_bytes(Code c);
// Offsets out of order or below the segment's base: kseg reindex --salvage
// cuts the batches within a segment (priced as for invalid bytes).
bool offsets_out_of_order(Code c);

// A path as a shell word: quoted when it holds anything but [A-Za-z0-9_./=+,:@%-].
std::string shell_word(const std::string& s);

}  // namespace kseg::doctor
