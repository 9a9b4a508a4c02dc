// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/support/dirs.h"

namespace kseg::test {
const char* source_dir() { return KSEG_TEST_SOURCE_PATH; }
const char* binary_dir() { return KSEG_TEST_BINARY_PATH; }
}  // namespace kseg::test
