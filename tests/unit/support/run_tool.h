// SPDX-License-Identifier: Apache-2.0
// Runs a kseg binary as a subprocess in a given directory and captures its
// stdout, stderr and exit code: the CLI tests and the golden driver use it.
#pragma once

#include <string>
#include <vector>

namespace kseg::test {

struct ToolRun {
  std::string out, err;
  int exit_code = -1;
};

ToolRun run_tool(const std::string& binary, const std::vector<std::string>& args, const std::string& cwd);
std::string read_text(const std::string& path);
std::vector<std::string> read_lines(const std::string& path);
// Every regular file under `dir`, as "path relative to dir:hash of its
// bytes", sorted: equal for two trees with the same files (two calls on one
// dir: nothing under it changed).
std::vector<std::string> tree_digest(const std::string& dir);

}  // namespace kseg::test
