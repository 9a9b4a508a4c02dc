// SPDX-License-Identifier: Apache-2.0
// A single file named on the command line: the checks that need nothing but
// the file (and, for an index, the .log beside it).
#include <filesystem>
#include <optional>

#include "formats/file_names.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/verify/verify_index.h"
#include "tools/ops/verify/verify_partition.h"
#include "tools/ops/verify/verify_producer.h"
#include "tools/ops/verify/verify_state.h"

namespace kseg {

namespace fs = std::filesystem;
using file_names::FileKind;

namespace {

// Whether no segment in the file's directory has a higher base offset.
bool is_last_segment(const fs::path& log, int64_t base) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(log.parent_path().empty() ? "." : log.parent_path(), ec)) {
    auto n = file_names::parse_segment_file_name(e.path().filename().string());
    if (n.ok() && n->kind == FileKind::log && n->transient == file_names::TransientSuffix::none && n->offset.value > base)
      return false;
  }
  return true;
}

void verify_segment_file(const LogCheckOptions& opts, const std::string& path, const file_names::SegmentFileName& n,
                         TargetResult& r) {
  SegmentScan s;
  s.base_offset = n.offset;
  std::string log = path;
  if (n.kind != FileKind::log) log = path.substr(0, path.rfind('.')) + ".log";
  s.file = log;
  s.last_segment = is_last_segment(fs::path(log), n.offset.value);
  s.loaded_as_is = s.last_segment && active_indexes_loaded_as_is(fs::path(log).parent_path().string());
  if (n.kind == FileKind::log) {
    scan_segment(opts, s, r.findings);
    return;
  }
  // The .log is read for context only: its own problems are not this run's.
  Findings context;
  LogCheckOptions quick = opts;
  quick.depth = VerifyDepth::quick;
  std::optional<OffsetIndexCheck> index;
  std::optional<TimeIndexCheck> time_index;
  if (n.kind == FileKind::index) index.emplace(path, n.offset, log);
  if (n.kind == FileKind::timeindex) time_index.emplace(path, n.offset);
  auto visit = [&](const BatchInfo& b) {
    if (index) index->batch(b);
    if (time_index) time_index->batch(b);
  };
  if (!scan_segment(quick, s, context, visit)) {
    r.findings.io_errors.insert(r.findings.io_errors.end(), context.io_errors.begin(), context.io_errors.end());
    return;
  }
  if (index) index->finish(s, r.findings);
  if (time_index) time_index->finish(s, r.findings);
  if (n.kind == FileKind::txnindex) {
    auto mf = MappedFile::open(path);
    check_txn_index(path, mf.ok() ? &*mf : nullptr, s, {}, false, false, r.findings);
  }
}

}  // namespace

void verify_single_file(const LogCheckOptions& opts, TargetResult& r) {
  const std::string& path = r.target.path;
  const std::string name = fs::path(path).filename().string();
  Findings& f = r.findings;
  if (name == "leader-epoch-checkpoint") return check_leader_epoch_checkpoint(path, EpochTracker{}, -1, f);
  if (name == "partition.metadata") return check_partition_metadata(path, f);
  if (name == kMetaPropertiesFile) return check_meta_properties(path, f);
  if (name == "quorum-state") return check_quorum_state(path, f);
  if (root_checkpoint_of(name)) return check_root_checkpoint(path, {}, f);
  if (file_names::parse_kraft_snapshot_name(name).ok()) {
    SegmentScan s;
    s.file = path;
    scan_segment(opts, s, f);
    return;
  }
  auto n = file_names::parse_segment_file_name(name);
  if (!n.ok() || n->kind == FileKind::unknown) return f.add(Code::dir_unknown_file, path, std::nullopt, "unknown file");
  if (n->kind == FileKind::snapshot) {
    read_snapshots({{n->offset.value, path}}, f);
    return;
  }
  std::error_code ec;
  if (!fs::exists(path, ec)) return f.io_error(path, "no such file");
  verify_segment_file(opts, path, *n, r);
}

}  // namespace kseg
