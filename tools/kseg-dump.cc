// SPDX-License-Identifier: Apache-2.0
// kseg-dump: a drop-in for kafka-dump-log.sh. See man/kseg-dump.1.
#include "tools/cli/dump_cli.h"

int main(int argc, char** argv) { return kseg::dump_main(argc, argv); }
