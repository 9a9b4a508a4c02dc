// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/state_files.h"

#include <fmt/format.h>

#include "formats/checkpoint_file.h"
#include "formats/partition_metadata.h"
#include "formats/producer_snapshot.h"
#include "lib/mapped_file.h"

namespace kseg {

namespace {

Problem left_as_is(Code code, const std::string& path, const Error& e) {
  Problem p = Problem::of(code, path, e.position, e.message + "; left as it is (kseg verify reports it)");
  p.severity = Severity::warning;
  return p;
}

}  // namespace

std::vector<Problem> unchanged_state_problems(const std::string& dir, const PartitionLayout& layout, bool snapshots) {
  std::vector<Problem> out;
  auto text_of = [&](const std::string& path, Code code, std::string& text) {
    auto f = MappedFile::open(path);
    if (!f.ok()) {
      out.push_back(left_as_is(code, path, f.error()));
      return false;
    }
    text.assign(reinterpret_cast<const char*>(f->bytes().data()), f->bytes().size());
    return true;
  };
  std::string text;
  const std::string epochs = dir + "/leader-epoch-checkpoint";
  if (layout.state_files.count("leader-epoch-checkpoint") && text_of(epochs, Code::epoch_corrupt, text)) {
    auto cp = checkpoint::parse_leader_epoch_checkpoint(text, epochs);
    if (!cp.ok()) out.push_back(left_as_is(Code::epoch_corrupt, epochs, cp.error()));
    else if (auto st = checkpoint::validate_epoch_entries(*cp); !st.ok())
      out.push_back(left_as_is(Code::epoch_corrupt, epochs, st.error()));
  }
  const std::string metadata = dir + "/partition.metadata";
  if (layout.state_files.count("partition.metadata") && text_of(metadata, Code::partition_metadata_corrupt, text)) {
    auto m = partition_metadata::parse(text, metadata);
    if (!m.ok()) out.push_back(left_as_is(Code::partition_metadata_corrupt, metadata, m.error()));
  }
  if (snapshots)
    for (const auto& [offset, name] : layout.snapshots) {
      const std::string path = dir + "/" + name;
      auto f = MappedFile::open(path);
      if (!f.ok()) {
        out.push_back(left_as_is(Code::snapshot_corrupt, path, f.error()));
        continue;
      }
      if (auto s = producer_snapshot::read(f->bytes()); !s.ok())
        out.push_back(left_as_is(s.error().code == Errc::bad_crc ? Code::snapshot_crc : Code::snapshot_corrupt, path,
                                 s.error()));
    }
  return out;
}

}  // namespace kseg
