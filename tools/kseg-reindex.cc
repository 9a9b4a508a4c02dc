// SPDX-License-Identifier: Apache-2.0
// kseg-reindex: rebuild indexes and recover partitions as Kafka would. See man/kseg-reindex.1.
#include "tools/cli/reindex_cli.h"

int main(int argc, char** argv) { return kseg::reindex_main(argc, argv); }
