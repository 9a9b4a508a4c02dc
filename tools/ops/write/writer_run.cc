#include "tools/ops/write/writer_run.h"

#include <algorithm>

#include "tools/ops/common/exit_codes.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/targets.h"

namespace kseg {

int run_partitions(const char* tool, const WriterOptions& o, Sink& out, Sink& err, const PartitionRun& one) {
  auto dirs = partition_dirs_for(o);
  if (!dirs.ok()) {
    err.print("{}: {}\n", tool, dirs.error().message);
    return exit_code_for(dirs.error().code);
  }
  auto locks = safe::lock_log_dirs(*dirs, o.dry_run, tool, err);
  if (!locks.ok()) {
    err.print("{}: {}\n", tool, locks.error().message);
    return kExitIo;
  }
  nlohmann::json report = nlohmann::json::array();
  int rc = kExitOk;
  for (const auto& d : *dirs) {
    const auto held = locks->find(log_dir_of(d));
    rc = std::max(rc, one(d, held == locks->end() ? nullptr : &held->second, o.json ? &report : nullptr));
  }
  // Messages quote file bytes, which need not be UTF-8.
  if (o.json)
    out.print("{}\n", nlohmann::json{{"tool", tool}, {"partitions", report}}.dump(
                          2, ' ', false, nlohmann::json::error_handler_t::replace));
  return rc;
}

}  // namespace kseg
