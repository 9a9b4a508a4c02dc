#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg-compact against Kafka 4.4.0's own log cleaner on the same Kafka-written
# partitions, in one run: for each workload, a copy cleaned by Kafka's Cleaner in-process
# (kseg.oracle.CompactBench clean: rounds until clean, timed around the rounds alone, no JVM
# start, no log load) and a copy cleaned by kseg-compact --until-clean (timed as a process with
# /usr/bin/time: wall time and peak RSS), the same offset map size and clock on both sides, and
# `cp -r` of the partition as the floor (read + write of every byte). It checks that both sides
# keep the same records (LoadCheck digests), and asserts nothing about time.
# Usage:
#   tests/bench/compact.sh [--size BYTES] [--workloads a,b] [--map BYTES] [--out DIR] [--build DIR]
# Workloads: 10pct-none, 90pct-none, 10pct-zstd, 90pct-zstd (~100-byte records, that share of
# them superseded) and offsets (a __consumer_offsets-like partition: ~60-byte records, 99%
# superseded). Defaults: 1 GiB, all five, 128 MiB map, results in tests/bench/results/compact/.
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
size=$((1 << 30)) workloads="10pct-none,90pct-none,10pct-zstd,90pct-zstd,offsets" map=$((128 << 20))
out="$here/results/compact" build="$top/build-bench"
bench_options compact.sh size workloads map out build -- "$@"
bench_setup kseg-compact
tmp="$(mktemp -d "$cache/compact-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
now=1800000000000
table="$out/results.md"
{
  echo "Partition: $size bytes of 128 MiB segments, offset map $map bytes, both sides until clean. Kafka = Kafka 4.4.0's Cleaner in-process (rounds only: no JVM start, no load). Ratio = Kafka / kseg."
  echo
  echo "| workload | segments | rounds (Kafka / kseg) | cp -r (s) | Kafka cleaner (s) | kseg-compact (s) | ratio | kseg / cp | kseg peak RSS (MiB) | bytes after |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$table"
IFS=, read -r -a list <<< "$workloads"
for w in "${list[@]}"; do
  case "$w" in
    offsets) part="__consumer_offsets-0" sup=0.99 codec=none rec=60 ;;
    *) part="bench-0" sup="0.${w%%pct-*}"; codec="${w#*-}" rec=100 ;;
  esac
  src="$cache/compact-$w-$size/$part"
  if [[ ! -f "$src/../.done" ]]; then
    echo "generating $w ($size bytes) with Kafka 4.4.0" >&2
    rm -rf "$(dirname "$src")"; mkdir -p "$(dirname "$src")"
    java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.CompactBench gen "$src" "$size" "$sup" "$codec" "$rec"
    touch "$src/../.done"
  fi
  segs=$(ls "$src"/*.log | wc -l)
  rm -rf "$tmp"/*
  sync
  t0=$(date +%s.%N); cp -r "$(dirname "$src")" "$tmp/cp"; sync; t1=$(date +%s.%N)
  cp_s=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
  mv "$tmp/cp" "$tmp/kafka"
  kres=$(java -Xmx3g -XX:+UseSerialGC -cp "$cp" kseg.oracle.CompactBench clean "$tmp/kafka/$part" "$map" "$now")
  kafka_rounds=$(awk '{print $2}' <<< "$kres"); kafka_s=$(awk '{printf "%.3f", $4 / 1000}' <<< "$kres")
  cp -r "$(dirname "$src")" "$tmp/kseg"; sync
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/kseg-compact" "$tmp/kseg/$part" --now "$now" --offset-map-bytes "$map" \
    --config cleanup.policy=compact --until-clean --no-backup --json > "$tmp/kseg.json"
  read -r kseg_s rss_kb < "$tmp/time"
  kseg_rounds=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['partitions'][0]['rounds']))" "$tmp/kseg.json")
  after=$(cat "$tmp/kseg/$part"/*.log | wc -c)
  java -Xmx2g -cp "$cp" kseg.oracle.LoadCheck "$tmp/kafka/$part" | grep -v '^#' > "$tmp/kafka.load"
  java -Xmx2g -cp "$cp" kseg.oracle.LoadCheck "$tmp/kseg/$part" | grep -v '^#' > "$tmp/kseg.load"
  if ! cmp -s "$tmp/kafka.load" "$tmp/kseg.load"; then echo "compact.sh: $w: kseg's records differ from Kafka's" >&2; exit 1; fi
  echo "$w: Kafka and kseg keep the same records" >&2
  python3 -c "import sys; w, segs, kr, sr, cp_s, k, s, rss, after = sys.argv[1:]; cp_s, k, s = float(cp_s), float(k), float(s)
print(f'| {w} | {segs} | {kr} / {sr} | {cp_s:.3f} | {k:.3f} | {s:.3f} | {k / s:.2f}x | {s / cp_s:.2f}x | {int(rss) / 1024:.1f} | {after} |')" \
    "$w" "$segs" "$kafka_rounds" "$kseg_rounds" "$cp_s" "$kafka_s" "$kseg_s" "$rss_kb" "$after" >> "$table"
done
cat "$table"
