#include "tools/ops/verify/verify_problem.h"

namespace kseg {

void Findings::add(Code code, const std::string& file, std::optional<Position> position, std::string message,
                   std::string expected, std::string found) {
  add(code_info(code).severity, code, file, position, std::move(message), std::move(expected), std::move(found));
}

void Findings::add(Severity s, Code code, const std::string& file, std::optional<Position> position,
                   std::string message, std::string expected, std::string found) {
  problems.push_back(Problem{s, code, file, position, std::move(message), std::move(expected), std::move(found)});
}

FileResult& Findings::file(const std::string& path, const char* kind) {
  for (auto& f : files)
    if (f.file == path) return f;
  files.push_back(FileResult{path, kind});
  return files.back();
}

}  // namespace kseg
