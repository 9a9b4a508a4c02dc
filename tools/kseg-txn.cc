// SPDX-License-Identifier: Apache-2.0
// kseg-txn: producer state and transactions of partitions, offline. See man/kseg-txn.1.
#include "tools/cli/txn_cli.h"

int main(int argc, char** argv) { return kseg::txn_main(argc, argv); }
