#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A transaction under two-phase commit (KIP-939) left open, as a real Kafka 4.4.0 broker keeps it,
# and what kseg-txn and kseg-verify make of it (issue 51, item 2). Kafka 4.4.0's client cannot
# ask for 2PC (its InitProducerId never sets Enable2Pc; version 6 of the request is unstable),
# so: a broker (transaction.two.phase.commit.enable=true, timed-out transactions aborted every
# second) and a Java producer process (kseg.oracle.TxnLeftOpen) that opens two transactions of
# 20 records and dies: plain-writer (2 s timeout) on plain-0, which the coordinator aborts, then
# tpc-writer (10 s) on tpc-0, left open when the broker shuts down cleanly. On one copy Kafka's
# own TransactionLog appends tpc-writer's state with the timeout the coordinator gives a 2PC
# producer, Integer.MAX_VALUE (kseg.oracle.TxnTwoPhaseState); the other keeps 10 s.
#   kseg-txn: tpc-0 "ongoing (2PC)" (JSON two_phase_commit) on the first copy, plain "ongoing" on
#   the other; plain-0 aborted; no hanging transaction; kseg-doctor (which judges open
#   transactions as kseg-txn does): nothing to fix, no txn.hanging or txn.unverified, and
#   txn.two_phase_open (info, shown with -v, not in the plan) on tpc-0 of the first copy only,
#   with forceTerminateTransaction for an application gone for good.
#   The broker, restarted on each copy for 12 s: its coordinator aborts the 10 s transaction and
#   keeps the 2PC one open (kseg-txn after: tpc-0 aborted on one copy, still ongoing on the other).
# Usage: txn2pc-broker.sh BUILD_DIR. Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build="$(realpath "$1")"
broker_scratch txn2pc-broker.sh
broker_logging
read -r bport cport < <(free_ports 2)
settings=(transaction.two.phase.commit.enable=true transaction.abort.timed.out.transaction.cleanup.interval.ms=1000)
data="$tmp/2pc" plain="$tmp/plain"
broker_on "$data" "${settings[@]}"
java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.TxnLeftOpen "127.0.0.1:$bport" tpc plain 20 > "$tmp/producer.out" 2>&1 ||
  bad "the producer failed: $(tail -3 "$tmp/producer.out")"
stop_broker
cp -a "$data" "$plain"
java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.TxnTwoPhaseState "$data/__transaction_state-0" tpc-writer > "$tmp/state.out" 2>&1 ||
  bad "TxnTwoPhaseState failed: $(tail -3 "$tmp/state.out")"

# txn CASE NAME: kseg-txn's JSON on the copy, into $tmp/NAME.json (and its text).
txn() {
  local status=0
  "$build/kseg-txn" --format json "$1" > "$tmp/$2.json" 2> "$tmp/$2.err" || status=$?
  "$build/kseg-txn" "$1" > "$tmp/$2.txt" 2>&1 || true
  [[ $status -eq 0 ]] && ok || bad "$2: kseg-txn exited $status: $(cat "$tmp/$2.err")"
}
open_of() { jq -c "[.partitions[] | select(.topic == \"$2\")][0].open_transactions" "$tmp/$1.json"; }
aborted_of() { jq "[.partitions[] | select(.topic == \"$2\")][0].aborted_transactions | length" "$tmp/$1.json"; }
txn "$data" before-2pc
txn "$plain" before-plain
grep -B1 -A2 "coordinator (" "$tmp/before-2pc.txt" | head -8 || true
jq -e '.[0] | .verdict == "ongoing" and .coordinator.two_phase_commit == true and .coordinator.timeout_ms == 2147483647' \
  <<< "$(open_of before-2pc tpc)" > /dev/null && ok || bad "2pc copy, tpc-0: $(open_of before-2pc tpc)"
grep -q "ongoing (2PC): producer" "$tmp/before-2pc.txt" && ok || bad "kseg-txn's text does not say ongoing (2PC)"
jq -e '.[0] | .verdict == "ongoing" and .coordinator.two_phase_commit == false and .coordinator.timeout_ms == 10000' \
  <<< "$(open_of before-plain tpc)" > /dev/null && ok || bad "plain copy, tpc-0: $(open_of before-plain tpc)"
for c in before-2pc before-plain; do
  [[ "$(open_of $c plain)" == "[]" && "$(aborted_of $c plain)" == 1 ]] && ok || bad "$c, plain-0: not one aborted range"
done
dstatus=0
"$build/kseg-doctor" "$data" > "$tmp/doctor.txt" 2>&1 || dstatus=$?
if [[ $dstatus -eq 0 ]] && ! grep -q "txn.hanging\|txn.unverified" "$tmp/doctor.txt"; then ok
else bad "kseg-doctor exited $dstatus: $(grep -E 'txn\.|ERROR|WARNING' "$tmp/doctor.txt" | head -3)"; fi
# ...and says what holds tpc-0's last stable offset back: the 2PC transaction (info), on that copy only.
"$build/kseg-doctor" --format json "$data" > "$tmp/doctor.json" 2>&1 || true
"$build/kseg-doctor" --format json "$plain" > "$tmp/doctor-plain.json" 2>&1 || true
"$build/kseg-doctor" -v "$data" > "$tmp/doctor-v.txt" 2>&1 || true
twophase() { jq -c '[.. | objects | select(.code? == "txn.two_phase_open") | .file] | map(split("/")[-2])' "$1"; }
if [[ "$(twophase "$tmp/doctor.json")" == '["tpc-0"]' && "$(twophase "$tmp/doctor-plain.json")" == '[]' ]] &&
   grep -q "forceTerminateTransaction --transactionalId tpc-writer" "$tmp/doctor-v.txt" &&
   ! grep -q "forceTerminateTransaction" "$tmp/doctor.txt"; then
  ok; grep -A1 "txn.two_phase_open" "$tmp/doctor-v.txt" | head -2 || true
else bad "kseg-doctor's txn.two_phase_open: 2pc copy $(twophase "$tmp/doctor.json"), plain copy $(twophase "$tmp/doctor-plain.json")"; fi

# Kafka's coordinator on each copy: the 10 s transaction is aborted, the 2PC one is not.
for c in 2pc plain; do
  : > "$tmp/broker.out"
  broker_on "$tmp/$c" "${settings[@]}"
  sleep 12
  stop_broker
  cp "$tmp/broker.out" "$tmp/$c.out"
  txn "$tmp/$c" "after-$c"
  # The coordinator's partition loaded (so the 2PC copy's open transaction is the coordinator's choice).
  grep -q "Completed load of Log(dir=$tmp/$c/__transaction_state-0," "$tmp/$c.out" && ok ||
    bad "$c: the broker's log has no load of __transaction_state-0"
  if grep -E "ERROR|WARN" "$tmp/$c.out" | grep -qi "transaction"; then
    bad "$c: the broker logged: $(grep -E 'ERROR|WARN' "$tmp/$c.out" | grep -i transaction | head -2)"
  else ok; fi
done
echo "after a 12 s run: 2pc copy tpc-0 open $(open_of after-2pc tpc | jq length), aborted $(aborted_of after-2pc tpc);" \
  "plain copy tpc-0 open $(open_of after-plain tpc | jq length), aborted $(aborted_of after-plain tpc)"
[[ "$(open_of after-2pc tpc | jq length)" == 1 && "$(aborted_of after-2pc tpc)" == 0 ]] && ok ||
  bad "the broker ended the 2PC transaction"
[[ "$(open_of after-plain tpc | jq length)" == 0 && "$(aborted_of after-plain tpc)" == 1 ]] && ok ||
  bad "the broker did not abort the timed-out transaction"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
