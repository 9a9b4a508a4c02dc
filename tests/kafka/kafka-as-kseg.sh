#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stand-in for kseg-dump that runs Kafka's own DumpLogSegments in the current directory.
# differential.sh tests/kafka/kafka-as-kseg.sh checks the differential plumbing and that the
# in-process golden runner prints what a separate `DumpLogSegments` JVM prints.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/dump.sh" "$PWD" "$@"
