#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg-reindex --producer-state against Kafka 4.4.0's own recovery (four JVM runs):
#   1. byte identity: for every partition of every case in testdata/kafka and of a fresh
#      partition of 340 producers (ManyProducers), with every .index,
#      .timeindex, .txnindex and .snapshot deleted, the .txnindex and .snapshot files
#      kseg-reindex --producer-state writes == the ones Kafka's LogLoader leaves after
#      recovering every segment and closing the log (RebuildProducerState rebuild): the same
#      set of names, every file byte for byte;
#   2. Kafka loads what kseg wrote without replaying: after a clean-shutdown load the newest
#      snapshot is at the log end, the load and close wrote and removed no snapshot, and the
#      producer state equals the one of Kafka's own rebuild;
#   3. a second run changes nothing.
# Step 1 runs three times: snapshots deleted first, snapshots kept (Kafka loads the newest at or
# below the first segment's base, deletes the later ones), and at a clock a day later (producers
# expire at each snapshot load). A damaged partition (invalid bytes kseg-reindex leaves without
# --recover/--salvage) must have its producer state left alone.
# The clock is FixedTime.START_MS on both sides (--now): snapshot contents depend on it.
# Usage: producer-oracle.sh KSEG_REINDEX     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start_ms=1700000000000  # FixedTime.START_MS

# The corpus, and a partition of 340 producers (ManyProducers, a new seed each run): snapshots
# of hundreds of entries in Kafka's HashMap order.
seed="${KSEG_ORACLE_SEED:-$RANDOM}"
oracle_java kseg.oracle.ManyProducers "$tmp/extra" "$seed" > /dev/null
echo "many-producers seed $seed"
load_args=()

# variant NAME NOW_MS KEEP(0|1): Kafka's rebuild and kseg's, file by file, at clock NOW_MS, with
# the partitions' own snapshots deleted first or (KEEP=1) kept. The first variant also has kseg
# run twice and its results loaded by Kafka (step 2).
variant() {
  local vname="$1" now="$2" keep="$3" files=0 txn_files=0 snap_files=0 damaged=0 corpus part name case_name work rc
  local flags=(--now "$now"); ((keep)) && flags+=(--keep-snapshots)
  for corpus in "$CORPUS_DIR" "$tmp/extra"; do
    oracle_java kseg.oracle.RebuildProducerState rebuild "${flags[@]}" "$corpus" "$tmp/$vname/kafka"
    for part in "$tmp/$vname"/kafka/*/*/; do
      part="${part%/}"; name="$(basename "$part")"; case_name="$(basename "$(dirname "$part")")"
      [[ -d "$corpus/$case_name" && ! -d "$tmp/$vname/kseg/$case_name/$name" ]] || continue
      # The case's log dir (its root checkpoints) with this one partition, state files deleted.
      work="$tmp/$vname/kseg/$case_name"
      mkdir -p "$work"
      find "$corpus/$case_name" -maxdepth 1 -type f ! -name case.json -exec cp {} "$work/" \;
      cp -r "$corpus/$case_name/$name" "$work/$name"
      rm -f "$work/$name"/*.index "$work/$name"/*.timeindex "$work/$name"/*.txnindex
      ((keep)) || rm -f "$work/$name"/*.snapshot
      topic_config "$corpus/$case_name" "$name" > "$work/$name.properties"
      rc=0
      local before
      before="$(cd "$work/$name" && md5sum -- *.txnindex *.snapshot 2>/dev/null || true)"
      "$kseg" --no-backup --producer-state --now "$now" --topic-config "$work/$name.properties" "$work/$name" \
        > "$work/$name.out" 2>&1 || rc=$?
      if ((rc == 1)); then
        # A damaged case keeps its invalid bytes without --recover/--salvage: its producer state is
        # left as it is (Kafka's recovery would truncate the segment first).
        damaged=$((damaged + 1))
        if grep -q "producer state left as it is" "$work/$name.out" &&
           [[ "$before" == "$(cd "$work/$name" && md5sum -- *.txnindex *.snapshot 2>/dev/null || true)" ]]; then ok
        else bad "$vname $case_name/$name: exit 1 without leaving producer state alone: $(tail -n 2 "$work/$name.out")"; fi
        continue
      elif ((rc != 0)); then
        bad "$vname $case_name/$name: kseg-reindex failed: $(tail -n 3 "$work/$name.out")"
        continue
      fi
      want="$(cd "$part" && ls | grep -E '\.(txnindex|snapshot)$' || true)"
      have="$(cd "$work/$name" && ls | grep -E '\.(txnindex|snapshot)$' || true)"
      if [[ "$want" != "$have" ]]; then
        bad "$vname $case_name/$name: files differ: Kafka [$(echo $want)] kseg [$(echo $have)]"
        continue
      fi
      local same=1 f
      for f in $want; do
        files=$((files + 1))
        [[ "$f" == *.txnindex ]] && txn_files=$((txn_files + 1)) || snap_files=$((snap_files + 1))
        cmp -s "$part/$f" "$work/$name/$f" || { same=0; bad "$vname $case_name/$name/$f differs from Kafka's"; }
      done
      ((same)) && ok
      [[ "$vname" == fresh ]] || continue
      # 3. idempotence
      local again
      again="$("$kseg" --no-backup --producer-state --now "$now" --topic-config "$work/$name.properties" \
        "$work/$name" 2>/dev/null || true)"
      if grep -q "nothing to change" <<< "$again"; then ok; else bad "$case_name/$name: a second run changes something"; fi
      load_args+=("$work/$name" "$(jq -c --arg d "$name" '.partitions[] | select(.dir == $d) | .topic_config' \
        "$corpus/$case_name/case.json")")
    done
  done
  echo "byte identity ($vname: clock $now, snapshots $( ((keep)) && echo kept || echo deleted)): $files files" \
    "($txn_files .txnindex, $snap_files .snapshot) compared; $damaged damaged partitions left alone"
}
variant fresh "$start_ms" 0
variant kept "$start_ms" 1
# A day and 30 s on: producers whose last write is older than producer.id.expiration.ms are
# dropped at every snapshot load (ManyProducers writes for about a minute: both sides of it).
variant expiring "$((start_ms + 86400000 + 30000))" 0

# 2. Kafka's load of kseg's results.
oracle_java kseg.oracle.RebuildProducerState load "${load_args[@]}" > "$tmp/loads.txt"
loaded=0
while IFS= read -r line; do
  [[ "$line" == "== "* ]] || continue
  dir="${line#== }"; name="$(basename "$dir")"; case_name="$(basename "$(dirname "$dir")")"
  block="$(awk -v d="$line" '$0 == d {on = 1; next} /^== / {on = 0} on' "$tmp/loads.txt")"
  head_line="$(head -n 1 <<< "$block")"
  read -r _ leo _ snap _ written _ removed <<< "$head_line"
  producers="$(tail -n +2 <<< "$block")"
  # No batch read: the snapshot loaded is at the log end, or the log is empty. A load that
  # finds no snapshot at all (log start == log end) writes an empty one, reading nothing.
  if [[ ( "$leo" != "$snap" && ! ( "$leo" == 0 && "$snap" == -1 ) ) || "$removed" != 0 ||
        ( "$written" != 0 && -n "$producers" ) ]]; then
    bad "$case_name/$name: Kafka's load replayed or changed snapshots: $head_line"
  elif [[ "$producers" != "$(cat "$tmp/fresh/kafka/$case_name/$name/producers.txt")" ]]; then
    bad "$case_name/$name: producer state after loading kseg's files differs from Kafka's rebuild"
  else
    ok; loaded=$((loaded + 1))
  fi
done < "$tmp/loads.txt"
echo "Kafka loaded $loaded partitions from kseg's snapshots without replaying"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
