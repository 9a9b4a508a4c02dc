#!/usr/bin/env bash
# kseg-reindex against Kafka 4.4.0 itself (three JVM runs in all):
#   1. byte identity: for every segment of every case in testdata/kafka, the .index and
#      .timeindex kseg-reindex rebuilds (indexes deleted first) == what Kafka's own
#      LogSegment.recover writes (RebuildIndexes); also counts how many as-written corpus
#      indexes equal the rebuilt ones (informational: differences Kafka accepts);
#   2. damaged cases: after `kseg-reindex --recover`, Kafka's load check (clean and unclean)
#      of the result == Kafka's unclean load of the damaged original; a second run changes
#      nothing;
#   3. crash injection: KSEG_CRASH_AT=<step> for every step of the write protocol; Kafka's
#      clean and unclean loads of what the crash left succeed and keep every expected record
#      (after the segment's .index is unlinked, Kafka's loader recovers the segment itself but
#      keeps later segments, so those loads may hold more), and a re-run finishes the job
#      (clean load == expected).
# Usage: reindex-oracle.sh KSEG_REINDEX     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# topic_config CASE PARTITION_DIR_NAME > properties (from case.json, as the corpus was written)
topic_config() {
  jq -r --arg d "$2" '.partitions[] | select(.dir == $d) | .topic_config | to_entries[] | "\(.key)=\(.value)"' \
    "$CORPUS_DIR/$1/case.json"
}

# ---- 1. byte identity over the corpus -------------------------------------------------------
oracle_java kseg.oracle.RebuildIndexes "$CORPUS_DIR" "$tmp/kafka"
seg_ok=0 seg_total=0 written_same=0
for part in "$tmp"/kafka/*/*/; do
  part="${part%/}"; name="$(basename "$part")"; case_name="$(basename "$(dirname "$part")")"
  work="$tmp/kseg/$case_name/$name"
  mkdir -p "$(dirname "$work")"
  cp -r "$CORPUS_DIR/$case_name/$name" "$work"
  rm -f "$work"/*.index "$work"/*.timeindex
  topic_config "$case_name" "$name" > "$tmp/kseg/$case_name/$name.properties"
  "$kseg" --no-backup --topic-config "$tmp/kseg/$case_name/$name.properties" "$work" > "$work.out" 2>&1 || true
  while read -r base _; do
    f="$(printf '%020d' "$base")"
    seg_total=$((seg_total + 1))
    if cmp -s "$part/$f.index" "$work/$f.index" && cmp -s "$part/$f.timeindex" "$work/$f.timeindex"; then
      seg_ok=$((seg_ok + 1))
    else
      bad "byte identity: $case_name/$name/$f (.index/.timeindex differ from Kafka's recovery)"
    fi
    orig="$CORPUS_DIR/$case_name/$name/$f"
    if cmp -s "$part/$f.index" "$orig.index" 2>/dev/null && cmp -s "$part/$f.timeindex" "$orig.timeindex" 2>/dev/null; then
      written_same=$((written_same + 1))
    fi
  done < "$part/segments.txt"
done
echo "byte identity: $seg_ok/$seg_total segments rebuilt by kseg-reindex equal Kafka 4.4.0's recovery"
echo "  (as written by the broker: $written_same/$seg_total equal the recovery output; see man/kseg-reindex.1)"
[[ $seg_ok -eq $seg_total && $seg_total -gt 0 ]] && ok

# ---- lock: a JVM holding <logdir>/.lock as a broker does makes kseg-reindex refuse -------
mkdir -p "$tmp/locked"; cp -r "$CORPUS_DIR/v2-none/orders-0" "$tmp/locked/"; rm -f "$tmp"/locked/orders-0/*.index
coproc HOLD { oracle_java kseg.oracle.HoldLock "$tmp/locked"; }
read -r line <&"${HOLD[0]}"
before="$(cd "$tmp/locked" && find . -type f | sort | xargs sha256sum)"
rc=0; "$kseg" "$tmp/locked/orders-0" > "$tmp/locked.out" 2>&1 || rc=$?
exec {HOLD[1]}>&-; wait "$HOLD_PID" || true
after="$(cd "$tmp/locked" && find . -type f | sort | xargs sha256sum)"
if [[ "$line" == locked && $rc -eq 3 && "$before" == "$after" ]] && grep -q 'is locked by process' "$tmp/locked.out"; then
  ok; echo "lock: refused while a JVM held .lock: $(head -1 "$tmp/locked.out")"
else bad "lock: exit $rc with a JVM holding .lock ($line): $(cat "$tmp/locked.out")"; fi

# ---- 2 + 3. damaged cases and crash injection ----------------------------------------------
jobs="$tmp/jobs.tsv"; : > "$jobs"
add_job() { printf '%s\t%s%s\n' "$1" "$2" "${3:+	$3}" >> "$jobs"; }   # add_job OUT DIR [--unclean]
mkcase() {  # mkcase NAME SOURCE_CASE: a private log dir holding a copy of the case's partition
  mkdir -p "$tmp/d/$1"; cp -r "$CORPUS_DIR/$2/orders-0" "$tmp/d/$1/"
  topic_config "$2" orders-0 > "$tmp/d/$1.properties"
}
damaged=(torn-tail torn-header zero-tail zero-appended corrupt-size crc-mismatch)
for c in "${damaged[@]}"; do mkcase "$c" "$c"; done
mkcase indexes-deleted v2-none; rm -f "$tmp"/d/indexes-deleted/orders-0/*.index "$tmp"/d/indexes-deleted/orders-0/*.timeindex
mkcase indexes-corrupt v2-none
for f in "$tmp"/d/indexes-corrupt/orders-0/*.index; do head -c 24 /dev/urandom >> "$f"; done
for f in "$tmp"/d/indexes-corrupt/orders-0/*.timeindex; do truncate -s 10485756 "$f"; done
cases=("${damaged[@]}" indexes-deleted indexes-corrupt)
steps=(tmp-partial tmp-written backup-partial backup-done hidden remove-partial removed rename-partial renamed done)
crash_cases=(corrupt-size torn-tail)
for c in "${cases[@]}"; do
  add_job "$tmp/d/$c.expected" "$tmp/d/$c/orders-0" --unclean
  cp -r "$tmp/d/$c" "$tmp/d/$c.fixed"
  "$kseg" --recover --topic-config "$tmp/d/$c.properties" "$tmp/d/$c.fixed/orders-0" > "$tmp/d/$c.run1" 2>&1 || true
  (cd "$tmp/d/$c.fixed" && find . -path '*/.kseg-backup-*' -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) > "$tmp/d/$c.sum1"
  "$kseg" --recover --topic-config "$tmp/d/$c.properties" "$tmp/d/$c.fixed/orders-0" > "$tmp/d/$c.run2" 2>&1 || true
  (cd "$tmp/d/$c.fixed" && find . -path '*/.kseg-backup-*' -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) > "$tmp/d/$c.sum2"
  add_job "$tmp/d/$c.clean" "$tmp/d/$c.fixed/orders-0"
  add_job "$tmp/d/$c.unclean" "$tmp/d/$c.fixed/orders-0" --unclean
done
for c in "${crash_cases[@]}"; do
  for s in "${steps[@]}"; do
    w="$tmp/d/$c.crash-$s"; cp -r "$tmp/d/$c" "$w"
    rc=0; KSEG_CRASH_AT="$s" "$kseg" --recover --topic-config "$tmp/d/$c.properties" "$w/orders-0" > "$w.out" 2>&1 || rc=$?
    echo "$rc" > "$w.rc"
    add_job "$w.unclean" "$w/orders-0" --unclean
    add_job "$w.clean" "$w/orders-0"
    cp -r "$w" "$w.rerun"
    "$kseg" --recover --topic-config "$tmp/d/$c.properties" "$w.rerun/orders-0" > "$w.rerun.out" 2>&1 || true
    add_job "$w.rerun.clean" "$w.rerun/orders-0"
  done
done
oracle_java kseg.oracle.LoadCheckBatch "$jobs"

body() { grep -v '^#' "$1"; }
records() { grep '^offset=' "$1"; }
for c in "${cases[@]}"; do
  e="$tmp/d/$c.expected"
  grep -q '^# load failed' "$e" && { bad "$c: Kafka's unclean load of the damaged original failed"; continue; }
  if diff -q <(body "$e") <(body "$tmp/d/$c.clean") >/dev/null && diff -q <(body "$e") <(body "$tmp/d/$c.unclean") >/dev/null; then
    ok; echo "damaged $c: recovered; Kafka's digest matches ($(records "$e" | wc -l) records): $(grep -c . "$tmp/d/$c.run1") plan/result lines"
  else
    bad "damaged $c: digest after kseg-reindex --recover differs from Kafka's unclean recovery"
    diff <(body "$e") <(body "$tmp/d/$c.clean") | head -5
  fi
  if cmp -s "$tmp/d/$c.sum1" "$tmp/d/$c.sum2" && grep -q 'nothing to change' "$tmp/d/$c.run2"; then ok
  else bad "damaged $c: second run changed something or planned changes"; cat "$tmp/d/$c.run2"; fi
done
for c in "${crash_cases[@]}"; do
  e="$tmp/d/$c.expected"; crashed=0 exact=0
  for s in "${steps[@]}"; do
    w="$tmp/d/$c.crash-$s"
    # 86: stopped at the step; 0: the plan has no such step (the run completed).
    [[ "$(cat "$w.rc")" == 86 || "$(cat "$w.rc")" == 0 ]] || { bad "crash $c/$s: exit $(cat "$w.rc")"; continue; }
    [[ "$(cat "$w.rc")" == 86 ]] && crashed=$((crashed + 1))
    lost() { comm -23 <(records "$e" | sort) <(records "$1" | sort); }
    if grep -q '^# load failed' "$w.unclean" "$w.clean"; then bad "crash $c/$s: a load failed: $(grep -h '^# load failed' "$w.unclean" "$w.clean")"
    elif [[ -n "$(lost "$w.unclean")" || -n "$(lost "$w.clean")" ]]; then bad "crash $c/$s: a load lost records"
    elif ! diff -q <(body "$e") <(body "$w.rerun.clean") >/dev/null; then bad "crash $c/$s: re-run did not finish the job"
    else
      ok
      diff -q <(body "$e") <(body "$w.unclean") >/dev/null && exact=$((exact + 1))
    fi
  done
  echo "crash injection $c: ${#steps[@]} steps, $crashed crashed there; unclean load == Kafka's recovery of the original at $exact (a superset at the others)"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
