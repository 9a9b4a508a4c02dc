#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real Kafka 4.4.0 broker process starts on what kseg-truncate made of its own log dir: a copy
# of the live-broker corpus case (written by such a broker, with real clients, and shut down
# cleanly), in which kseg-truncate cuts three partitions (--to-offset in the middle of ledger-0,
# transactional, mid-segment; --log-start in idempotent-0; --to-time in kcat-zstd-0, written by
# librdkafka). The broker (retention off, so the clock cannot delete anything) must start without
# an error about them, and kcat reads each back from the broker, read_uncommitted, with exactly the
# offsets Kafka's in-process load (LoadCheck) of kseg's result holds (control records aside), from
# the log start the cut left. Usage: truncate-broker.sh KSEG_TRUNCATE
# Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
broker_scratch truncate-broker.sh
broker_logging
data="$tmp/data"
live_broker_copy "$data"
# The cuts, each at a point taken from the partition's batches (kseg-dump's JSON).
batch_offsets() { "$(dirname "$kseg")/kseg-dump" --format jsonl "$data/$1"/*.log | jq -r 'select(.type == "batch") | .base_offset'; }
mid() { batch_offsets "$1" | awk '{ a[NR] = $1 } END { print a[int(NR / 2) + 1] + 1 }'; }  # inside a batch
ledger_cut="$(mid ledger-0)"
idem_start="$(mid idempotent-0)"
zstd_time="$("$(dirname "$kseg")/kseg-dump" --format jsonl "$data/kcat-zstd-0"/*.log |
  jq -r 'select(.type == "batch") | .max_timestamp' | sort -un | awk '{ a[NR] = $1 } END { print a[int(NR * 3 / 4) + 1] }')"
declare -A cut=([ledger-0]="--to-offset $ledger_cut" [idempotent-0]="--log-start $idem_start"
                [kcat-zstd-0]="--to-time $zstd_time")
for p in "${!cut[@]}"; do
  # shellcheck disable=SC2086
  if "$kseg" ${cut[$p]} "$data/$p" > "$tmp/$p.out" 2>&1; then ok
  else bad "$p: kseg-truncate ${cut[$p]} failed: $(cat "$tmp/$p.out")"; fi
  tail -1 "$tmp/$p.out"
done
[[ -f "$data/.kafka_cleanshutdown" ]] || bad "the clean-shutdown marker is not back"

# What Kafka's own load of kseg's result holds, before the broker touches it.
jobs="$tmp/jobs.tsv"; : > "$jobs"
for p in "${!cut[@]}"; do printf '%s\t%s\n' "$tmp/$p.expected" "$data/$p" >> "$jobs"; done
oracle_java kseg.oracle.LoadCheckBatch "$jobs"

read -r bport cport < <(free_ports 2)
props "$data" log.retention.ms=-1 log.retention.bytes=-1 > "$tmp/server.properties"
start_broker "$tmp/server.properties"
for p in "${!cut[@]}"; do
  topic="${p%-*}"
  want="$(grep '^offset=' "$tmp/$p.expected" | grep -v ' control=' | sed -E 's/^offset=([0-9]+) .*/\1/')"
  got=""
  for _ in $(seq 30); do  # until the broker has loaded the partition and leads it
    got="$(kcat -b "127.0.0.1:$bport" -C -t "$topic" -p 0 -o beginning -e -q -f '%o\n' \
             -X isolation.level=read_uncommitted 2>/dev/null || true)"
    [[ -n "$got" ]] && break
    sleep 1
  done
  if [[ -n "$want" && "$got" == "$want" ]]; then
    ok; echo "$p (${cut[$p]}): the broker serves offsets $(head -1 <<< "$got")..$(tail -1 <<< "$got") ($(wc -l <<< "$got") records), as Kafka's load of kseg's result"
  else
    bad "$p (${cut[$p]}): the broker serves $(wc -l <<< "$got") records ($(head -1 <<< "$got")..$(tail -1 <<< "$got")), Kafka's load of kseg's result $(wc -l <<< "$want") ($(head -1 <<< "$want")..$(tail -1 <<< "$want"))"
  fi
done
stop_broker
# The broker logged each load (so its silence below means something) and nothing against the
# partitions kseg cut.
for p in "${!cut[@]}"; do
  grep -q "Completed load of Log(dir=$data/$p," "$tmp/broker.out" && ok || bad "the broker's log has no load of $p (logging off?)"
done
pattern="$(IFS='|'; echo "${!cut[*]}")"
if grep -E "ERROR|Corrupt|corrupt|unclean" "$tmp/broker.out" | grep -E "$pattern" > "$tmp/errors"; then
  bad "the broker's log names the cut partitions: $(head -3 "$tmp/errors")"
else
  ok
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
