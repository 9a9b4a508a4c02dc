// Shared helpers of the kseg-verify tests: copies of corpus cases in a temp
// dir (without the goldens), a run of kseg-verify --format json, and the
// batch table Kafka's own DumpLogSegments printed for a segment.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kseg::test {

// A fresh copy of testdata/kafka/<name> (minus dump/ and case.json), removed
// on destruction.
class CaseCopy {
 public:
  explicit CaseCopy(const std::string& name);
  ~CaseCopy();
  CaseCopy(const CaseCopy&) = delete;
  CaseCopy& operator=(const CaseCopy&) = delete;
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& rel) const { return dir_ + "/" + rel; }

 private:
  std::string dir_;
};

struct VerifyRun {
  int exit_code = -1;
  nlohmann::json report;
  std::string err;
};
VerifyRun verify_json(const std::vector<std::string>& args, const std::string& cwd);

// "baseOffset: B lastOffset: L ... position: P ... size: S" lines of the
// golden plain dump of `<partition>/<segment>.log` in a corpus case.
struct GoldenBatch {
  int64_t base_offset = 0, last_offset = 0, position = 0, size = 0;
};
std::vector<GoldenBatch> golden_batches(const std::string& case_name, const std::string& partition,
                                        const std::string& segment);

// Reads and writes whole files.
std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& data);

}  // namespace kseg::test
