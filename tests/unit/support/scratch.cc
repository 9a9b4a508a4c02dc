// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/support/scratch.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "tests/unit/support/dirs.h"

namespace kseg::test {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  static std::atomic<int> made{0};
  root = fs::temp_directory_path() / fmt::format("kseg-test-{}-{}-{}", ::getpid(), made++, tag);
  fs::remove_all(root);
  fs::create_directories(root);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(root, ec);
}

ScratchLogDir::ScratchLogDir(const std::string& case_name, const std::string& partition, const LogDirSetup& setup)
    : TempDir(case_name) {
  add(case_name, partition);
  part = root / partition;
  const std::string line = fmt::format("{} {}", partition.substr(0, partition.rfind('-')),
                                       partition.substr(partition.rfind('-') + 1));
  if (setup.end) {
    std::string text = fmt::format("0\n{}\n", setup.other_lines.size() + 1);
    for (const auto& l : setup.other_lines) text += l + "\n";
    text += fmt::format("{} {}\n", line, *setup.end);
    for (const char* name : {"recovery-point-offset-checkpoint", "replication-offset-checkpoint"})
      write_text(root / name, text);
  }
  if (setup.log_start_line) write_text(root / "log-start-offset-checkpoint", fmt::format("0\n1\n{} 0\n", line));
  if (setup.clean_shutdown) write_text(root / ".kafka_cleanshutdown", "{\"version\":0,\"brokerEpoch\":5}");
  if (setup.lock_file) write_text(root / ".lock", "");
}

void ScratchLogDir::add(const std::string& case_name, const std::string& partition) {
  fs::copy(fs::path(KSEG_SOURCE_DIR) / "testdata/kafka" / case_name / partition, root / partition,
           fs::copy_options::recursive);
}

CaseCopy::CaseCopy(const std::string& name) : TempDir(name), dir_((root / name).string()) {
  fs::create_directory(dir_);
  for (const auto& e : fs::directory_iterator(fs::path(KSEG_SOURCE_DIR) / "testdata/kafka" / name)) {
    const auto n = e.path().filename().string();
    if (n == "dump" || n == "case.json") continue;
    fs::copy(e.path(), fs::path(dir_) / n, fs::copy_options::recursive);
  }
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, std::span<const uint8_t> bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace kseg::test
