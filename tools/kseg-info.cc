// SPDX-License-Identifier: Apache-2.0
// kseg-info: partitions and log dirs in one screen each, offline. See man/kseg-info.1.
#include "tools/cli/info_cli.h"

int main(int argc, char** argv) { return kseg::info_main(argc, argv); }
