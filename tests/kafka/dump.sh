#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs Kafka 4.4.0's DumpLogSegments once, in its own JVM, with CWD as working directory.
# Usage: dump.sh CWD ARGS...     (e.g. dump.sh testdata/kafka/v2-none --files orders-0/00000000000000000000.log)
# stdout, stderr and the exit code are the tool's own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cp="$(oracle_classpath)"
cd "$1"
shift
exec java "${JAVA_FLAGS[@]}" -Dstdout.encoding=UTF-8 -Dstderr.encoding=UTF-8 -Dsun.stdout.encoding=UTF-8 -Dsun.stderr.encoding=UTF-8 \
    -cp "$cp" org.apache.kafka.tools.DumpLogSegments "$@"
