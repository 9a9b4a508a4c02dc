#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg-txn against Kafka 4.4.0 (two JVM runs):
#   1. producer state: for every partition of every case in testdata/kafka, the producers
#      kseg-txn reports at the log end == Kafka's ProducerStateManager after an unclean load of a
#      copy (RebuildProducerState load --unclean: segments past the recovery point replayed),
#      field by field; partitions Kafka refuses to load are counted, not compared;
#   2. no false alarm: kseg-txn finds no hanging transaction in any case (exit 0);
#   3. the hanging transaction: the live broker's ledger-0 cut by Kafka's own truncateTo at the
#      last marker of its transactional producer (RebuildProducerState hang), beside the
#      broker's __transaction_state-0, which has the transaction ended: kseg-txn exits 1 and
#      names that producer's transaction, from the first offset Kafka's own state gives, as
#      hanging, with the coordinator's state, once its last write is older than the
#      transaction timeout (before that: unverified, exit 0); its producer state equals Kafka's.
# Usage: txn-oracle.sh KSEG_TXN     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
now=1700000000000  # FixedTime.START_MS: expiration at load as in Kafka's run

# producers_of JSON PARTITION_NAME: kseg-txn's producers of that partition, in the format of
# RebuildProducerState's producers.txt
producers_of() {  # python: jq 1.6 reads int64 producer ids as doubles
  python3 -c '
import json, sys
keys = ("producer_id", "epoch", "last_sequence", "last_offset", "timestamp_ms", "coordinator_epoch", "txn_first_offset")
for p in json.load(open(sys.argv[1]))["partitions"]:
    if p["dir"].endswith("/" + sys.argv[2]):
        for e in p["producers"]:
            print("%d epoch %d lastSeq %d lastOffset %d timestamp %d coordinatorEpoch %d txnFirst %d" % tuple(e[k] for k in keys))
' "$1" "$2"
}

# The corpus, and a partition of 340 producers with transactions left open (ManyProducers).
seed="${KSEG_ORACLE_SEED:-$RANDOM}"
oracle_java kseg.oracle.ManyProducers "$tmp/extra" "$seed" > /dev/null
echo "many-producers seed $seed"
load_args=()
for case_dir in "$CORPUS_DIR"/*/ "$tmp/extra/many-producers/"; do
  case_name="$(basename "$case_dir")"
  [[ -f "$case_dir/case.json" ]] || continue
  mkdir -p "$tmp/kafka/$case_name"
  find "$case_dir" -maxdepth 1 -type f ! -name case.json -exec cp {} "$tmp/kafka/$case_name/" \;
  rc=0
  "$kseg" --format json --now "$now" "$case_dir" > "$tmp/$case_name.json" 2> "$tmp/$case_name.err" || rc=$?
  if ((rc == 0)); then ok; else bad "$case_name: kseg-txn exit $rc: $(head -c 600 "$tmp/$case_name.err")"; fi
  # At a clock past every write (2100), older than any transaction timeout: still no hanging one.
  rc=0
  "$kseg" --now 4102444800000 "$case_dir" > "$tmp/$case_name.late" 2>&1 || rc=$?
  if ((rc == 0)); then ok; else bad "$case_name: kseg-txn exit $rc in 2100 (a false alarm): $(tail -c 600 "$tmp/$case_name.late")"; fi
  for name in $(jq -r '.partitions[].dir' "$case_dir/case.json"); do
    [[ -d "$case_dir/$name" ]] || continue
    cp -r "$case_dir/$name" "$tmp/kafka/$case_name/"
    load_args+=("$tmp/kafka/$case_name/$name" "$(jq -c --arg d "$name" '.partitions[] | select(.dir == $d) | .topic_config' "$case_dir/case.json")")
  done
done

# The hanging transaction.
hang="$tmp/hang"
mkdir -p "$hang"
find "$CORPUS_DIR/live-broker" -maxdepth 1 -type f ! -name case.json -exec cp {} "$hang/" \;
cp -r "$CORPUS_DIR/live-broker/ledger-0" "$CORPUS_DIR/live-broker/__transaction_state-0" "$hang/"
pid="$(jq -r '.producers[] | select(.txn_first_offset == -1 and .coordinator_epoch >= 0) | .producer_id' \
  <(jq '.partitions[] | select(.dir | endswith("ledger-0"))' "$tmp/live-broker.json") | head -n 1)"
marker="$(oracle_java kseg.oracle.RebuildProducerState hang "$hang/ledger-0" "$pid" | tail -n 1)"
echo "hanging case: live-broker/ledger-0 cut at offset $marker, the last marker of producer $pid"
cp -r "$hang" "$tmp/hang-kafka"
load_args+=("$tmp/hang-kafka/ledger-0" "{}")

oracle_java kseg.oracle.RebuildProducerState load --unclean "${load_args[@]}" > "$tmp/loads.txt"
compared=0 refused=0 with_producers=0
while IFS= read -r line; do
  [[ "$line" == "== "* ]] || continue
  dir="${line#== }"; name="$(basename "$dir")"; case_name="$(basename "$(dirname "$dir")")"
  [[ "$case_name" == hang-kafka ]] && continue
  block="$(awk -v d="$line" '$0 == d {on = 1; next} /^== / {on = 0} on' "$tmp/loads.txt")"
  if [[ "$(head -n 1 <<< "$block")" == error* ]]; then refused=$((refused + 1)); continue; fi
  want="$(tail -n +2 <<< "$block")"
  have="$(producers_of "$tmp/$case_name.json" "$name")"
  compared=$((compared + 1)); [[ -n "$want" ]] && with_producers=$((with_producers + 1))
  if [[ "$want" == "$have" ]]; then ok; else
    bad "$case_name/$name: producer state differs from Kafka's: Kafka [$want] kseg [$have]"
  fi
done < "$tmp/loads.txt"
echo "producer state: $compared partitions compared with Kafka's ($with_producers with producers), $refused that Kafka refused to load"

# Within the coordinator's transaction timeout of its last write, the same is only unverified (a
# lagging copy could explain it): exit 0. Past it (10 minutes on), hanging: exit 1.
last_write="$({ "$kseg" --format json --now "$now" "$hang" || true; } | python3 -c '
import json, sys
print(max(t["last_timestamp_ms"] for p in json.load(sys.stdin)["partitions"] for t in p["open_transactions"]))')"
rc=0
young="$("$kseg" --format json --now "$((last_write + 1000))" "$hang")" || rc=$?
if ((rc == 0)) && grep -q '"verdict": "unverified"' <<< "$young"; then ok
else bad "hanging case, 1 s after its last write: kseg-txn exit $rc, expected 0 and unverified"; fi
rc=0
"$kseg" --format json --now "$((last_write + 600000))" "$hang" > "$tmp/hang.json" 2> "$tmp/hang.err" || rc=$?
if ((rc == 1)); then ok; else bad "hanging case: kseg-txn exit $rc, expected 1"; fi
want_first="$(awk -v d="== $tmp/hang-kafka/ledger-0" '$0 == d {on = 1; next} /^== / {on = 0} on' "$tmp/loads.txt" |
  awk -v p="$pid" '$1 == p {print $NF}')"
verdict="$(jq -r --arg p "$pid" '.partitions[] | select(.dir | endswith("ledger-0")) | .open_transactions[] |
  select(.producer_id == ($p | tonumber)) | "\(.first_offset) \(.verdict) \(.coordinator.state)"' "$tmp/hang.json")"
if [[ -n "$want_first" && "$want_first" != -1 && "$verdict" == "$want_first hanging Complete"* ]]; then ok
  echo "hanging case: kseg-txn: producer $pid open from $want_first (as Kafka's state), hanging, coordinator ${verdict##* }"
else bad "hanging case: Kafka's open transaction from [$want_first], kseg-txn said [$verdict]"; fi
want="$(awk -v d="== $tmp/hang-kafka/ledger-0" '$0 == d {on = 1; next} /^== / {on = 0} on' "$tmp/loads.txt" | tail -n +2)"
have="$(producers_of "$tmp/hang.json" ledger-0)"
if [[ "$want" == "$have" ]]; then ok; else bad "hanging case: producer state differs: Kafka [$want] kseg [$have]"; fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
