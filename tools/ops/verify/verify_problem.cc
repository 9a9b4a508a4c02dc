// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_problem.h"

namespace kseg {

void Findings::add(Code code, const std::string& file, std::optional<Position> position, std::string message,
                   std::string expected, std::string found) {
  add(code_info(code).severity, code, file, position, std::move(message), std::move(expected), std::move(found));
}

namespace {
size_t g_max_per_file = 0;  // 0: no cap
}  // namespace

void Findings::set_max_per_file(size_t n) { g_max_per_file = n; }
size_t Findings::max_per_file() { return g_max_per_file; }

void Findings::add(Severity s, Code code, const std::string& file, std::optional<Position> position,
                   std::string message, std::string expected, std::string found) {
  take(Problem{s, code, file, position, std::move(message), std::move(expected), std::move(found)});
}

void Findings::take(Problem p) {
  size_t& kept = kept_[{p.file, p.code}];
  if (capped && g_max_per_file != 0 && kept >= g_max_per_file) {
    ++suppressed[p.file][static_cast<size_t>(p.severity)];
    return;
  }
  ++kept;
  problems.push_back(std::move(p));
}

void Findings::take_all(Findings& from) {
  for (auto& p : from.problems) take(std::move(p));
  from.problems.clear();
  for (const auto& [file, c] : from.suppressed)
    for (size_t i = 0; i < c.size(); ++i) suppressed[file][i] += c[i];
  from.suppressed.clear();
}

FileResult& Findings::file(const std::string& path, const char* kind) {
  for (auto& f : files)
    if (f.file == path) return f;
  files.push_back(FileResult{path, kind});
  return files.back();
}

}  // namespace kseg
