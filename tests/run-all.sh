#!/usr/bin/env bash
# Runs every test tier; the README's test command and .ci/run call this.
#   1. build with warnings as errors; unit tests, the Kafka golden driver,
#      fuzz-input replay (ctest)
#   2. the same suite built with ASan+UBSan
#   3. Kafka tier: the load-check self-test, the differential run
#      (fresh Kafka-written cases with a new seed: DumpLogSegments vs kseg-dump) and
#      the reindex oracle (kseg-reindex vs Kafka's own recovery, damaged cases, crash points)
# Set KSEG_SKIP_KAFKA=1 to leave out tier 3 (it needs Maven Central).
set -uo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/tests/deps.sh" || exit 1
passed=0 failed=0
tier() {  # tier NAME COMMAND...
  echo "=== tier: $1"
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "=== tier FAILED"; fi
}
build() {  # build DIR CMAKE_ARGS...
  local dir="$1"; shift
  cmake -S "$top" -B "$dir" -G Ninja -DKSEG_WERROR=ON "$@" >/dev/null && cmake --build "$dir" -j2
}
suite() {  # suite DIR: ctest over the unit tests, goldens and fuzz replays
  (cd "$1" && ctest --output-on-failure)
}
tier "build" build "$top/build"
tier "unit+golden+fuzz-replay" suite "$top/build"
tier "build (asan+ubsan)" build "$top/build-asan" -DKSEG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
tier "unit+golden+fuzz-replay (asan+ubsan)" suite "$top/build-asan"
if [[ "${KSEG_SKIP_KAFKA:-0}" != 1 ]]; then
  tier "kafka load-check self-test" "$top/tests/kafka/loadcheck-selftest.sh"
  tier "kafka differential" "$top/tests/kafka/differential.sh" "$top/build/kseg-dump"
  # Benchmark smoke run: tiny segments, one run, asserts nothing about time.
  tier "benchmark smoke" "$top/tests/bench/run.sh" --size 300000 --runs 1 --workloads v2-none-small,v2-lz4 \
    --out "$(mktemp -d)" --build "$top/build"
  tier "kafka reindex oracle" "$top/tests/kafka/reindex-oracle.sh" "$top/build/kseg-reindex"
fi
echo "tiers: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
