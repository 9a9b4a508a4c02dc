// SPDX-License-Identifier: Apache-2.0
// kseg-doctor: what Kafka will do with a broker's log dirs at start-up, and the fix. See man/kseg-doctor.1.
#include "tools/cli/doctor_cli.h"

int main(int argc, char** argv) { return kseg::doctor_main(argc, argv); }
