// SPDX-License-Identifier: Apache-2.0
// kseg-compact: Kafka's log cleaner, offline. See man/kseg-compact.1.
#include "tools/cli/compact_cli.h"

int main(int argc, char** argv) { return kseg::compact_main(argc, argv); }
