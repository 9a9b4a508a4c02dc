// SPDX-License-Identifier: Apache-2.0
// Command-line entry points, callable in-process by tests and by the `kseg`
// front end. Each parses options into its struct, runs the operation and
// returns the exit code.
#pragma once

namespace kseg {

int dump_main(int argc, char** argv);

}  // namespace kseg
