// SPDX-License-Identifier: Apache-2.0
// kseg-verify: check partitions for corruption. See man/kseg-verify.1.
#include "tools/cli/verify_cli.h"

int main(int argc, char** argv) { return kseg::verify_main(argc, argv); }
