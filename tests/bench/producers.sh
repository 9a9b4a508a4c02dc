#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks producer-state rebuilding against Kafka's own, on the same Kafka-written
# transactional partition (workload v2-txn: 64 transactional and 64 idempotent producers,
# ~4 KiB batches, a marker after 1-8 batches of a transaction, a third aborted), in one run,
# alternating the two sides, with every producer snapshot deleted first:
#   Kafka:  UnifiedLog.create after an unclean shutdown, recovery point at the active segment's
#           base (kseg.oracle.TimeProducerState, in-process, JVM start excluded): LogLoader
#           recovers the active segment and rebuilds producer state by replaying the whole log;
#   kseg:   kseg-reindex --producer-state (every segment's batches checked, indexes rebuilt,
#           every .txnindex and the snapshots Kafka's recovery writes), and kseg-txn (producer
#           state at the log end, read only), as processes (wall time from EPOCHREALTIME,
#           peak RSS from /usr/bin/time).
# It asserts nothing about time; it checks that each side ends with the same producer state
# (Kafka's, kseg-txn's, and that of the snapshot kseg-reindex writes at the log end).
# Usage: tests/bench/producers.sh [--size BYTES] [--segment BYTES] [--runs N] [--out DIR] [--build DIR]
# Defaults: 1 GiB of 256 MiB segments, 3 runs, results in tests/bench/results/producers/.
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
size=$((1 << 30)) segment=$((256 << 20)) runs=3 out="$here/results/producers" build="$top/build-bench"
bench_options producers.sh size segment runs out build -- "$@"
bench_setup kseg-reindex kseg-txn
src="$cache/producers-$size-$segment/bench-0"
if [[ ! -f "$src/.done" ]]; then
  echo "generating a $size-byte transactional partition of $segment-byte segments with Kafka 4.4.0" >&2
  java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.BigSegment "$src" v2-txn "$size" "$segment"
  touch "$src/.done"
fi
tmp="$(mktemp -d "$cache/producers-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
raw="$out/raw.txt"; : > "$raw"
now=1700000000000
last="$(cd "$src" && ls ./*.log | sort | tail -n 1)"; last="${last#./}"
recovery_point=$((10#${last%.log}))
bytes="$(du -b --apparent-size "$src"/*.log | awk '{s += $1} END {print s}')"

# copy KIND: a copy of the partition without snapshots; hard links, except the files Kafka
# changes in place (the active segment and its indexes, recovered and resized).
copy() {
  rm -rf "$tmp/$1"; mkdir -p "$tmp/$1"
  cp -al "$src" "$tmp/$1/bench-0"
  rm -f "$tmp/$1/bench-0"/*.snapshot "$tmp/$1/bench-0/.done"
  for f in "$tmp/$1/bench-0/${last%.log}".*; do cp --remove-destination "$src/$(basename "$f")" "$f"; done
  sync  # the copies' dirty pages written back before the clock starts
}
# Every side starts from the page cache (kseg-reindex drops what it read from it as it goes).
warm() { cat "$1"/*.log "$1"/*.index "$1"/*.timeindex > /dev/null; }
# timed OUT CMD...: runs CMD, stdout to OUT; sets secs (wall) and kib (peak RSS). The wall time
# comes from EPOCHREALTIME: /usr/bin/time's %e has 10 ms steps, and kseg-txn on the smoke
# tier's 20 MB took under 5 ms, a time of 0.00 that the report then divided by.
timed() {
  local to="$1" start end; shift
  start=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$tmp/time" "$@" > "$to"
  end=$EPOCHREALTIME
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')
  kib=$(tail -n 1 "$tmp/time")
}
for ((r = 1; r <= runs; r++)); do
  copy kafka
  warm "$tmp/kafka/bench-0"
  read -r kafka_ms leo < <(java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.TimeProducerState \
    "$tmp/kafka/bench-0" "$recovery_point" "$tmp/kafka-producers.txt")
  copy kseg
  # kseg-txn first: kseg-reindex writes the snapshot at the log end, which kseg-txn would load.
  warm "$tmp/kseg/bench-0"
  timed "$tmp/txn.json" "$build/kseg-txn" --format json --now "$now" "$tmp/kseg/bench-0"
  txn_s=$secs txn_kib=$kib
  warm "$tmp/kseg/bench-0"
  timed /dev/null "$build/kseg-reindex" --no-backup --producer-state --now "$now" "$tmp/kseg/bench-0"
  reindex_s=$secs reindex_kib=$kib
  python3 - "$tmp/txn.json" > "$tmp/kseg-producers.txt" <<'EOF'
import json, sys
keys = ("producer_id", "epoch", "last_sequence", "last_offset", "timestamp_ms", "coordinator_epoch", "txn_first_offset")
for p in json.load(open(sys.argv[1]))["partitions"]:
    for e in p["producers"]:
        print("%d epoch %d lastSeq %d lastOffset %d timestamp %d coordinatorEpoch %d txnFirst %d" % tuple(e[k] for k in keys))
EOF
  # kseg-reindex's snapshot at the log end, read back by kseg-txn (which then replays nothing).
  "$build/kseg-txn" --format json --now "$now" "$tmp/kseg/bench-0" > "$tmp/txn-after.json"
  python3 - "$tmp/txn-after.json" > "$tmp/kseg-snapshot-producers.txt" <<'EOF2'
import json, sys
keys = ("producer_id", "epoch", "last_sequence", "last_offset", "timestamp_ms", "coordinator_epoch", "txn_first_offset")
for p in json.load(open(sys.argv[1]))["partitions"]:
    assert p["replayed_batches"] == 0, "kseg-reindex left no snapshot at the log end"
    for e in p["producers"]:
        print("%d epoch %d lastSeq %d lastOffset %d timestamp %d coordinatorEpoch %d txnFirst %d" % tuple(e[k] for k in keys))
EOF2
  same=no
  cmp -s "$tmp/kafka-producers.txt" "$tmp/kseg-producers.txt" &&
    cmp -s "$tmp/kafka-producers.txt" "$tmp/kseg-snapshot-producers.txt" && same=yes
  echo "run $r: kafka_ms $kafka_ms reindex_s $reindex_s reindex_kib $reindex_kib txn_s $txn_s txn_kib $txn_kib leo $leo same_state $same" | tee -a "$raw"
  [[ "$same" == yes ]] || { echo "producers.sh: kseg's producer state differs from Kafka's" >&2; exit 1; }
done
python3 - "$raw" "$size" "$segment" "$bytes" > "$out/report.md" <<'EOF'
import statistics, sys
rows = [dict(zip(l.split()[2::2], l.split()[3::2])) for l in open(sys.argv[1])]
med = lambda k: statistics.median(float(r[k]) for r in rows)
kafka, reindex, txn = med("kafka_ms") / 1000, med("reindex_s"), med("txn_s")
print(f"Producer-state rebuild of a {int(sys.argv[4]) / 2**30:.2f} GiB transactional partition "
      f"({int(sys.argv[3]) >> 20} MiB segments, log end {rows[0]['leo']}), snapshots deleted; medians of {len(rows)} runs")
print()
print("| side | s | Kafka / side | peak RSS MiB |")
print("|---|---|---|---|")
ratio = lambda t: f"{kafka / t:.1f}x" if t > 0 else "-"
print(f"| Kafka 4.4.0 LogLoader (unclean load, in-process) | {kafka:.3f} | 1.0x | - |")
print(f"| kseg-reindex --producer-state | {reindex:.3f} | {ratio(reindex)} | {med('reindex_kib') / 1024:.1f} |")
print(f"| kseg-txn | {txn:.3f} | {ratio(txn)} | {med('txn_kib') / 1024:.1f} |")
print()
print("Producer state at the log end equal in every run: Kafka's, kseg-txn's, and that of kseg-reindex's snapshot at the log end.")
EOF
cat "$out/report.md"
