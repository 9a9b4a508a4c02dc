// kseg: the front end. `kseg dump ARGS` runs kseg-dump ARGS in-process, and so on.
#include <cstdio>
#include <cstring>

#include "tools/ops/common/exit_codes.h"
#include "tools/cli/dump_cli.h"
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
    {"dump", kseg::dump_main, "print segment, index and state files (kafka-dump-log compatible, or JSON)"},
    {"verify", kseg::verify_main, "check files, partitions or log dirs for corruption (exit 1 on problems)"},
    {"reindex", kseg::reindex_main, "rebuild .index/.timeindex as Kafka's recovery does; --recover cuts at the first bad batch"},
    {"compact", kseg::compact_main, "compact a partition as the broker's log cleaner does"},
    {"truncate", kseg::truncate_main, "cut a partition at an offset or time, move its log start, apply retention"},
    {"txn", kseg::txn_main, "producer state, open and hanging transactions, aborted ranges (exit 1 if one hangs)"},
};

void usage(std::FILE* f) {
  std::fprintf(f, "usage: kseg <command> [options]\n\nRead, check and repair Kafka partition directories offline.\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(f, "  %-8s %s\n", c.name, c.summary);
  std::fprintf(f, "\n'kseg <command> --help' describes a command; each is also a binary kseg-<command>.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return kseg::kExitUsage;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(stdout);
    return kseg::kExitOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("kseg %s\n", KSEG_VERSION);
    return kseg::kExitOk;
  }
  for (const auto& c : kCommands)
    if (!std::strcmp(argv[1], c.name)) return c.main(argc - 1, argv + 1);
  std::fprintf(stderr, "kseg: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return kseg::kExitUsage;
}
