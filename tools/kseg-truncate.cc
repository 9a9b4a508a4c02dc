// SPDX-License-Identifier: Apache-2.0
// kseg-truncate: cut partitions offline as Kafka would. See man/kseg-truncate.1.
#include "tools/cli/truncate_cli.h"

int main(int argc, char** argv) { return kseg::truncate_main(argc, argv); }
