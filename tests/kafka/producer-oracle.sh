#!/usr/bin/env bash
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
# The clock is FixedTime.START_MS on both sides (--now): snapshot contents depend on it.
# Usage: producer-oracle.sh KSEG_REINDEX     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
now=1700000000000  # FixedTime.START_MS

# The corpus, and a partition of 340 producers (ManyProducers, a new seed each run): snapshots
# of hundreds of entries in Kafka's HashMap order.
seed="${KSEG_ORACLE_SEED:-$RANDOM}"
oracle_java kseg.oracle.ManyProducers "$tmp/extra" "$seed" > /dev/null
echo "many-producers seed $seed"
load_args=()
files=0 txn_files=0 snap_files=0 damaged=0
for corpus in "$CORPUS_DIR" "$tmp/extra"; do
oracle_java kseg.oracle.RebuildProducerState rebuild "$corpus" "$tmp/kafka"
for part in "$tmp"/kafka/*/*/; do
  part="${part%/}"; name="$(basename "$part")"; case_name="$(basename "$(dirname "$part")")"
  [[ -d "$corpus/$case_name" && ! -d "$tmp/kseg/$case_name/$name" ]] || continue
  # The case's log dir (its root checkpoints) with this one partition, state files deleted.
  work="$tmp/kseg/$case_name"
  mkdir -p "$work"
  find "$corpus/$case_name" -maxdepth 1 -type f ! -name case.json -exec cp {} "$work/" \;
  cp -r "$corpus/$case_name/$name" "$work/$name"
  rm -f "$work/$name"/*.index "$work/$name"/*.timeindex "$work/$name"/*.txnindex "$work/$name"/*.snapshot
  topic_config "$corpus/$case_name" "$name" > "$work/$name.properties"
  # Exit 1 on the damaged cases: the invalid bytes are reported (and left), the state rebuilt.
  rc=0
  "$kseg" --no-backup --producer-state --now "$now" --topic-config "$work/$name.properties" "$work/$name" \
    > "$work/$name.out" 2>&1 || rc=$?
  if ((rc > 1)); then
    bad "$case_name/$name: kseg-reindex failed: $(tail -n 3 "$work/$name.out")"
    continue
  fi
  want="$(cd "$part" && ls | grep -E '\.(txnindex|snapshot)$' || true)"
  have="$(cd "$work/$name" && ls | grep -E '\.(txnindex|snapshot)$' || true)"
  if [[ "$want" != "$have" ]]; then
    bad "$case_name/$name: files differ: Kafka [$(echo $want)] kseg [$(echo $have)]"
    continue
  fi
  same=1
  for f in $want; do
    files=$((files + 1))
    [[ "$f" == *.txnindex ]] && txn_files=$((txn_files + 1)) || snap_files=$((snap_files + 1))
    cmp -s "$part/$f" "$work/$name/$f" || { same=0; bad "$case_name/$name/$f differs from Kafka's"; }
  done
  ((same)) && ok
  # 3. idempotence
  again="$("$kseg" --no-backup --producer-state --now "$now" --topic-config "$work/$name.properties" "$work/$name" \
    2>/dev/null || true)"
  if grep -q "nothing to change" <<< "$again"; then ok; else bad "$case_name/$name: a second run changes something"; fi
  # A damaged case keeps its invalid bytes, which a clean-shutdown load refuses: not loaded.
  ((rc == 0)) || { damaged=$((damaged + 1)); continue; }
  config="$(jq -c --arg d "$name" '.partitions[] | select(.dir == $d) | .topic_config' "$corpus/$case_name/case.json")"
  load_args+=("$work/$name" "$config")
done
done
echo "byte identity: $files files ($txn_files .txnindex, $snap_files .snapshot) compared; $damaged damaged partitions not loaded"

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
  elif [[ "$producers" != "$(cat "$tmp/kafka/$case_name/$name/producers.txt")" ]]; then
    bad "$case_name/$name: producer state after loading kseg's files differs from Kafka's rebuild"
  else
    ok; loaded=$((loaded + 1))
  fi
done < "$tmp/loads.txt"
echo "Kafka loaded $loaded partitions from kseg's snapshots without replaying"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
