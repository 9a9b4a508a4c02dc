#include "tests/unit/verify_fixture.h"
#include "tests/unit/support/dirs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "tests/unit/support/run_tool.h"

namespace kseg::test {

namespace fs = std::filesystem;

namespace {
const std::string kCorpus = std::string(KSEG_SOURCE_DIR) + "/testdata/kafka/";
const std::string kVerify = std::string(KSEG_BINARY_DIR) + "/kseg-verify";
}  // namespace

CaseCopy::CaseCopy(const std::string& name) {
  std::string tmpl = (fs::temp_directory_path() / "kseg-verify-XXXXXX").string();
  dir_ = mkdtemp(tmpl.data());
  dir_ += "/" + name;
  fs::create_directory(dir_);
  for (const auto& e : fs::directory_iterator(kCorpus + name)) {
    const auto n = e.path().filename().string();
    if (n == "dump" || n == "case.json") continue;
    fs::copy(e.path(), fs::path(dir_) / n, fs::copy_options::recursive);
  }
}

CaseCopy::~CaseCopy() {
  std::error_code ec;
  fs::remove_all(fs::path(dir_).parent_path(), ec);
}

VerifyRun verify_json(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> a{"--format", "json"};
  a.insert(a.end(), args.begin(), args.end());
  auto r = run_tool(kVerify, a, cwd);
  VerifyRun v;
  v.exit_code = r.exit_code;
  v.err = r.err;
  v.report = nlohmann::json::parse(r.out, nullptr, false);
  return v;
}

std::vector<GoldenBatch> golden_batches(const std::string& case_name, const std::string& partition,
                                        const std::string& segment) {
  std::ifstream in(kCorpus + case_name + "/dump/" + partition + "." + segment + ".log.plain.out");
  static const std::regex re(R"(^baseOffset: (-?\d+) lastOffset: (-?\d+) .* position: (\d+) .* size: (\d+) )");
  std::vector<GoldenBatch> out;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, re))
      out.push_back({std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[4])});
  return out;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

}  // namespace kseg::test
