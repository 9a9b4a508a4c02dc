// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/ask.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace kseg {

bool can_ask() { return isatty(STDIN_FILENO) && isatty(STDERR_FILENO); }

bool ask_yes(std::string_view tool, std::string_view question) {
  std::fprintf(stderr, "%.*s: %.*s [y/N] ", static_cast<int>(tool.size()), tool.data(),
               static_cast<int>(question.size()), question.data());
  std::fflush(stderr);
  std::string answer;
  for (int c = std::getchar(); c != EOF && c != '\n'; c = std::getchar()) answer += static_cast<char>(c);
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace kseg
