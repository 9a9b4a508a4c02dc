#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test tier; the README's test command and .ci/run call this. tests/README.md has every
# tier in one table, with what it proves and its measured cost; the table of times printed at the
# end is where to look first when the run grows.
#   1. build at -O3 with warnings as errors; unit tests, the Kafka golden driver,
#      fuzz-input replay (ctest)
#   2. the same suite built by clang++ with ASan+UBSan (also the clang++ warning check);
#      the help pages, the terminal questions (a pty); the package (built without tests, .deb checked by lintian and apt, the
#      static binary run in a chroot of glibc alone)
#   3. Kafka tier: the load-check self-test, the differential run
#      (fresh Kafka-written cases with a new seed: DumpLogSegments vs kseg-dump), the same
#      on fresh log dirs of real broker processes driven by real clients (live-broker.sh:
#      4.4.0, also killed with SIGKILL; legacy-broker.sh: 2.8.2 writing v0/v1; kseg-verify
#      must find them healthy, kseg-reindex must match the restart's recovery), and
#      the reindex oracle (kseg-reindex vs Kafka's own recovery, damaged cases, crash points),
#      the producer-state oracle (kseg-reindex --producer-state's .txnindex and snapshots vs
#      Kafka's recovery of every segment, byte for byte; Kafka loading them without replay), the
#      txn oracle (kseg-txn's producer state vs Kafka's, no false alarm, a hanging transaction
#      made by Kafka's own truncation found), the info oracle (kseg-info's log end, records, max
#      timestamp and open transactions vs Kafka's load),
#      the truncate oracle (kseg-truncate vs Kafka's own cuts, file by file, crash points) and a
#      4.4.0 broker process started on a log dir kseg-truncate cut, the compact oracle
#      (kseg-compact vs Kafka's own Cleaner, file by file, crash points), the excise oracle
#      (Kafka loading what kseg-excise left: every record but the chosen; its recovery's indexes;
#      crash points) and a 4.4.0 broker serving what it left to Java and kcat consumers (a poison
#      pill read past), benchmark smoke runs,
#      the encoder oracle (Kafka loading every corpus segment re-encoded by kseg)
# Set KSEG_SKIP_KAFKA=1 to leave out tier 3 (it needs Maven Central).
set -uo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/tests/deps.sh" || exit 1
passed=0 failed=0 failed_names="" times="" started=$SECONDS
tier() {  # tier NAME COMMAND...
  local name="$1" t0=$SECONDS
  echo "=== tier: $name"
  shift
  # The name again at the end: CI shows only the tail of the output.
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names="$failed_names [$name]"; echo "=== tier FAILED: $name"; fi
  times+="$(printf '%6d s  %s' $((SECONDS - t0)) "$name")"$'\n'
}
# An unchanged file is compiled once per machine, whichever clone or build dir asks
# (CCACHE_BASEDIR makes the clone's own path not part of the key); CMake takes the launcher
# from the environment in every configure below, the package's and the benchmarks' too.
if command -v ccache >/dev/null; then
  # CCACHE_NOHASHDIR: the -g builds too (their key would hold the build dir, another in each clone).
  export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=true CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
# Every build dir here belongs to this script alone (tests/sample.sh and hand builds use others),
# and each configure names every option its tier depends on, so nothing another command cached
# can change what is built.
build() {  # build DIR BUILD_TYPE [CMAKE_ARGS...] [-- TARGETS...]
  local dir="$1" type="$2"; shift 2
  local args=() targets=()
  while (($#)) && [[ "$1" != -- ]]; do args+=("$1"); shift; done
  (($#)) && { shift; targets=(--target "$@"); }
  cmake -S "$top" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DKSEG_WERROR=ON -DKSEG_FUZZ=OFF \
    -DCMAKE_CXX_FLAGS= "${args[@]}" >/dev/null && cmake --build "$dir" -j2 "${targets[@]}"
}
suite() {  # suite DIR: ctest over the unit tests, goldens and fuzz replays
  (cd "$1" && ctest --output-on-failure)
}
# suite_2 DIR: the same, with kseg_tests as two processes, each on half of its test cases, so both
# cores work (every case writes under its own pid-named scratch dir). The two halves must together
# list exactly the cases of the whole, or the tier fails: no case can drop out unseen.
suite_2() {
  local dir="$1" t="$1/kseg_tests" s="$1/shards" rc=0
  (cd "$dir" && ctest --output-on-failure -j2 -E '^unit$') || rc=1
  mkdir -p "$s"
  # Catch2 v2 exits with the number of cases it lists, so the listing's status says nothing.
  "$t" --list-test-names-only | grep -v '^$' > "$s/all"
  [[ -s "$s/all" ]] || { echo "suite_2: $t lists no test case"; return 1; }
  # Catch2 test specs: a backslash escapes the characters that would make a name a pattern.
  sed 's/[]\\,[*"]/\\&/g' "$s/all" | awk -v s="$s" '{ print > (s "/spec" (NR % 2)) }'
  cat <("$t" -f "$s/spec0" --list-test-names-only) <("$t" -f "$s/spec1" --list-test-names-only) |
    grep -v '^$' | sort | cmp -s - <(sort "$s/all") ||
    { echo "suite_2: the two halves do not list the $(wc -l < "$s/all") test cases of $t"; return 1; }
  "$t" -f "$s/spec0" > "$s/out0" 2>&1 & local p0=$!
  "$t" -f "$s/spec1" > "$s/out1" 2>&1 || rc=1
  wait "$p0" || rc=1
  grep -hv "^Filters: " "$s/out0" "$s/out1"  # Catch2 echoes the half's list of names: not worth a screen
  return "$rc"
}
b="$top/build-test"
# The Kafka harness's Maven downloads (an empty ~/.m2 fetches Kafka 4.4.0 and 2.8.2) wait on the
# network, not the CPU: they run while the C++ builds do, and the first Kafka tier waits for them.
kafka_prep_log="$b/kafka-prep.log"
if [[ "${KSEG_SKIP_KAFKA:-0}" != 1 ]]; then
  mkdir -p "$b"
  (set -e; source "$top/tests/kafka/lib.sh"; oracle_classpath >/dev/null; legacy_classpath >/dev/null) \
    >"$kafka_prep_log" 2>&1 &
  kafka_prep=$!
fi
# Release (-O3, as users build): -O3 inlines deeper and warns where -O2 does not (a suite that
# built only at -O2 once failed the README's commands run in order), so this build with -Werror
# is also the g++ -O3 warning check. Its flags are tests/sample.sh's, at the same depth, so the
# libraries' objects come from ccache when sample.sh ran first (as in .ci/run).
tier "build" build "$b/main" Release -DKSEG_SANITIZE=OFF
tier "man pages" "$top/tests/man-check.sh"
tier "help pages" "$top/tests/help-check.sh" "$b/main"
tier "terminal questions" python3 "$top/tests/prompt-check.py" "$b/main"
tier "unit+golden+fuzz-replay" suite "$b/main"
# -O1 as the sanitizers' own documentation advises: the suite ran 3.6x faster than at -O0 (415 s
# against 1,492 s, one process each), and assertions stay on (no NDEBUG). -g1: line tables, all
# a sanitizer report's stack needs. Built by clang++, with -Werror: clang++ warns where g++ does
# not (g++ -O3 is the main build above), from its front end at any optimisation, so this one
# compile is both the sanitizer build and the clang++ warning check (a separate clang++ build
# cost 233 s cold; this one, 592 s cold, took less than g++'s sanitizer build alone, 618-657 s).
tier "build (clang++, asan+ubsan)" build "$b/asan" Debug -DKSEG_SANITIZE=ON -DCMAKE_CXX_COMPILER=clang++ \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1"
tier "unit+golden+fuzz-replay (asan+ubsan)" suite_2 "$b/asan"
# Mutated copies of every kind of Kafka file and special files, each tool, a new seed each run.
tier "fault campaign (asan+ubsan)" python3 "$top/tests/campaign.py" "$b/asan" --runs 40
# What users install: built without the tests, the .deb (lintian, apt) and the static binary in a
# chroot. Its build dirs are $b/deb and $b/static, as deep as tests/sample.sh's, so ccache gives
# them the objects sample.sh compiled with the same flags.
tier "package (.deb, static binary)" "$top/tests/package-check.sh" "$b"
if [[ "${KSEG_SKIP_KAFKA:-0}" != 1 ]]; then
  kafka_ready() { wait "$kafka_prep" || { cat "$kafka_prep_log"; return 1; }; }
  tier "kafka harness (Maven: Kafka 4.4.0, 2.8.2)" kafka_ready
  tier "kafka load-check self-test" "$top/tests/kafka/loadcheck-selftest.sh"
  tier "kafka differential" "$top/tests/kafka/differential.sh" "$b/main/kseg-dump"
  tier "kafka live brokers differential (4.4.0, 2.8.2)" "$top/tests/kafka/differential.sh" "$b/main/kseg-dump" \
    --cases live-broker,live-crash-before,live-crash-after,legacy-broker
  # Benchmark smoke run: tiny segments, one run, asserts nothing about time.
  tier "benchmark smoke" "$top/tests/bench/run.sh" --size 300000 --runs 1 --workloads v2-none-small,v2-lz4,v2-tiny,offsets \
    --out "$(mktemp -d)" --build "$b/main"
  tier "benchmark smoke (truncate)" "$top/tests/bench/truncate.sh" --sizes 20000000,60000000 --segment 8000000 \
    --runs 1 --out "$(mktemp -d)" --build "$b/main"
  tier "benchmark smoke (excise)" "$top/tests/bench/excise.sh" --size 20000000 --segment 8000000 --runs 1 \
    --out "$(mktemp -d)" --build "$b/main"
  tier "benchmark smoke (compact)" "$top/tests/bench/compact.sh" --size 20000000 --workloads 90pct-none,10pct-zstd \
    --out "$(mktemp -d)" --build "$b/main"
  tier "benchmark smoke (log dir)" "$top/tests/bench/logdir.sh" --partitions 40 --offsets 4 --runs 1 --settle 0 \
    --out "$(mktemp -d)" --build "$b/main"
  tier "benchmark smoke (producer state)" "$top/tests/bench/producers.sh" --size 20000000 --segment 8000000 \
    --runs 1 --out "$(mktemp -d)" --build "$b/main"
  tier "kafka reindex oracle" "$top/tests/kafka/reindex-oracle.sh" "$b/main/kseg-reindex"
  tier "kafka producer-state oracle" env KSEG_ORACLE_SEED="$RANDOM" "$top/tests/kafka/producer-oracle.sh" \
    "$b/main/kseg-reindex"
  tier "kafka txn oracle" env KSEG_ORACLE_SEED="$RANDOM" "$top/tests/kafka/txn-oracle.sh" "$b/main/kseg-txn"
  # kseg-info's log end, records, max timestamp and open transactions vs Kafka's load of each partition.
  tier "kafka info oracle" env KSEG_ORACLE_SEED="$RANDOM" "$top/tests/kafka/info-oracle.sh" "$b/main/kseg-info"
  tier "kafka truncate oracle" env KSEG_ORACLE_SEED="$RANDOM" python3 "$top/tests/kafka/truncate-oracle.py" \
    "$b/main/kseg-truncate"
  tier "kafka truncate, then a real broker" "$top/tests/kafka/truncate-broker.sh" "$b/main/kseg-truncate"
  # Untrimmed time indexes: what a real broker deletes or leaves, what kseg-verify calls them, kseg-reindex's mend.
  tier "kafka untrimmed time indexes, a real broker" "$top/tests/kafka/timeindex-broker.sh" "$b/main"
  # A two-phase-commit transaction left open: kseg-txn's verdict, and Kafka's coordinator never aborting it.
  tier "kafka 2PC transaction, a real broker" "$top/tests/kafka/txn2pc-broker.sh" "$b/main"
  # Kafka judges kseg-doctor: scripted damages, a real broker's start-up, its log read back.
  tier "kafka doctor, judged by a real broker" "$top/tests/kafka/doctor-broker.sh" "$b/main/kseg-doctor"
  tier "kafka compact oracle" python3 "$top/tests/kafka/compact-oracle.py" "$b/main/kseg-compact"
  tier "kafka excise oracle" python3 "$top/tests/kafka/excise-oracle.py" "$b/main/kseg-excise"
  tier "kafka excise, then a real broker and consumers" "$top/tests/kafka/excise-broker.sh" "$b/main/kseg-excise"
  tier "kafka encoder oracle" "$top/tests/kafka/encoder-oracle.sh" "$b/main/kseg_reencode"
fi
echo "=== tier times (wall):"
printf '%s' "$times"
printf '%6d s  total\n' $((SECONDS - started))
echo "tiers: $passed passed, $failed failed${failed_names:+ (failed:$failed_names)}"
[[ $failed -eq 0 ]]
