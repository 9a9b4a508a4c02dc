#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg-truncate against Kafka's own cut on the same Kafka-written partitions, in one
# run, alternating the two sides: a cut in the middle of the middle segment (--to-offset vs
# UnifiedLog.truncateTo) and a log start offset moved to the middle of the partition
# (--log-start vs maybeIncrementLogStartOffset + deleteOldSegments), on partitions of two sizes
# made of segments of the same size, to show that a cut costs the segment it cuts, not the
# partition. It asserts nothing about time (only that each side's result equals the other's).
# Usage:
#   tests/bench/truncate.sh [--sizes BYTES,BYTES] [--segment BYTES] [--runs N] [--out DIR] [--build DIR]
# Defaults: 1 GiB and 10 GiB partitions of 256 MiB segments (workload v2-none-10k), 3 runs,
# results in tests/bench/results/truncate/. Partitions are generated once with the Kafka 4.4.0
# harness and cached in $KSEG_BENCH_DIR (default /tmp/kseg-bench).
#
# Each run works on a copy made of hard links (kseg-truncate never writes a file in place: it
# writes new files and renames them); Kafka truncates its files in place, so its copy has real
# copies of the files it changes (the cut segment's, the active segment's indexes). Kafka's side
# is timed in-process (kseg.oracle.TimeTruncate: load as after a clean shutdown, the cut, close;
# JVM start excluded, reported as load / cut / close), kseg's as a process (/usr/bin/time: wall
# time and peak RSS), backups on (hard links and renames).
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
sizes="$((1 << 30)),$((10 << 30))" segment=$((256 << 20)) runs=3 out="$here/results/truncate" build="$top/build-bench"
bench_options truncate.sh sizes segment runs out build -- "$@"
bench_setup kseg-truncate
tmp="$(mktemp -d "$cache/truncate-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
raw="$out/raw.txt"; : > "$raw"; : > "$out/check.txt"

IFS=, read -r -a list <<< "$sizes"
for size in "${list[@]}"; do
  src="$cache/truncate-$size-$segment/bench-0"
  if [[ ! -f "$src/.done" ]]; then
    echo "generating a $size-byte partition of $segment-byte segments with Kafka 4.4.0" >&2
    java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.BigSegment "$src" v2-none-10k "$size" "$segment"
    touch "$src/.done"
  fi
  mapfile -t logs < <(cd "$src" && ls ./*.log | sort)
  mid="${logs[$(( ${#logs[@]} / 2 ))]}"; mid="${mid#./}"
  next="${logs[$(( ${#logs[@]} / 2 + 1 ))]:-}"; next="${next#./}"
  base=$((10#${mid%.log}))
  last="${logs[-1]}"; last="${last#./}"
  # The middle of the middle segment, and the middle of the partition.
  if [[ -n "$next" ]]; then end_mid=$(( (base + 10#${next%.log}) / 2 )); else end_mid=$((base + 1)); fi
  start_mid=$base
  echo "benchmarking $size bytes: ${#logs[@]} segments; --to-offset $end_mid, --log-start $start_mid" >&2
  for run in $(seq "$runs"); do
    for mode in to-offset log-start; do
      n=$([[ $mode == to-offset ]] && echo "$end_mid" || echo "$start_mid")
      order=(kseg kafka); (( run % 2 == 0 )) && order=(kafka kseg)
      for side in "${order[@]}"; do
        w="$tmp/$side/bench-0"; rm -rf "$tmp/$side"; mkdir -p "$tmp/$side"
        cp -al "$src" "$w"; rm -f "$w/.done"
        if [[ $side == kafka ]]; then
          for f in "$w/${mid%.log}".* "$w/${last%.log}.index" "$w/${last%.log}.timeindex"; do
            [[ -f "$f" ]] && { cp --remove-destination "$src/$(basename "$f")" "$f"; }
          done
          read -r load op close _ < <(java -Xmx1g -XX:+UseSerialGC -cp "$cp" kseg.oracle.TimeTruncate "$w" "$mode" "$n")
          echo "$size $mode kafka ${#logs[@]} $(awk -v a="$load" -v b="$op" -v c="$close" 'BEGIN { printf "%.4f %.4f %.4f", a / 1000, b / 1000, c / 1000 }')" >> "$raw"
        else
          start=$EPOCHREALTIME
          /usr/bin/time -f "%M" -o "$tmp/t" "$build/kseg-truncate" "--$mode" "$n" "$w" > "$tmp/kseg.out" 2>&1
          end=$EPOCHREALTIME
          echo "$size $mode kseg ${#logs[@]} $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $(cat "$tmp/t")" >> "$raw"
        fi
      done
      # The first run's results, kseg's and Kafka's, compared as the truncate oracle does.
      if (( run == 1 )); then
        python3 "$top/tests/kafka/truncate_compare.py" "$tmp/kseg/bench-0" "$tmp/kafka/bench-0" > "$tmp/cmp" || true
        echo "$size --$mode $n: $( [[ -s $tmp/cmp ]] && tr '\n' ';' < "$tmp/cmp" || echo "kseg's files equal Kafka's")" >> "$out/check.txt"
      fi
    done
  done
done
python3 - "$raw" "$segment" > "$out/results.md" <<'EOF'
import statistics, sys
rows, segments = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((int(f[0]), f[1], f[2]), []).append([float(x) for x in f[4:]])
    segments[int(f[0])] = int(f[3])
seg = int(sys.argv[2])
print("| partition | segments | cut | kseg-truncate (s) | kseg peak RSS (MiB) | Kafka cut alone (s) | Kafka load + cut + close (s) | Kafka cut alone / kseg | Kafka load + cut + close / kseg |")
print("|---|---|---|---|---|---|---|---|---|")
for size in sorted({k[0] for k in rows}):
    for mode in ("to-offset", "log-start"):
        k, j = rows.get((size, mode, "kseg")), rows.get((size, mode, "kafka"))
        if not k or not j:
            continue
        ks = statistics.median(r[0] for r in k)
        rss = max(r[1] for r in k) / 1024
        op = statistics.median(r[1] for r in j)
        total = statistics.median(r[0] + r[1] + r[2] for r in j)
        print(f"| {size / 2**30:.3g} GiB | {segments[size]} of {seg >> 20} MiB | --{mode} | {ks:.3f} | {rss:.1f} | {op:.3f} | {total:.3f} | {op / ks:.2f} | {total / ks:.2f} |")
EOF
cat "$out/results.md" "$out/check.txt"
# Not about time: a run whose results differ from Kafka's fails.
! grep -qv "kseg's files equal Kafka's" "$out/check.txt"
