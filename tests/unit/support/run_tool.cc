// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/support/run_tool.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kseg::test {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> tree_digest(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out.push_back(std::filesystem::relative(e.path(), dir).string() + ":" +
                  std::to_string(std::hash<std::string>{}(read_text(e.path().string()))));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

ToolRun run_tool(const std::string& binary, const std::vector<std::string>& args, const std::string& cwd) {
  char out_tmpl[] = "/tmp/kseg-test-out-XXXXXX";
  char err_tmpl[] = "/tmp/kseg-test-err-XXXXXX";
  const int out_fd = mkstemp(out_tmpl);
  const int err_fd = mkstemp(err_tmpl);
  ToolRun r;
  // posix_spawn, not fork: fork copies the page tables of this process, which are large under
  // ASan (shadow memory, quarantine): the golden test's 1858 runs took 63 s there, 54 s now.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (pid < 0) {
    r.exit_code = 127;  // as the shell says of a command it cannot start
  } else {
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  close(out_fd);
  close(err_fd);
  r.out = read_text(out_tmpl);
  r.err = read_text(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}

}  // namespace kseg::test
