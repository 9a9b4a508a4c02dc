// SPDX-License-Identifier: Apache-2.0
// kseg-excise: remove chosen records from a partition, offsets unchanged. See man/kseg-excise.1.
#include "tools/cli/excise_cli.h"

int main(int argc, char** argv) { return kseg::excise_main(argc, argv); }
