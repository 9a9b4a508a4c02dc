#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg against Kafka's own tools on the same Kafka-written segments, in one run,
# alternating the two sides, and reports medians, ratios, peak RSS and the physical limits
# (page-cache read with cat; each codec's own decompression). Not a test: it asserts nothing
# about time. Usage:
#   tests/bench/run.sh [--size BYTES] [--runs N] [--workloads a,b] [--rows a,b] [--out DIR] [--build DIR]
# Defaults: 1 GiB segments, 3 runs, every workload, results in tests/bench/results/, a
# Release build in build-bench/ (--build reuses another build dir, as the smoke tier does).
# --rows limits the commands to some of dump, verify, reindex, deepiter (--deep-iteration alone,
# both sides), json (kseg-dump's JSON against its own text of the same content), seek (a
# --from-offset filter near the end of the segment: seeking with the .index against
# --no-seek's scan from byte 0, same output); cat is always measured.
# Segments are generated once with the Kafka 4.4.0 harness and cached in $KSEG_BENCH_DIR
# (default /tmp/kseg-bench).
set -euo pipefail
export LC_ALL=C  # EPOCHREALTIME and awk with a decimal point
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
size=$((1 << 30)) runs=3 out="$here/results" build="$top/build-bench"
workloads="v2-none-small,v2-none-10k,v2-lz4,v2-zstd,v2-gzip,v2-snappy,v1-gzip,v2-tiny,offsets"
rows="dump,verify,reindex,deepiter,json,seek"
bench_options run.sh size runs workloads rows out build -- "$@"
bench_setup kseg-dump kseg-verify kseg-reindex kseg_bench_decompress
# kafka-dump-log.sh runs DumpLogSegments through kafka-run-class.sh with these JVM options.
kafka_jvm=(java -Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true -cp "$cp"
  org.apache.kafka.tools.DumpLogSegments)

want() { [[ ",$rows," == *",$1,"* ]]; }

# measure NAME CMD...: runs CMD with stdout to /dev/null, appends "NAME seconds maxrss_kib" to $raw.
# The segment is read into the page cache first, so every command starts warm
# whatever the one before it left (kseg-verify evicts what it brought in).
# Wall time from EPOCHREALTIME (microseconds; starting /usr/bin/time adds ~1 ms to
# both sides): /usr/bin/time's own %e has 10 ms steps, a tenth of a kseg run.
measure() {
  local name="$1" start end; shift
  cat "$log" > /dev/null
  start=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || true
  end=$EPOCHREALTIME
  echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $(cat "$tmp/t")" >> "$raw"
}
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
raw="$out/raw.txt"; : > "$raw"
check="$out/reindex-check.txt"; : > "$check"

empty="$tmp/empty/00000000000000000000.log"; mkdir -p "$(dirname "$empty")"; : > "$empty"
IFS=, read -r -a list <<< "$workloads"
for w in "${list[@]}"; do
  dir="$cache/$w-$size/bench-0"
  if [[ ! -f "$dir/00000000000000000000.log" ]]; then
    echo "generating $w ($size bytes) with Kafka 4.4.0" >&2
    java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.BigSegment "$dir" "$w" "$size"
  fi
  log="$dir/00000000000000000000.log" idx="$dir/00000000000000000000.index"
  echo "benchmarking $w: $(stat -c %s "$log") bytes" >&2
  # Start every workload from page cache that a read filled: drop the files'
  # pages and read them back. Pages left by Kafka's small appends made the
  # same reads up to twice as slow (cat of v2-none-small: 0.16 s before,
  # 0.08-0.09 s after), and how many of them a run met depended on what the
  # machine had evicted since.
  for f in "$log" "$idx"; do
    sync "$f"  # dirty pages (a segment just generated) are not dropped
    dd if="$f" iflag=nocache count=0 status=none
    cat "$f" > /dev/null
  done
  for ((r = 0; r < runs; r++)); do
    measure "$w cat" cat "$log"
    if want verify && [[ "$w" != *none* && "$w" != v2-tiny && "$w" != offsets ]]; then  # compressed ones
      measure "$w codec" "$build/tests/bench/kseg_bench_decompress" "$log"
    fi
    if want dump || want verify; then measure "$w jvm-start" "${kafka_jvm[@]}" --files "$empty"; fi
    # kseg-verify --deep against kafka-dump-log --deep-iteration: a full check vs Kafka's reader.
    if want verify && ((r % 2 == 0)); then
      measure "$w verify kseg" "$build/kseg-verify" --deep "$log"
      measure "$w verify kafka" "${kafka_jvm[@]}" --deep-iteration --files "$log"
    elif want verify; then
      measure "$w verify kafka" "${kafka_jvm[@]}" --deep-iteration --files "$log"
      measure "$w verify kseg" "$build/kseg-verify" --deep "$log"
    fi
    # Index rebuild: kseg-reindex vs Kafka's LogLoader recovery, each on a fresh directory that
    # hard-links the segment and has no indexes. Kafka's time is taken in-process (no JVM start).
    for side in kseg kafka; do
      want reindex || continue
      rb="$tmp/rebuild-$side/bench-0"; rm -rf "$tmp/rebuild-$side"; mkdir -p "$rb"; ln "$log" "$rb/"
      if [[ $side == kseg ]]; then
        measure "$w reindex kseg" "$build/kseg-reindex" --no-backup "$rb"
      else
        cat "$log" > /dev/null
        java -Xmx1g -cp "$cp" kseg.oracle.TimeRebuild "$rb" > "$tmp/rebuild.out"
        echo "$w reindex kafka $(awk '{print $3 / 1000}' "$tmp/rebuild.out") 0" >> "$raw"
      fi
    done
    if want reindex && ((r == 0)); then
      # The files kseg wrote against Kafka's, which keeps the (active) segment's indexes
      # preallocated: zeros after the entries.
      for x in index timeindex; do
        k="$tmp/rebuild-kseg/bench-0/00000000000000000000.$x" j="$tmp/rebuild-kafka/bench-0/00000000000000000000.$x"
        n=$(stat -c %s "$k" 2>/dev/null || echo 0) v=different
        if [[ -f $k && -f $j ]] && cmp -s -n "$n" "$k" "$j" &&
           [[ $(tail -c +$((n + 1)) "$j" | tr -d '\0' | wc -c) -eq 0 ]]; then
          v=equal
        fi
        echo "$w .$x: kseg-reindex wrote $n bytes, $v to Kafka's rebuild" | tee -a "$check" >&2
      done
    fi
    rm -rf "$tmp/rebuild-kseg" "$tmp/rebuild-kafka"
    # The offsets workload is printed as an operator reads __consumer_offsets.
    decoder=(); [[ $w == offsets ]] && decoder=(--offsets-decoder)
    for mode in default deep idx deepiter; do
      case "$mode" in
        default) want dump || continue; args=(--files "$log") ;;
        deep) want dump || continue; args=(--deep-iteration --print-data-log "${decoder[@]}" --files "$log") ;;
        idx) want dump || continue; args=(--verify-index-only --files "$idx") ;;
        deepiter) want deepiter || continue; args=(--deep-iteration --files "$log") ;;
      esac
      # Alternate which side goes first so neither always gets the warmer cache.
      if ((r % 2 == 0)); then
        measure "$w $mode kseg" "$build/kseg-dump" "${args[@]}"
        measure "$w $mode kafka" "${kafka_jvm[@]}" "${args[@]}"
      else
        measure "$w $mode kafka" "${kafka_jvm[@]}" "${args[@]}"
        measure "$w $mode kseg" "$build/kseg-dump" "${args[@]}"
      fi
    done
    # A filter near the end: the records from the index's last entry on, found by the
    # seek and by a scan of the whole segment.
    if want seek; then
      near_end=$(python3 -c 'import struct,sys
d=open(sys.argv[1],"rb").read(); last=0
for i in range(0,len(d)-7,8):
    rel=struct.unpack(">i",d[i:i+4])[0]
    if i and rel==0: break
    last=rel
print(last)' "$idx")
      measure "$w seek kseg" "$build/kseg-dump" --deep-iteration --from-offset "$near_end" --files "$log"
      measure "$w seek-scan kseg" "$build/kseg-dump" --deep-iteration --from-offset "$near_end" --no-seek --files "$log"
    fi
    # JSON against kseg's own text of the same content, both written in full.
    if want json; then
      measure "$w text kseg" "$build/kseg-dump" --files "$log"
      measure "$w jsonl kseg" "$build/kseg-dump" --format jsonl --files "$log"
      measure "$w text-deep kseg" "$build/kseg-dump" --deep-iteration --print-data-log "${decoder[@]}" --files "$log"
      measure "$w jsonl-deep kseg" "$build/kseg-dump" --format jsonl --deep-iteration --print-data-log "${decoder[@]}" --files "$log"
      measure "$w json-deep kseg" "$build/kseg-dump" --format json --deep-iteration --print-data-log "${decoder[@]}" --files "$log"
    fi
  done
done
python3 "$here/report.py" "$raw" "$out" "$size"
if grep -q different "$check"; then
  echo "run.sh: kseg-reindex's indexes differ from Kafka's rebuild (see $check)" >&2
  exit 1
fi
