#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg-reindex against Kafka 4.4.0 itself (three JVM runs in all):
#   1. byte identity: for every segment of every case in testdata/kafka, the .index and
#      .timeindex `kseg-reindex --recover SEGMENT.log` rebuilds (indexes deleted first) ==
#      what Kafka's own LogSegment.recover writes (RebuildIndexes); also counts how many
#      as-written corpus indexes equal the rebuilt ones (informational: differences Kafka
#      accepts);
#   2. damaged cases: after `kseg-reindex --recover`, Kafka's load check (clean and unclean)
#      of the result == Kafka's unclean load of the damaged original; a second run changes
#      nothing;
#   3. crash injection: KSEG_CRASH_AT=<step> for every step of the write protocol; Kafka's
#      clean and unclean loads of what the crash left succeed and keep every expected record
#      (after the segment's .index is unlinked, Kafka's loader recovers the segment itself but
#      keeps later segments, so those loads may hold more), and a re-run finishes the job
#      (clean load == expected);
#   4. --salvage (beyond Kafka), crc-mismatch and corrupt-size: the case is restored from its
#      recipe (crc-mismatch: the flipped byte flipped back, the batch's position and size from
#      Kafka's own DumpLogSegments golden; corrupt-size: the one length for which the batch's
#      CRC-32C holds, found by a CRC written in the script) and the damaged batch is cut out
#      of the restored copy; Kafka's loads (clean and unclean) of what `kseg-reindex --salvage`
#      made of the damaged copy == Kafka's load of that cut copy, and lack exactly one
#      contiguous run of offsets starting where Kafka's own recovery stops, compared with the
#      restored copy; a second run changes nothing; crash injection on crc-mismatch: loads
#      succeed and a re-run finishes the job;
#   5. an unreadable leader-epoch-checkpoint, in every corpus partition that has one: after
#      `kseg-reindex --recover` (which rebuilds it from the batches), the epoch cache of Kafka's
#      clean load == the one Kafka's own recovery of every segment builds (no epoch file, no
#      recovery point, unclean load).
#   6. 12-byte .index entries (KIP-1333, experimental): every partition of section 1 rewritten
#      at 12 bytes reads back (kseg-dump) as the entries Kafka's DumpLogSegments prints for
#      Kafka's own 8-byte file, is 1.5 times Kafka's size, passes kseg-verify but for
#      index.wide_entries (on each file), is kept by a plain run, and goes back to Kafka's bytes at 8; what Kafka 4.4 does with such a file (clean load: misread; unclean:
#      rebuilt).
# Usage: reindex-oracle.sh KSEG_REINDEX     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# ---- 1. byte identity over the corpus -------------------------------------------------------
oracle_java kseg.oracle.RebuildIndexes "$CORPUS_DIR" "$tmp/kafka"
seg_ok=0 seg_total=0 written_same=0
for part in "$tmp"/kafka/*/*/; do
  part="${part%/}"; name="$(basename "$part")"; case_name="$(basename "$(dirname "$part")")"
  work="$tmp/kseg/$case_name/$name"
  mkdir -p "$(dirname "$work")"
  cp -r "$CORPUS_DIR/$case_name/$name" "$work"
  rm -f "$work"/*.index "$work"/*.timeindex
  topic_config "$CORPUS_DIR/$case_name" "$name" > "$tmp/kseg/$case_name/$name.properties"
  # One segment at a time, as RebuildIndexes runs LogSegment.recover: a .log path with --recover
  # rebuilds that segment's indexes over its valid batches and cuts its invalid tail (a plain
  # run on a partition with invalid bytes writes nothing).
  while read -r base _; do
    f="$(printf '%020d' "$base")"
    "$kseg" --recover --no-backup --topic-config "$tmp/kseg/$case_name/$name.properties" "$work/$f.log" \
      >> "$work.out" 2>&1 || true
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
  topic_config "$CORPUS_DIR/$2" orders-0 > "$tmp/d/$1.properties"
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
# 4. --salvage: each case restored (from its recipe), and the restored copy with the damaged
# batch cut out, as kseg-independent references.
sv="$tmp/s"; mkdir -p "$sv"
salvage_cases=(crc-mismatch corrupt-size)
# restore CASE LOG_FILE: undoes the case's recipe in place; prints "POSITION SIZE" of the damaged batch.
restore() {
  local recipe; recipe="$(jq -r .recipe "$CORPUS_DIR/$1/case.json")"
  case "$1" in
    crc-mismatch)  # "xor 0xMM into byte N (...)"; the batch from Kafka's DumpLogSegments golden
      local bad; bad="$(grep 'isvalid: false' "$CORPUS_DIR/$1/dump/orders-0.00000000000000000000.log.plain.out")"
      python3 -c 'import sys; p, at, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
b = bytearray(open(p, "rb").read()); b[at] ^= m; open(p, "wb").write(b)' "$2" \
        "$(sed -E 's/.*into byte ([0-9]+) .*/\1/' <<< "$recipe")" "$(sed -E 's/.*xor (0x[0-9a-f]+) .*/\1/' <<< "$recipe")"
      echo "$(sed -E 's/.* position: ([0-9]+) .*/\1/' <<< "$bad") $(sed -E 's/.* size: ([0-9]+) .*/\1/' <<< "$bad")" ;;
    corrupt-size)  # "length field (position+8) of batch N (position P)": the CRC-32C (bytes 21..end,
      # which exclude the length) is valid for exactly one length; find it and write it back.
      python3 -c 'import sys, struct
p, pos = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, "rb").read())
t = []
for i in range(256):
    c = i
    for _ in range(8): c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    t.append(c)
stored = struct.unpack(">I", b[pos + 17:pos + 21])[0]; c = 0xFFFFFFFF
for end in range(pos + 21, len(b)):
    c = t[(c ^ b[end]) & 0xFF] ^ (c >> 8)
    if end + 1 - pos >= 61 and c ^ 0xFFFFFFFF == stored:
        b[pos + 8:pos + 12] = struct.pack(">i", end + 1 - pos - 12); open(p, "wb").write(b)
        print(pos, end + 1 - pos); break
else: sys.exit("no length gives a valid CRC")' "$2" "$(sed -E 's/.*\(position ([0-9]+)\).*/\1/' <<< "$recipe")" ;;
  esac
}
for c in "${salvage_cases[@]}"; do
  cp -r "$tmp/d/$c" "$sv/$c.restored"
  seg0="$sv/$c.restored/orders-0/00000000000000000000.log"
  read -r pos size < <(restore "$c" "$seg0")
  echo "$pos $size" > "$sv/$c.batch"
  cp -r "$sv/$c.restored" "$sv/$c.cut"
  { head -c "$pos" "$seg0"; tail -c +"$(( pos + size + 1 ))" "$seg0"; } > "$sv/$c.cut/orders-0/00000000000000000000.log"
  cp -r "$tmp/d/$c" "$sv/$c"
  for run in 1 2; do
    "$kseg" --salvage --topic-config "$tmp/d/$c.properties" "$sv/$c/orders-0" > "$sv/$c.run$run" 2>&1 || true
    (cd "$sv/$c" && find . -path '*/.kseg-backup-*' -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) > "$sv/$c.sum$run"
  done
  add_job "$sv/$c.restored.expected" "$sv/$c.restored/orders-0" --unclean
  add_job "$sv/$c.cut.expected" "$sv/$c.cut/orders-0" --unclean
  add_job "$sv/$c.clean" "$sv/$c/orders-0"
  add_job "$sv/$c.unclean" "$sv/$c/orders-0" --unclean
done
salvage() { "$kseg" --salvage --topic-config "$tmp/d/crc-mismatch.properties" "$@"; }
for s in "${steps[@]}"; do
  w="$sv/crash-$s"; cp -r "$tmp/d/crc-mismatch" "$w"
  rc=0; KSEG_CRASH_AT="$s" salvage "$w/orders-0" > "$w.out" 2>&1 || rc=$?
  echo "$rc" > "$w.rc"
  add_job "$w.unclean" "$w/orders-0" --unclean
  add_job "$w.clean" "$w/orders-0"
  cp -r "$w" "$w.rerun"
  salvage "$w.rerun/orders-0" > "$w.rerun.out" 2>&1 || true
  add_job "$w.rerun.clean" "$w.rerun/orders-0"
done

# 5. an unreadable leader-epoch-checkpoint, rebuilt
ep="$tmp/e"; epoch_parts=()
for f in "$CORPUS_DIR"/*/*/leader-epoch-checkpoint; do
  part="$(dirname "$f")"; c="$(basename "$(dirname "$part")")"; name="$(basename "$part")"
  [[ -f "$CORPUS_DIR/$c/case.json" ]] || continue
  for side in kafka kseg; do  # the log dir's root files but the recovery point (so Kafka recovers from 0)
    mkdir -p "$ep/$side/$c"; cp -r "$part" "$ep/$side/$c/"
    for r in log-start-offset-checkpoint replication-offset-checkpoint; do
      [[ -f "$CORPUS_DIR/$c/$r" ]] && cp "$CORPUS_DIR/$c/$r" "$ep/$side/$c/"
    done
  done
  rm "$ep/kafka/$c/$name/leader-epoch-checkpoint"
  printf '0\n1\ngarbage\n' > "$ep/kseg/$c/$name/leader-epoch-checkpoint"
  topic_config "$CORPUS_DIR/$c" "$name" > "$ep/$c.$name.properties"
  "$kseg" --recover --no-backup --topic-config "$ep/$c.$name.properties" "$ep/kseg/$c/$name" > "$ep/$c.$name.out" 2>&1 || true
  add_job "$ep/$c.$name.kafka" "$ep/kafka/$c/$name" --unclean
  add_job "$ep/$c.$name.kseg" "$ep/kseg/$c/$name"
  epoch_parts+=("$c/$name")
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
# 4. --salvage
for c in "${salvage_cases[@]}"; do
  read -r pos size < "$sv/$c.batch"
  if grep -q '^# load failed' "$sv/$c.restored.expected" "$sv/$c.cut.expected" "$sv/$c.clean" "$sv/$c.unclean"; then
    bad "salvage $c: a load failed: $(grep -h '^# load failed' "$sv/$c".*expected "$sv/$c.clean" "$sv/$c.unclean")"
  elif ! diff -q <(body "$sv/$c.cut.expected") <(body "$sv/$c.clean") >/dev/null ||
       ! diff -q <(body "$sv/$c.cut.expected") <(body "$sv/$c.unclean") >/dev/null; then
    bad "salvage $c: Kafka's digest differs from its load of the restored copy minus the batch at $pos ($size bytes)"
    diff <(body "$sv/$c.cut.expected") <(body "$sv/$c.clean") | head -5 || true
  else
    missing="$(comm -23 <(records "$sv/$c.restored.expected" | sort) <(records "$sv/$c.clean" | sort) | sed -E 's/^offset=([0-9]+) .*/\1/' | sort -n)"
    added="$(comm -13 <(records "$sv/$c.restored.expected" | sort) <(records "$sv/$c.clean" | sort))"
    first="$(head -1 <<< "$missing")"; last="$(tail -1 <<< "$missing")"
    # The batch's offsets: one contiguous run, starting where Kafka's own recovery stops.
    stop=$(( $(records "$tmp/d/$c.expected" | sed -E 's/^offset=([0-9]+) .*/\1/' | sort -n | tail -1) + 1 ))
    if [[ -n "$missing" && "$missing" == "$(seq "$first" "$last")" && "$first" == "$stop" && -z "$added" ]]; then
      ok; echo "salvage $c: Kafka loads $(records "$sv/$c.clean" | wc -l) of $(records "$sv/$c.restored.expected" | wc -l) records: all but batch $first..$last (position $pos, $size bytes); its own recovery keeps $(records "$tmp/d/$c.expected" | wc -l)"
    else bad "salvage $c: missing offsets $(tr '\n' ' ' <<< "$missing") (expected one batch from $stop), added: $added"; fi
  fi
  if cmp -s "$sv/$c.sum1" "$sv/$c.sum2" && grep -q 'nothing to change' "$sv/$c.run2"; then ok
  else bad "salvage $c: second run changed something or planned changes"; cat "$sv/$c.run2"; fi
done
crashed=0
for s in "${steps[@]}"; do
  w="$sv/crash-$s"
  [[ "$(cat "$w.rc")" == 86 || "$(cat "$w.rc")" == 0 ]] || { bad "salvage crash $s: exit $(cat "$w.rc")"; continue; }
  [[ "$(cat "$w.rc")" == 86 ]] && crashed=$((crashed + 1))
  if grep -q '^# load failed' "$w.unclean" "$w.clean"; then bad "salvage crash $s: a load failed"
  elif ! diff -q <(body "$sv/crc-mismatch.cut.expected") <(body "$w.rerun.clean") >/dev/null; then bad "salvage crash $s: re-run did not finish the job"
  else ok; fi
done
echo "salvage crash injection crc-mismatch: ${#steps[@]} steps, $crashed crashed there; loads succeed, re-runs finish"
# 5. an unreadable leader-epoch-checkpoint
same=0 entries=0
for cn in "${epoch_parts[@]}"; do
  k="$ep/${cn/\//.}.kafka" m="$ep/${cn/\//.}.kseg"
  if grep -aq '^# load failed' "$k" "$m"; then
    bad "epoch rebuild $cn: a load failed: $(grep -ah '^# load failed' "$k" "$m")"
  elif [[ "$(grep -a '^leader_epoch ' "$k")" == "$(grep -a '^leader_epoch ' "$m")" ]] &&
       ! grep -q garbage "$ep/kseg/$cn/leader-epoch-checkpoint"; then
    ok; same=$((same + 1)); entries=$((entries + $(grep -ac '^leader_epoch ' "$k" || true)))
  else
    bad "epoch rebuild $cn: Kafka's recovery builds $(grep -a '^leader_epoch ' "$k" | tr '\n' ' '); from kseg's file it loads $(grep -a '^leader_epoch ' "$m" | tr '\n' ' ')"
  fi
done
echo "epoch rebuild: ${#epoch_parts[@]} corpus partitions with an unreadable leader-epoch-checkpoint; $same load the epoch cache Kafka's recovery builds ($entries entries in all)"
# ---- 6. 12-byte .index entries (KIP-1333, experimental) --------------------------------------
# Every partition section 1 rebuilt (its indexes Kafka's bytes): `kseg-reindex --index-entry-bytes
# 12` writes each index at 12 bytes; kseg-dump reads from it the entries Kafka's DumpLogSegments
# prints for Kafka's 8-byte file; kseg-verify warns index.wide_entries and finds nothing else
# wrong with the indexes; `--index-entry-bytes 8` turns every file back into Kafka's bytes.
bin="$(dirname "$kseg")"
wide_files=0 wide_24=0 wide_same=0 back_same=0 kafka_files=()
for work in "$tmp"/kseg/*/*/; do
  work="${work%/}"; name="$(basename "$work")"; case_name="$(basename "$(dirname "$work")")"
  for f in "$work"/*.index; do [[ -s "$f" ]] && kafka_files+=("$f"); done
  w="$tmp/wide/$case_name/$name"; mkdir -p "$(dirname "$w")"; cp -r "$work" "$w"
  props="$tmp/kseg/$case_name/$name.properties"
  rc=0; "$kseg" --no-backup --index-entry-bytes 12 --topic-config "$props" "$w" > "$w.out" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || bad "12-byte entries: kseg-reindex --index-entry-bytes 12 $case_name/$name exited $rc: $(tail -2 "$w.out")"
  vrc=0; "$bin/kseg-verify" "$w" > "$w.verify" 2>&1 || vrc=$?
  if [[ $vrc -ne 0 ]] || grep -E '^(ERROR|WARNING) index\.' "$w.verify" | grep -qv 'index\.wide_entries'; then
    bad "12-byte entries: kseg-verify $case_name/$name (exit $vrc): $(grep -E '^(ERROR|WARNING) index\.' "$w.verify" | head -3)"
  fi
  for f in "$w"/*.index; do
    [[ -s "$f" ]] || continue
    k="$work/$(basename "$f")"
    # Written at 12 bytes: half as large again as Kafka's file, and verify says so (its text names the file).
    if [[ $(stat -c %s "$f") -ne $(( $(stat -c %s "$k") * 3 / 2 )) ]] ||
       ! grep -q "^WARNING index.wide_entries .*$(basename "$f")" "$w.verify"; then
      bad "12-byte entries: $case_name/$name/$(basename "$f"): $(stat -c %s "$f") bytes for Kafka's $(stat -c %s "$k"), or no index.wide_entries"
    fi
    wide_files=$((wide_files + 1)); (( $(stat -c %s "$f") % 24 == 0 )) && wide_24=$((wide_24 + 1))
    "$bin/kseg-dump" "$f" 2>/dev/null | grep '^offset: ' > "$f.kseg" || true
  done
  # A plain run keeps them: each serves its log.
  rc=0; "$kseg" --dry-run --topic-config "$props" "$w" > "$w.plain" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || bad "12-byte entries: a plain kseg-reindex --dry-run of $case_name/$name would change it (exit $rc): $(head -3 "$w.plain")"
  rc=0; "$kseg" --no-backup --index-entry-bytes 8 --topic-config "$props" "$w" >> "$w.out" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || bad "12-byte entries: kseg-reindex --index-entry-bytes 8 $case_name/$name exited $rc"
  for f in "$work"/*.index; do
    if cmp -s "$f" "$w/$(basename "$f")"; then back_same=$((back_same + 1)); else bad "12-byte entries: $case_name/$name/$(basename "$f") not Kafka's bytes after --index-entry-bytes 8"; fi
  done
done
# One JVM: Kafka's DumpLogSegments over every non-empty 8-byte index Kafka's recovery wrote.
( IFS=,; bash "$(dirname "${BASH_SOURCE[0]}")/dump.sh" / --files "${kafka_files[*]}" ) > "$tmp/wide.kafka" 2>&1 || true
for f in "${kafka_files[@]}"; do
  rel="${f#"$tmp"/kseg/}"
  awk -v want="Dumping $f" '$0 == want {on = 1; next} /^Dumping / {on = 0} on && /^offset: /' "$tmp/wide.kafka" > "$f.kafka"
  if [[ -s "$f.kafka" ]] && cmp -s "$f.kafka" "$tmp/wide/$rel.kseg"; then wide_same=$((wide_same + 1)); ok
  else bad "12-byte entries: kseg-dump of $rel at 12 bytes lists $(wc -l < "$tmp/wide/$rel.kseg" 2>/dev/null) entries, Kafka's DumpLogSegments of its 8-byte file $(wc -l < "$f.kafka")"; fi
done
echo "12-byte entries: $wide_same/${#kafka_files[@]} indexes rewritten at 12 bytes list the entries Kafka's DumpLogSegments prints for its own ($wide_24 of $wide_files of a size both widths divide); $back_same indexes back at 8 bytes are Kafka's bytes"
[[ $wide_files -eq ${#kafka_files[@]} && $wide_24 -gt 0 ]] && ok || bad "12-byte entries: $wide_files files written, ${#kafka_files[@]} expected; $wide_24 of a size both divide"
# What Kafka 4.4 does with one: a clean load counts floor(size / 8) entries (read as 8-byte:
# lookups at the wrong positions); recovery (an unclean load) rebuilds it at 8 bytes.
k8="$tmp/wide/ld8/orders-0" k12="$tmp/wide/ld12/orders-0"; mkdir -p "$(dirname "$k8")" "$(dirname "$k12")"
cp -r "$CORPUS_DIR/broker-log-dir/orders-0" "$k8"; "$kseg" --no-backup --index-interval-bytes 1000 "$k8" > /dev/null 2>&1
cp -r "$k8" "$k12"; "$kseg" --no-backup --index-interval-bytes 1000 --index-entry-bytes 12 "$k12" > /dev/null 2>&1
n8=$(( $(stat -c %s "$k8/00000000000000000000.index") / 8 )) s12=$(stat -c %s "$k12/00000000000000000000.index")
[[ $s12 -eq $((n8 * 12)) ]] || bad "12-byte entries: $s12 bytes for $n8 entries"
oracle_java kseg.oracle.LoadCheck "$k12" --indexes > "$tmp/wide/clean12" 2>&1 || true
oracle_java kseg.oracle.LoadCheck "$k12" --indexes --unclean > "$tmp/wide/unclean12" 2>&1 || true
oracle_java kseg.oracle.LoadCheck "$k8" --indexes --unclean > "$tmp/wide/unclean8" 2>&1 || true
clean_entries="$(grep -o '^offset_index base=0 entries=[0-9]*' "$tmp/wide/clean12" | sed 's/.*=//')"
if [[ "$clean_entries" == $((s12 / 8)) && $n8 -ge 2 ]] && cmp -s "$tmp/wide/unclean12" "$tmp/wide/unclean8"; then
  ok; echo "12-byte entries, Kafka 4.4.0's loads: $n8 entries at 12 bytes ($s12 bytes): a clean load counts $clean_entries 8-byte entries ($(grep -o 'first=[^ ]*' "$tmp/wide/clean12")); an unclean load rebuilds it: the same log as from the 8-byte file"
else bad "12-byte entries, Kafka's loads: clean counts '$clean_entries' of $s12 bytes; unclean loads differ: $(diff "$tmp/wide/unclean12" "$tmp/wide/unclean8" | head -3)"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
