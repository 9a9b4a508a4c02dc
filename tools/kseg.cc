// SPDX-License-Identifier: Apache-2.0
// kseg: the front end. `kseg dump ARGS` runs kseg-dump ARGS in-process, and so on.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/ops/common/exit_codes.h"
#include "tools/cli/doctor_cli.h"
#include "tools/cli/dump_cli.h"
#include "tools/cli/excise_cli.h"
#include "tools/cli/help.h"
#include "tools/cli/info_cli.h"
#include "tools/cli/verify_cli.h"
#include "tools/cli/reindex_cli.h"
#include "tools/cli/compact_cli.h"
#include "tools/cli/truncate_cli.h"
#include "tools/cli/txn_cli.h"

namespace {

struct Command {
  const char* name;
  int (*main)(int, char**);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"doctor", kseg::doctor_main, "what Kafka will do with a broker's log dirs at start-up, and the fix"},
    {"dump", kseg::dump_main, "print segment, index and state files (as kafka-dump-log, or JSON)"},
    {"verify", kseg::verify_main, "check files, partitions or log dirs (exit 1 on problems)"},
    {"reindex", kseg::reindex_main, "rebuild .index/.timeindex as Kafka's recovery does"},
    {"truncate", kseg::truncate_main, "cut a partition at an offset or time, or by retention"},
    {"compact", kseg::compact_main, "compact a partition as the broker's log cleaner does"},
    {"excise", kseg::excise_main, "remove chosen records, every other at its offset"},
    {"txn", kseg::txn_main, "producer state, open and hanging transactions"},
    {"info", kseg::info_main, "partitions and log dirs at a glance: offsets, times, codecs, indexes"},
};

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: kseg <command> [options] [paths]\n\n"
               "Read, check and repair Kafka partition directories offline.\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(f, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(f,
               "  help CMD  the help of a command (as kseg CMD --help)\n"
               "  version   print the version (also -V, --version)\n\n"
               "Each command is also a binary kseg-CMD; man kseg-CMD describes it.\n"
               "Exit status: 0 ok, 1 problems in the data, 2 usage error, 3 unreadable input.\n");
}

const Command* find(const char* name) {
  for (const auto& c : kCommands)
    if (!std::strcmp(name, c.name)) return &c;
  return nullptr;
}

// `help_target`: the name followed `kseg help`, where only commands are.
int unknown(const char* name, bool help_target = false) {
  std::vector<std::string> names;
  for (const auto& c : kCommands) names.emplace_back(c.name);
  if (!help_target) names.insert(names.end(), {"help", "version"});
  const std::string near = kseg::closest_spelling(name, names);
  std::fprintf(stderr, "kseg: unknown command '%s'%s\nRun 'kseg --help' for the commands.\n", name,
               near.empty() ? "" : ("; did you mean '" + near + "'?").c_str());
  return kseg::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return kseg::kExitUsage;
  }
  const char* cmd = argv[1];
  if (!std::strcmp(cmd, "--help") || !std::strcmp(cmd, "-h") || (!std::strcmp(cmd, "help") && argc == 2)) {
    usage(stdout);
    return kseg::kExitOk;
  }
  if (!std::strcmp(cmd, "--version") || !std::strcmp(cmd, "-V") || !std::strcmp(cmd, "version")) {
    std::printf("kseg %s\n", KSEG_VERSION);
    return kseg::kExitOk;
  }
  if (!std::strcmp(cmd, "help")) {
    const Command* c = find(argv[2]);
    if (c == nullptr) return unknown(argv[2], true);
    char help[] = "--help";
    char* args[] = {argv[2], help, nullptr};
    return c->main(2, args);
  }
  if (const Command* c = find(cmd)) return c->main(argc - 1, argv + 1);
  return unknown(cmd);
}
