#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg-excise on a Kafka-written partition (v2, lz4, ~100 B records in 16 KiB batches,
# written by Kafka 4.4.0's UnifiedLog): what removing records costs against `cp` of the segments it
# rewrites. Kafka has no tool that removes a record (its nearest, the cleaner, rewrites a segment
# by keys, not by choice), so the yardstick is the copy: kseg-excise reads each touched segment,
# rebuilds one batch and writes the segment anew, so it cannot cost much less than a copy.
# Rows, each on a fresh copy of hard links (kseg-excise never writes a file in place) with
# backups on (the originals renamed into the backup directory):
#   one record  --offsets N, N in the middle of the middle segment: that segment is rewritten,
#               the others not even read; against a durable copy of that segment's .log
#   one key     --key ^K$ (every record of a key, in every segment): against copies of every .log
#   digest      --offsets N --digest (every .log read again for the digest): peak RSS flat
# Both sides make what they write durable (kseg-excise fsyncs, the copy is synced: `cp` then
# `sync FILE`), start with no dirty pages (`sync`) and read a warm page cache (each .log read once
# before the runs). Wall time from bash's
# EPOCHREALTIME, peak RSS from /usr/bin/time. Asserts nothing about time; each result must pass
# kseg-verify --deep and a second run must select nothing, or the script fails.
# Usage: tests/bench/excise.sh [--size BYTES] [--segment BYTES] [--runs N] [--out DIR] [--build DIR]
# Defaults: a 1 GiB partition of 256 MiB segments, 3 runs, results in tests/bench/results/excise/.
# The partition is generated once and cached in $KSEG_BENCH_DIR (default /tmp/kseg-bench).
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
size=$((1 << 30)) segment=$((256 << 20)) runs=3 out="$here/results/excise" build="$top/build-bench"
bench_options excise.sh size segment runs out build -- "$@"
bench_setup kseg-excise kseg-verify kseg-dump
tmp="$(mktemp -d "$cache/excise-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
raw="$out/raw.txt"; : > "$raw"; : > "$out/check.txt"

src="$cache/excise-v2-lz4-$size-$segment/bench-0"
if [[ ! -f "$src/.done" ]]; then
  echo "generating a $size-byte partition of $segment-byte segments with Kafka 4.4.0" >&2
  rm -rf "$src"
  java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.BigSegment "$src" v2-lz4 "$size" "$segment"
  touch "$src/.done"
fi
mapfile -t logs < <(cd "$src" && ls ./*.log | sort | sed 's|^\./||')
mid="${logs[$(( ${#logs[@]} / 2 ))]}" next="${logs[$(( ${#logs[@]} / 2 + 1 ))]:-}"
if [[ -n "$next" ]]; then n=$(( (10#${mid%.log} + 10#${next%.log}) / 2 )); else n=$((10#${mid%.log} + 1)); fi
key="$("$build/kseg-dump" --format jsonl --deep-iteration --print-data-log --from-offset "$n" --to-offset "$n" "$src/$mid" |
       jq -r 'select(.type == "record") | .key' | head -1)"
[[ -n "$key" ]] || { echo "excise.sh: no record at offset $n of $src/$mid" >&2; exit 1; }
echo "benchmarking $(du -sh "$src" | cut -f1): ${#logs[@]} segments; one record: --offsets $n (in $mid); one key: $key" >&2
cat "$src"/*.log > /dev/null
declare -A argv=([one-record]="--offsets $n" [one-key]="--key ^$key\$" [digest]="--offsets $n --digest")
for run in $(seq "$runs"); do
  for row in one-record one-key digest; do
    w="$tmp/w/bench-0"; rm -rf "$tmp/w"; mkdir -p "$tmp/w"; cp -al "$src" "$w"; rm -f "$w/.done"
    sync
    start=$EPOCHREALTIME
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$tmp/t" "$build/kseg-excise" --yes ${argv[$row]} "$w" > "$tmp/kseg.out" 2>&1
    end=$EPOCHREALTIME
    removed="$(grep -oE 'removed [0-9]+ records?' "$tmp/kseg.out" | grep -oE '[0-9]+' | head -1)"
    echo "$row kseg $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $(cat "$tmp/t") ${removed:-0}" >> "$raw"
    if (( run == 1 )); then
      verdict="verify --deep clean"
      "$build/kseg-verify" --deep "$w" > "$tmp/verify.out" 2>&1 || verdict="verify --deep: $(tail -1 "$tmp/verify.out")"
      # shellcheck disable=SC2086
      again="$("$build/kseg-excise" --dry-run --format json ${argv[$row]/--digest/} "$w" | jq '.partitions[0].removed.records // 0')"
      [[ "$again" == 0 ]] || verdict="$verdict; a second run selects $again records"
      echo "$row (${argv[$row]}): removed ${removed:-0}; $verdict" >> "$out/check.txt"
    fi
    # The yardstick, after each kseg run: cp of the .log files the row rewrites.
    files=("$src/$mid"); [[ $row == one-key ]] && files=("$src"/*.log)
    sync
    start=$EPOCHREALTIME
    for f in "${files[@]}"; do cp "$f" "$tmp/copy.log"; sync "$tmp/copy.log"; done
    end=$EPOCHREALTIME
    rm -f "$tmp/copy.log"
    echo "$row cp $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') 0 ${#files[@]}" >> "$raw"
  done
done
python3 - "$raw" "$size" "${#logs[@]}" "$segment" > "$out/results.md" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append((float(f[2]), int(f[3]), int(f[4])))
size, segs, seg = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
what = {"one-record": "one record (--offsets)", "one-key": "every record of one key (--key)",
        "digest": "one record, with --digest"}
print("| partition | selection | records removed | kseg-excise (s) | cp of the .log files it rewrites (s) | kseg / cp | kseg peak RSS (MiB) |")
print("|---|---|---|---|---|---|---|")
for row in ("one-record", "one-key", "digest"):
    k, c = rows.get((row, "kseg")), rows.get((row, "cp"))
    if not k or not c:
        continue
    ks, cs = statistics.median(r[0] for r in k), statistics.median(r[0] for r in c)
    print(f"| {size / 2**30:.3g} GiB, {segs} segments of {seg >> 20} MiB | {what[row]} | {k[0][2]} | {ks:.3f} | "
          f"{cs:.3f} ({c[0][2]} file{'s' if c[0][2] > 1 else ''}) | {ks / cs:.2f} | {max(r[1] for r in k) / 1024:.1f} |")
EOF
cat "$out/results.md" "$out/check.txt"
# Not about time: a result that does not verify, or that a second run still selects from, fails.
! grep -qv "verify --deep clean$" "$out/check.txt"
