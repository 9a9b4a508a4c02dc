#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Loads a partition directory with Kafka 4.4.0's UnifiedLog/LogLoader (on a private copy;
# the input is never touched) and prints a canonical digest of everything Kafka sees.
# Usage: loadcheck.sh PARTITION_DIR [--unclean] [--config key=value]...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
oracle_java kseg.oracle.LoadCheck "$@"
