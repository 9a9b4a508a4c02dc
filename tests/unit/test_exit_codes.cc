// One place maps an error's code to the exit status scripts act on: only a
// bad command line is 2; a problem in the data, even one Kafka refuses, is 1.
#include <catch2/catch.hpp>

#include <string>

#include "tools/ops/common/exit_codes.h"

using namespace kseg;

TEST_CASE("exit_code_for: data problems are 1, never the usage code", "[exit]") {
  int data_codes = 0;
  for (int i = 0; i <= static_cast<int>(Errc::internal); ++i) {
    const auto c = static_cast<Errc>(i);
    INFO(errc_name(c));
    CHECK(std::string(errc_name(c)) != "unknown");  // every code has a name for the JSON problem objects
    if (c == Errc::ok) CHECK(exit_code_for(c) == kExitOk);
    else if (c == Errc::usage) CHECK(exit_code_for(c) == kExitUsage);
    else if (c == Errc::io || c == Errc::internal) CHECK(exit_code_for(c) == kExitIo);
    else { CHECK(exit_code_for(c) == kExitProblems); ++data_codes; }
  }
  CHECK(data_codes == 12);
  CHECK(exit_code_for(Errc::refused) == kExitProblems);
}
