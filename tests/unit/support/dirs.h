// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the source tree and the built tools are, for the tests. Only tests/unit/support/dirs.cc is
// compiled with the two paths (CMake gives them to that file alone): a path in a compile command
// is part of ccache's key, so with it in every test file no other clone could reuse their objects.
namespace kseg::test {
const char* source_dir();
const char* binary_dir();
}  // namespace kseg::test
#define KSEG_SOURCE_DIR (::kseg::test::source_dir())
#define KSEG_BINARY_DIR (::kseg::test::binary_dir())
