#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Kafka harness (resolving Kafka 4.4.0 from Maven Central into ~/.m2).
# Idempotent: does nothing when the sources have not changed since the last build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
stamp_now="$(cat pom.xml $(find src -type f | sort) | sha256sum | cut -d' ' -f1)"
if [[ -f target/build.stamp && -f target/classpath.txt && "$(cat target/build.stamp)" == "$stamp_now" ]]; then
    exit 0
fi
echo "building tests/kafka (Maven; first run downloads Kafka into ~/.m2)..." >&2
mvn -q -B -T1 package
echo "$stamp_now" > target/build.stamp
