#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Differential tier: fresh cases from a new random seed, DumpLogSegments vs a kseg-dump binary.
# Usage: differential.sh PATH_TO_KSEG_DUMP [--seed N] [--cases a,b,...]
# Generates the cases into a temp dir, takes Kafka's output for every golden argument set
# (same plan and runner as goldens.sh, working directory /tmp/kseg-golden/CASE), runs
# PATH_TO_KSEG_DUMP with the same arguments in the same working directory, and compares
# stdout byte for byte (where Kafka crashed: its stdout must be a prefix of ours and kseg
# must exit non-zero, or exit 0 naming what Kafka crashed on below error). Prints "N passed, M failed"; exits 1 on any difference.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ $# -ge 1 ]] || { echo "usage: differential.sh PATH_TO_KSEG_DUMP [--seed N] [--cases a,b,...]" >&2; exit 2; }
kseg="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
seed="$(( (RANDOM << 15 | RANDOM) + 2 ))"
cases="v2-zstd,v1-gzip,v0-lz4,mixed-magic,transactions,transactions-tv2,compacted,cleaned-transactions,torn-tail,binary-values,nested-batches"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seed) seed="$2"; shift 2 ;;
        --cases) cases="$2"; shift 2 ;;
        *) echo "differential.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
echo "differential: seed $seed, cases $cases"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$KAFKA_DIR/regen.sh" --seed "$seed" --out "$tmp/corpus" --cases "$cases" > "$tmp/regen.log" 2>&1 \
    || { cat "$tmp/regen.log" >&2; exit 1; }

# healthy_by_kseg CWD ARGS...: kseg-dump exits 0 with the JSON output and names at least one
# problem, none of them an error.
healthy_by_kseg() {
    local cwd="$1"; shift
    (cd "$cwd" && "$kseg" "$@" --format jsonl 2>/dev/null) \
        | jq -se '[.[] | select(.type == "problem")] | length > 0 and all(.severity != "error")' >/dev/null
}

passed=0 failed=0
IFS=, read -r -a list <<< "$cases"
for c in "${list[@]}"; do
    cwd="/tmp/kseg-golden/$c"
    rm -rf "$cwd"
    mkdir -p "$cwd"
    (cd "$tmp/corpus/$c" && tar cf - --exclude=./dump .) | (cd "$cwd" && tar xf -)
    for args_file in "$tmp/corpus/$c"/dump/*.args; do
        name="$(basename "$args_file" .args)"
        mapfile -t args < "$args_file"
        rc=0
        (cd "$cwd" && "$kseg" "${args[@]}" > "$tmp/out" 2> "$tmp/err") || rc=$?
        want="${args_file%.args}.out"
        kafka_exit="$(cat "${args_file%.args}.exit")"
        if [[ "$kafka_exit" == 0 ]] && cmp -s "$tmp/out" "$want"; then
            passed=$((passed + 1))
        elif [[ "$kafka_exit" != 0 ]] && cmp -s "$want" <(head -c "$(stat -c %s "$want")" "$tmp/out") \
            && { [[ "$rc" != 0 ]] || healthy_by_kseg "$cwd" "${args[@]}"; }; then
            # Kafka died here; kseg must print the same up to that point, go on
            # past it and exit non-zero, unless kseg's own rules call what Kafka
            # died on healthy (an index Kafka itself left preallocated).
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $c/$name: stdout differs (first difference below)"
            diff "${args_file%.args}.out" "$tmp/out" | head -5 || true
        fi
    done
    # A broker killed with SIGKILL and restarted: kseg-reindex on the log dir as the kill
    # left it must write the indexes Kafka's own recovery wrote at the restart.
    if [[ "$c" == live-crash-before && -d "$tmp/corpus/live-crash-after" ]]; then
        reindex="$(dirname "$kseg")/kseg-reindex"
        rm -rf "$tmp/crash" && cp -a "$tmp/corpus/$c" "$tmp/crash"
        same=1
        "$reindex" --no-backup "$tmp/crash/flood-0" > "$tmp/reindex" 2>&1 || same=0
        for f in "$tmp/corpus/live-crash-after/flood-0"/*.log "$tmp/corpus/live-crash-after/flood-0"/*.index \
                 "$tmp/corpus/live-crash-after/flood-0"/*.timeindex; do
            cmp -s "$f" "$tmp/crash/flood-0/$(basename "$f")" || { same=0; echo "differs: $(basename "$f")"; }
        done
        if [[ $same -eq 1 ]]; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $c: kseg-reindex's recovery differs from Kafka's at the restart"; cat "$tmp/reindex"
        fi
    fi
    # A log dir the broker shut down cleanly: a plain kseg-reindex, with no option, has nothing
    # to change; it finds idempotent's index.interval.bytes (1024) in the metadata log, and with
    # Kafka's default in its place it would rewrite that partition's indexes.
    if [[ "$c" == live-broker ]]; then
        reindex="$(dirname "$kseg")/kseg-reindex"
        rm -rf "$tmp/clean" && cp -a "$tmp/corpus/$c" "$tmp/clean" && rm -rf "$tmp/clean/dump"
        rc=0
        "$reindex" --dry-run "$tmp/clean" > "$tmp/reindex" 2>&1 || rc=$?
        rc4096=0
        "$reindex" --dry-run --index-interval-bytes 4096 "$tmp/clean/idempotent-0" > /dev/null 2>&1 || rc4096=$?
        if [[ $rc -eq 0 && $rc4096 -eq 1 ]] \
            && grep -q "idempotent-0: settings: index.interval.bytes = 1024 (KRaft metadata" "$tmp/reindex"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $c: kseg-reindex --dry-run plans changes on a cleanly shut down log dir (exit $rc," \
                 "$rc4096 with Kafka's default interval)"; cat "$tmp/reindex"
        fi
    fi
    # A fresh log dir of a 2.8.2 broker (SIGTERM: clean): its indexes name whole appends of
    # v0/v1 messages, not what 4.4's recovery writes, but serve the log: a plain kseg-reindex
    # keeps them and plans nothing.
    if [[ "$c" == legacy-broker ]]; then
        reindex="$(dirname "$kseg")/kseg-reindex"
        rm -rf "$tmp/clean" && cp -a "$tmp/corpus/$c" "$tmp/clean" && rm -rf "$tmp/clean/dump"
        rc=0
        "$reindex" --dry-run -v "$tmp/clean" > "$tmp/reindex" 2>&1 || rc=$?
        if [[ $rc -eq 0 ]]; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $c: kseg-reindex --dry-run plans changes on a 2.8.2 broker's log dir (exit $rc)"
            grep -v "settings:\|nothing to change" "$tmp/reindex" | head -20
        fi
    fi
    # Every case but the damaged recipes is healthy by construction: kseg-verify must say so.
    # Segments the live cleaner replaced wait as .deleted files (file.delete.delay.ms); each
    # is what a partition held between cleaner passes, so each is checked on its own too.
    if [[ ! " torn-tail torn-header zero-tail zero-appended corrupt-size crc-mismatch " =~ " $c " ]]; then
        verify="$(dirname "$kseg")/kseg-verify"
        parts=()
        for d in "$tmp/corpus/$c"/*/; do
            [[ "$(basename "$d")" != dump ]] || continue
            parts+=("$d")
            for l in "$d"*.log.deleted; do
                [[ -e "$l" ]] || continue
                base="$(basename "$l" .log.deleted)" pass="$tmp/passes/$(basename "$d")-$base-0"
                mkdir -p "$pass"
                for f in "$d$base".*.deleted; do cp "$f" "$pass/$(basename "$f" .deleted)"; done
                parts+=("$pass")
            done
        done
        if "$verify" --deep "${parts[@]}" > "$tmp/verify" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $c: kseg-verify --deep finds problems in a healthy case"
            grep -v ': 0 errors, 0 warnings' "$tmp/verify" | head -20 || true
        fi
        rm -rf "$tmp/passes"
    fi
    rm -rf "$cwd"
done
echo "differential: seed $seed"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
