#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg-compact against Kafka 4.4.0's own log cleaner on the same Kafka-written
# partitions, in one run: for each workload, a copy cleaned by Kafka's Cleaner in-process
# (kseg.oracle.CompactBench clean: rounds until clean with the broker's default map (--map),
# timed around the rounds alone, no JVM start, no log load) and a copy cleaned by kseg-compact as
# users run it (its own map within --memory: one round, keys beyond it spilled; timed as a
# process with /usr/bin/time: wall time and peak RSS), the same clock on both sides, and `cp -r`
# of the partition as the floor (read + write of every byte). It checks that both sides keep the
# same records (LoadCheck), and asserts nothing about time.
# Usage:
#   tests/bench/compact.sh [--size BYTES] [--workloads a,b] [--map BYTES] [--memory BYTES] [--out DIR] [--build DIR]
# Workloads: 10pct-none, 90pct-none, 10pct-zstd, 90pct-zstd (~100-byte records, that share of
# them superseded), offsets (a __consumer_offsets-like partition: ~60-byte records, 99%
# superseded) and offsets-20m (the same records, 2 GiB whatever --size, 20 million distinct keys:
# a __consumer_offsets whose cleaner died). Defaults: 1 GiB, all six, Kafka's 128 MiB map, kseg's
# default --memory, results in tests/bench/results/compact/.
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
size=$((1 << 30)) workloads="10pct-none,90pct-none,10pct-zstd,90pct-zstd,offsets,offsets-20m" map=$((128 << 20))
memory="" out="$here/results/compact" build="$top/build-bench"
bench_options compact.sh size workloads map memory out build -- "$@"
bench_setup kseg-compact
tmp="$(mktemp -d "$cache/compact-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
now=1800000000000
table="$out/results.md"
{
  echo "Partition: $size bytes of 128 MiB segments (offsets-20m: 2 GiB), until clean. Kafka = Kafka 4.4.0's Cleaner in-process with an offset map of $map bytes (rounds only: no JVM start, no log load); kseg = kseg-compact as users run it (its own map within --memory ${memory:-(default)}: one round, keys beyond it spilled). Ratio = Kafka / kseg."
  echo
  echo "| workload | segments | keys | rounds (Kafka / kseg) | cp -r (s) | Kafka cleaner (s) | kseg-compact (s) | ratio | kseg / cp | kseg peak RSS (MiB) | spilled (MiB) | bytes after |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$table"
IFS=, read -r -a list <<< "$workloads"
for w in "${list[@]}"; do
  case "$w" in
    offsets) part="__consumer_offsets-0" sup=0.99 codec=none rec=60 wsize=$size ;;
    # 2 GiB of 68-byte records (60 + 8 of the generator's count): 31.6 million, 20 million keys.
    offsets-20m) part="__consumer_offsets-0" wsize=$((2 << 30)) codec=none rec=60
      sup=$(python3 -c "print(1 - 20e6 / ($wsize // 68))") ;;
    *) part="bench-0" sup="0.${w%%pct-*}"; codec="${w#*-}" rec=100 wsize=$size ;;
  esac
  src="$cache/compact-$w-$wsize/$part"
  if [[ ! -f "$src/../.done" ]]; then
    echo "generating $w ($wsize bytes) with Kafka 4.4.0" >&2
    rm -rf "$(dirname "$src")"; mkdir -p "$(dirname "$src")"
    java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.CompactBench gen "$src" "$wsize" "$sup" "$codec" "$rec"
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
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/kseg-compact" "$tmp/kseg/$part" --now "$now" ${memory:+--memory "$memory"} \
    --config cleanup.policy=compact --until-clean --no-backup --json > "$tmp/kseg.json"
  read -r kseg_s rss_kb < "$tmp/time"
  read -r kseg_rounds keys spilled < <(python3 -c "import json,sys; r = json.load(open(sys.argv[1]))['partitions'][0]['rounds']
print(len(r), r[0]['offset_map']['keys'], sum((x['offset_map']['spill'] or {}).get('bytes', 0) for x in r))" "$tmp/kseg.json")
  after=$(cat "$tmp/kseg/$part"/*.log | wc -c)
  # The records (offset, key, value, ...) Kafka's load serves: Kafka's rounds and kseg's one
  # round keep the same ones; their batches may be cut differently (a round per map of keys).
  java -Xmx2g -cp "$cp" kseg.oracle.LoadCheck "$tmp/kafka/$part" | grep '^offset=' > "$tmp/kafka.load" || true
  java -Xmx2g -cp "$cp" kseg.oracle.LoadCheck "$tmp/kseg/$part" | grep '^offset=' > "$tmp/kseg.load" || true
  if [[ ! -s "$tmp/kafka.load" ]] || ! cmp -s "$tmp/kafka.load" "$tmp/kseg.load"; then
    echo "compact.sh: $w: kseg's records differ from Kafka's" >&2; exit 1
  fi
  echo "$w: Kafka and kseg keep the same $(wc -l < "$tmp/kseg.load") records" >&2
  python3 -c "import sys; w, segs, keys, kr, sr, cp_s, k, s, rss, sp, after = sys.argv[1:]; cp_s, k, s = float(cp_s), float(k), float(s)
print(f'| {w} | {segs} | {int(keys):,} | {kr} / {sr} | {cp_s:.3f} | {k:.3f} | {s:.3f} | {k / s:.2f}x | {s / cp_s:.2f}x | {int(rss) / 1024:.1f} | {int(sp) / 2**20:.1f} | {after} |')" \
    "$w" "$segs" "$keys" "$kafka_rounds" "$kseg_rounds" "$cp_s" "$kafka_s" "$kseg_s" "$rss_kb" "$spilled" "$after" >> "$table"
done
cat "$table"
