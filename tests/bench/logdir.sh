#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks kseg on a whole broker log dir against Kafka 4.4.0's own start-up loading of the
# same log dir: PARTITIONS small partitions (2-4 segments, 100-400 KiB each) of 100 topics and
# OFFSETS __consumer_offsets partitions, written by Kafka's log code and shut down as a broker
# shuts down (kseg.oracle.LogDirBench generate, seed 1), generated once and cached in
# $KSEG_BENCH_DIR (default /tmp/kseg-bench). Each run, on its own copies (see copy_of), synced and
# read into the page cache before each command:
#   verify        kseg-verify LOGDIR (read-only: one copy serves every run)
#   doctor        kseg-doctor LOGDIR on the verify copy (issue 48: at most 1.5x kseg-verify's time)
#   doctor-unclean  kseg-doctor on a read-only copy without .kafka_cleanshutdown (it works out the
#                 recovery of each partition's active segment, as kafka-unclean does it)
#   doctor-fix    kseg-doctor --fix --yes --no-backup on a copy without .kafka_cleanshutdown (it
#                 recovers every active segment itself, moves the recovery points and writes the
#                 marker), then kafka-after-fix: Kafka's load of its result. Issue 48: the two
#                 together must take less than kafka-unclean alone.
#   read          the floor: list every partition and read each file whole, on every core
#                 (tests/bench/read_files.cc), on the verify copy
#   reindex       kseg-reindex --no-backup LOGDIR, copied without any .index/.timeindex
#   kafka-clean   Kafka's load of the log dir as shut down (no recovery)
#   kafka-unclean .kafka_cleanshutdown removed: Kafka recovers each partition's active segment
#                 (LogLoader recovers from the segment holding the checkpointed recovery point on)
#   kafka-unclean-all  also recovery-point-offset-checkpoint removed: every segment recovered
#   kafka-noindex no .index/.timeindex (copied without), marker present: Kafka rebuilds every index
#                 (kseg-reindex's reference)
# Kafka: kseg.oracle.LogDirBench load (the broker's LogManager built from a default KafkaConfig,
# loadLogs timed in-process: no JVM start), with kafka-server-start.sh's JVM options; the
# process's wall time and peak RSS are recorded too. kseg: processes, wall time from
# EPOCHREALTIME, peak RSS from /usr/bin/time. Raw: $out/logdir-raw.txt; medians and ratios
# (Kafka / kseg): stdout and $out/logdir.md. It asserts nothing about time, but exits 1 when a
# check fails: kseg-verify and kseg-doctor must find the Kafka-written log dir healthy (exit 0;
# verify's report in $out/logdir-verify.txt), kseg-doctor must predict that the unclean load
# recovers every active segment and loses nothing, kseg-reindex must exit 0 and write the indexes Kafka's rebuild writes
# (first run, $out/logdir-check.txt), and Kafka must load kseg-reindex's result (clean) with
# every partition at its end.
# Usage:
#   tests/bench/logdir.sh [--partitions N] [--offsets N] [--runs N] [--settle S] [--out DIR] [--build DIR]
# Defaults: 2000 partitions, 50 offsets partitions, 3 runs, 361 s settle (see copy_of), results in
# tests/bench/results/logdir/.
set -euo pipefail
export LC_ALL=C  # EPOCHREALTIME and awk with a decimal point
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
partitions=2000 offsets=50 runs=3 settle=361 out="$here/results/logdir" build="$top/build-bench"
bench_options logdir.sh partitions offsets runs settle out build -- "$@"
bench_setup kseg-verify kseg-doctor kseg-reindex kseg_bench_read_files
# What kafka-server-start.sh runs a broker with.
kafka_load=(java -Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true -cp "$cp" kseg.oracle.LogDirBench load)

src="$cache/logdir-$partitions-$offsets/logdir"
if [[ ! -f "$src/../.done" ]]; then
  echo "generating a log dir of $partitions partitions and $offsets __consumer_offsets partitions with Kafka 4.4.0" >&2
  rm -rf "$(dirname "$src")"
  java -Xmx2g -XX:+UseSerialGC -cp "$cp" kseg.oracle.LogDirBench generate "$src" "$partitions" "$offsets" 1
  touch "$src/../.done"
fi
tmp="$(mktemp -d "$cache/logdir-run.XXXXXX")"; trap 'rm -rf "$tmp"' EXIT
raw="$out/logdir-raw.txt" check="$out/logdir-check.txt"; : > "$raw"; : > "$check"
failed=0
fail() { echo "logdir.sh: $*" >> "$check"; failed=1; }
# measure NAME DIR CMD...: DIR synced and read into the page cache, then CMD timed; appends
# "NAME seconds peak_rss_kib exit_status [in-process seconds]" to $raw. stdout/stderr: $tmp/out, $tmp/err.
measure() {
  local name="$1" dir="$2" start end rc=0 inproc=""; shift 2
  sync
  find "$dir" -type f -print0 | xargs -0 cat > /dev/null
  start=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$tmp/t" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
  end=$EPOCHREALTIME
  if [[ $name == kafka-* ]]; then  # kafka-after-fix too
    inproc=$(sed -n 's/^loaded [0-9]* partitions in \([0-9]*\) ms$/\1/p' "$tmp/out" | awk '{ printf "%.4f", $1 / 1000 }')
  fi
  # time(1) puts "Command exited with non-zero status N" before %M when the command fails.
  echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $(tail -n 1 "$tmp/t") $rc $inproc" >> "$raw"
  return 0
}

# Copies for every writing row of every run ($tmp/run<N>/<row>), made before anything is timed
# and kept to the end. On ext4 without a journal (this machine's root) the inode allocator skips
# every inode freed in the last minute (six, once new files dirty its inode block), reading each
# one's inode block: kseg-reindex timed minutes after ~30,000 files were deleted (a previous
# run's copies, the indexes) spent 73% of its time there, 4.3-5.7 s against 2.0 s later. No
# operator's log dir has just lost 30,000 files: the script deletes nothing until it ends (the
# copies without indexes or checkpoint are made without them), and before the first timed
# command the copies are synced and left --settle seconds for earlier deletions to age.
copy_of() {  # copy_of DEST [tar --exclude pattern...]
  local dest="$1" ex=() p; shift
  for p in "$@"; do ex+=(--exclude="$p"); done
  mkdir -p "$dest"
  tar -C "$src" "${ex[@]}" -cf - . | tar -C "$dest" -xf -
}
for ((r = 1; r <= runs; r++)); do
  copy_of "$tmp/run$r/reindex" '*.index' '*.timeindex'
  copy_of "$tmp/run$r/kafka-noindex" '*.index' '*.timeindex'
  copy_of "$tmp/run$r/kafka-clean"
  copy_of "$tmp/run$r/kafka-unclean"
  copy_of "$tmp/run$r/kafka-unclean-all" ./recovery-point-offset-checkpoint
  copy_of "$tmp/run$r/doctor-fix" ./.kafka_cleanshutdown
done
copy_of "$tmp/verify"
copy_of "$tmp/doctor-unclean" ./.kafka_cleanshutdown
sync
echo "copies made; waiting $settle s for earlier deletions to age" >&2
sleep "$settle"

echo "log dir: $(find "$src" -mindepth 1 -maxdepth 1 -type d | wc -l) partitions, $(find "$src" -name '*.log' | wc -l) segments," \
  "$(find "$src" -name '*.log' -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1) bytes of .log" | tee "$out/logdir-input.txt" >&2
for ((r = 1; r <= runs; r++)); do
  order=(read verify doctor doctor-unclean doctor-fix reindex kafka-clean kafka-unclean kafka-unclean-all kafka-noindex)
  if ((r % 2 == 0)); then
    order=(kafka-noindex kafka-unclean-all kafka-unclean kafka-clean reindex doctor-fix doctor-unclean doctor verify read)
  fi
  for row in "${order[@]}"; do
    echo "run $r: $row" >&2
    case $row in
      verify)
        measure verify "$tmp/verify" "$build/kseg-verify" "$tmp/verify"
        if ((r == 1)); then cat "$tmp/out" "$tmp/err" | sed "s|$tmp/verify|LOGDIR|" > "$out/logdir-verify.txt"; fi
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] ||
          fail "run $r: kseg-verify exit $(tail -n 1 "$raw" | cut -d' ' -f4) on the Kafka-written log dir, $(grep -cE '^(ERROR|WARNING)' "$tmp/out") problems (see $out/logdir-verify.txt), first: $(grep -m 1 -E '^(ERROR|WARNING)' "$tmp/out" | sed "s|$tmp/verify/||")"
        ;;
      doctor)
        measure doctor "$tmp/verify" "$build/kseg-doctor" "$tmp/verify"
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] ||
          fail "run $r: kseg-doctor exit $(tail -n 1 "$raw" | cut -d' ' -f4) on the Kafka-written log dir: $(grep -m 3 -E '^ +(ERROR|WARNING)|starts: no' "$tmp/out" | tr '\n' ';')"
        ;;
      doctor-unclean)
        measure doctor-unclean "$tmp/doctor-unclean" "$build/kseg-doctor" --format json "$tmp/doctor-unclean"
        python3 - "$tmp/out" "$tmp/doctor-unclean" >> "$check" <<'EOF2' || fail "run $r: kseg-doctor's prediction of the unclean load"
import json, os, sys
doc, root = json.load(open(sys.argv[1])), sys.argv[2]
parts = [t for t in doc["targets"] if t["type"] == "partition" and not t["dir"].endswith("__cluster_metadata-0")]
# The log dir was shut down cleanly, so each recovery point is its log end: Kafka recovers the
# segment holding it, the last one, of each partition, and loses nothing.
last = lambda d: max(int(n[:20]) for n in os.listdir(d) if n.endswith(".log"))
bad = [t["dir"] for t in parts if [g["base_offset"] for g in t["startup"]["segments"]] != [last(t["dir"])]
       or t["startup"]["bytes_lost"] != 0]
print(f"kseg-doctor, marker removed: {len(parts) - len(bad)} of {len(parts)} partitions recover their active segment alone, losing nothing")
sys.exit(1 if bad or not parts else 0)
EOF2
        ;;
      doctor-fix)
        d="$tmp/run$r/doctor-fix"
        measure doctor-fix "$d" "$build/kseg-doctor" --fix --yes --no-backup "$d"
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] ||
          fail "run $r: kseg-doctor --fix exit $(tail -n 1 "$raw" | cut -d' ' -f4): $(tail -n 3 "$tmp/out" | tr '\n' ';') $(head -n 3 "$tmp/err" | tr '\n' ';')"
        [[ -f "$d/.kafka_cleanshutdown" ]] || fail "run $r: kseg-doctor --fix wrote no clean-shutdown marker"
        measure kafka-after-fix "$d" "${kafka_load[@]}" "$d" clean
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] || fail "run $r: Kafka's load after kseg-doctor --fix failed: $(head -n 5 "$tmp/err" | tr '\n' ';')"
        ;;
      read)
        measure read "$tmp/verify" "$build/tests/bench/kseg_bench_read_files" "$tmp/verify"
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] || fail "run $r: the floor (read_files) exit $(tail -n 1 "$raw" | cut -d' ' -f4): $(head -n 3 "$tmp/err" | tr '\n' ';')"
        ;;
      reindex)
        measure reindex "$tmp/run$r/reindex" "$build/kseg-reindex" --no-backup "$tmp/run$r/reindex"
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] || fail "run $r: kseg-reindex exit $(tail -n 1 "$raw" | cut -d' ' -f4): $(head -n 5 "$tmp/err" | tr '\n' ';')"
        ;;
      kafka-*)
        mode=clean
        [[ $row == kafka-unclean* ]] && mode=unclean
        measure "$row" "$tmp/run$r/$row" "${kafka_load[@]}" "$tmp/run$r/$row" "$mode"
        [[ $(tail -n 1 "$raw" | cut -d' ' -f4) == 0 ]] || fail "run $r: Kafka's $row load failed: $(head -n 5 "$tmp/err" | tr '\n' ';')"
        ;;
    esac
  done
  if ((r == 1)); then
    # kseg-reindex's files against Kafka's rebuild of the same segments (Kafka leaves the active
    # segment's indexes preallocated: zeros after the entries), then Kafka loading kseg's result.
    python3 - "$tmp/run$r/reindex" "$tmp/run$r/kafka-noindex" >> "$check" <<'EOF' || failed=1
import os, sys
k_root, j_root = sys.argv[1:]
same = differ = 0
def zeros_after(path, at):
    with open(path, "rb") as f:
        try:
            at = os.lseek(f.fileno(), at, os.SEEK_DATA)
        except OSError:  # ENXIO: only a hole from there on
            return True
        f.seek(at)
        while chunk := f.read(1 << 20):
            if chunk.count(0) != len(chunk):
                return False
    return True
for part in sorted(os.listdir(j_root)):
    jd, kd = os.path.join(j_root, part), os.path.join(k_root, part)
    if not os.path.isdir(jd):
        continue
    names = {n for d in (jd, kd) for n in os.listdir(d) if n.endswith((".index", ".timeindex"))}
    for n in sorted(names):
        read = lambda p, size=-1: open(p, "rb").read(size) if os.path.exists(p) else None
        k = read(os.path.join(kd, n))
        j = read(os.path.join(jd, n), len(k or b"") + 1)
        # Kafka's preallocated tail is a hole (10 MiB per active index): tested by SEEK_DATA, not read.
        if j is not None and j == (k or b"") + b"\0" * (len(j) - len(k or b"")) and zeros_after(os.path.join(jd, n), len(k or b"")):
            same += 1
        else:
            differ += 1
            if differ <= 20:
                print(f"{part}/{n}: kseg-reindex wrote {'nothing' if k is None else len(k)}, Kafka's rebuild "
                      f"{'nothing' if j is None else os.path.getsize(os.path.join(jd, n))} bytes: different")
print(f"kseg-reindex: {same} index files equal to Kafka's rebuild, {differ} different")
sys.exit(1 if differ else 0)
EOF
    if "${kafka_load[@]}" "$tmp/run$r/reindex" clean > "$tmp/out" 2> "$tmp/err"; then
      echo "Kafka's clean load of kseg-reindex's result: $(cat "$tmp/out")" >> "$check"
    else
      fail "Kafka could not load kseg-reindex's result: $(head -n 5 "$tmp/err" | tr '\n' ';')"
    fi
  fi
done

python3 - "$raw" "$out/logdir-input.txt" > "$out/logdir.md" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault(f[0], []).append((float(f[1]), int(f[2]), float(f[4]) if len(f) > 4 else None))
def med(name, i):
    v = [r[i] for r in rows.get(name, []) if r[i] is not None]
    return statistics.median(v) if v else None
what = {
    "read": "floor: list every partition, read each file whole (read_files.cc, every core)",
    "verify": "kseg-verify LOGDIR (read-only, every check)",
    "doctor": "kseg-doctor LOGDIR (verify's checks, the start-up predicted)",
    "doctor-unclean": "kseg-doctor LOGDIR, marker removed (every active segment's recovery worked out)",
    "doctor-fix": "kseg-doctor --fix --yes --no-backup LOGDIR, marker removed (recovers it, marks it clean)",
    "reindex": "kseg-reindex --no-backup LOGDIR (no indexes)",
    "kafka-clean": "Kafka load, clean shutdown (no recovery)",
    "kafka-unclean": "Kafka load, marker removed (active segments recovered)",
    "kafka-unclean-all": "Kafka load, marker and recovery-point-offset-checkpoint removed (every segment recovered)",
    "kafka-noindex": "Kafka load, no indexes, marker present (every index rebuilt)",
    "kafka-after-fix": "Kafka load after kseg-doctor --fix (marker written by it)",
}
kv, kr, kf = med("verify", 0), med("reindex", 0), med("read", 0)
print(open(sys.argv[2]).read().strip() + f"; {len(rows.get('verify', []))} runs, medians.")
print()
print("| command | s (Kafka: load in-process) | Kafka process wall s | peak RSS MiB | Kafka / kseg-verify | Kafka / kseg-reindex | Kafka / floor |")
print("|---|---|---|---|---|---|---|")
for name, text in what.items():
    if name not in rows:
        continue
    rss = max(r[1] for r in rows[name]) / 1024
    if name.startswith("kafka"):
        t = med(name, 2)   # None: every load failed (see logdir-check.txt)
        r = lambda k: f"{t / k:.1f}x" if t and k else "-"
        print(f"| {text} | {t or 0:.3f} | {med(name, 0):.3f} | {rss:.1f} | {r(kv)} | {r(kr)} | {r(kf)} |")
    else:
        print(f"| {text} | {med(name, 0):.3f} | - | {rss:.1f} | - | - | - |")
if med("doctor-fix", 0) and med("kafka-after-fix", 2) and med("kafka-unclean", 2):
    fix, after, alone = med("doctor-fix", 0), med("kafka-after-fix", 2), med("kafka-unclean", 2)
    print()
    print(f"kseg-doctor --fix + Kafka's load after it: {fix:.3f} + {after:.3f} = {fix + after:.3f} s against Kafka's "
          f"unclean load alone {alone:.3f} s ({alone / (fix + after):.2f}x; process wall: "
          f"{fix + med('kafka-after-fix', 0):.3f} against {med('kafka-unclean', 0):.3f} s)")
if kv and med("doctor", 0):
    print()
    print(f"kseg-doctor / kseg-verify: {med('doctor', 0) / kv:.2f}x (issue 48: at most 1.5x)"
          + (f"; marker removed: {med('doctor-unclean', 0) / kv:.2f}x" if med("doctor-unclean", 0) else ""))
EOF
cat "$out/logdir.md"
cat "$check" >&2
exit "$failed"
