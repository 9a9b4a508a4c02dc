#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg-excise, then a real Kafka 4.4.0 broker process and real consumers: the Java client and
# kcat (librdkafka), read_uncommitted and read_committed. The log dir is a copy of the
# live-broker corpus case (written by a 4.4 broker with real clients: every codec, kcat's,
# idempotent, transactional with aborts, the live cleaner's compacted topic), plus three
# partitions Kafka 2.8.2 wrote (v1 lz4, v0 gzip, compacted v1) moved into topics of this broker,
# plus a topic with a poison pill. The broker starts three times:
#   1. kcat writes "prices" (numbers, and one record that is not a number); a Java application
#      whose deserializer takes only numbers stops on it, as such consumers stop (KAFKA-8722);
#   2. after the 2.8.2 partitions are moved in: every consumer reads every topic (the reading
#      before); the 2.8.2 partitions are read whole (each offset Kafka's in-process load has);
#   3. after kseg-excise (the pill, found with kseg-dump --key; on every other topic three
#      selections by excise-oracle.py's function, made from what the Java consumer sees: offsets,
#      keys, headers, values, timestamps, not producer ids; each checked to be what kseg lists):
#      every reading is the reading before minus the removed records, line for line
#      (excise_broker.py); the application resumes from its committed offset and reads past the
#      pill; the broker logged the load of every partition kseg rewrote and nothing against one.
# Usage: excise-broker.sh KSEG_EXCISE        Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
bin="$(dirname "$kseg")"
broker_scratch excise-broker.sh
broker_logging
data="$tmp/data"
live_broker_copy "$data"
read -r bport cport < <(free_ports 2)
props "$data" log.retention.ms=-1 log.retention.bytes=-1 > "$tmp/server.properties"
boot="127.0.0.1:$bport"
declare -A legacy=([legacy-v1-lz4]=v1-lz4-0 [legacy-v0-gzip]=v0-gzip-0 [legacy-compacted-v1]=compacted-v1-0)
topics=(ledger idempotent accounts codec-none codec-gzip codec-snappy codec-lz4 codec-zstd kcat-gzip kcat-snappy
        kcat-lz4 kcat-zstd "${!legacy[@]}")
consume() {  # consume DIR: every topic, Java and kcat, both isolation levels, into DIR/CLIENT-LEVEL/TOPIC
  local t l
  java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.Consume --bootstrap "$boot" --out "$1" "${topics[@]}" prices
  for l in read_uncommitted read_committed; do
    mkdir -p "$1/kcat-$l"
    for t in "${topics[@]}" prices; do
      kcat -b "$boot" -C -t "$t" -p 0 -o beginning -e -q -f '%o %T %S\n' -X "isolation.level=$l" > "$1/kcat-$l/$t"
    done
  done
}
numbers() { java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.Consume --bootstrap "$boot" --numbers pricing prices; }
wait_leader() {  # wait_leader TOPIC: until kcat sees partition 0 led (the broker has loaded it)
  for _ in $(seq 60); do
    kcat -b "$boot" -L -t "$1" 2>/dev/null | grep -q 'partition 0, leader 1' && return 0
    sleep 0.5
  done
  bad "topic $1 has no leader a minute after the broker started"
}

# 1. The pill, and the topics the 2.8.2 partitions move into.
start_broker "$tmp/server.properties"
seq 1 40 | awk '{ print "p" $1 ":" 100 + $1 * 7 }' | sed 's/^p23:.*/poison-pill:{"price": "12,50 EUR"}/' |
  kcat -q -b "$boot" -P -t prices -K: -z lz4
for t in "${!legacy[@]}"; do echo "x" | kcat -q -b "$boot" -P -t "$t"; done
# Offsets 0..39, the pill at 22: the application reads 0..21 and stops.
pill=-1
if out="$(numbers)"; then
  bad "the numbers-only consumer read the pill: $out"
elif [[ "$out" =~ poison\ at\ offset\ ([0-9]+) && "$(head -1 <<< "$out")" == "read 22 $(seq -s' ' 0 21)" ]]; then
  pill="${BASH_REMATCH[1]}"; ok; echo "prices: the numbers-only consumer stops: $(tail -1 <<< "$out")"
else
  bad "the numbers-only consumer failed otherwise: $out"
fi
stop_broker

# The 2.8.2 partitions moved in: their segments replace the placeholder's, the root checkpoints
# take the recovery point and high watermark Kafka 2.8.2 wrote for them; partition.metadata and
# the leader-epoch-checkpoint stay the new topic's.
for t in "${!legacy[@]}"; do
  src="$CORPUS_DIR/legacy-broker/${legacy[$t]}" dst="$data/$t-0"
  rm -f "$dst"/*.log "$dst"/*.index "$dst"/*.timeindex "$dst"/*.snapshot "$dst"/*.txnindex
  cp "$src"/*.log "$src"/*.index "$src"/*.timeindex "$dst/"
  cp "$src"/*.snapshot "$dst/" 2>/dev/null || true
  for c in recovery-point-offset-checkpoint replication-offset-checkpoint; do
    end="$(awk -v t="${legacy[$t]%-0}" '$1 == t && $2 == 0 { print $3 }' "$CORPUS_DIR/legacy-broker/$c")"
    [[ -n "$end" ]] || { echo "excise-broker.sh: no line for ${legacy[$t]} in 2.8.2's $c" >&2; exit 1; }
    sed -i -E "s/^$t 0 [0-9]+\$/$t 0 $end/" "$data/$c"
  done
  printf '%s\t%s\n' "$tmp/$t.expected" "$src" >> "$tmp/legacy-jobs.tsv"
done
oracle_java kseg.oracle.LoadCheckBatch "$tmp/legacy-jobs.tsv"

# 2. The reading before.
start_broker "$tmp/server.properties"
for t in "${topics[@]}" prices; do wait_leader "$t"; done
consume "$tmp/before"
stop_broker
for t in "${!legacy[@]}"; do
  want="$(grep '^offset=' "$tmp/$t.expected" | grep -v ' control=' | sed -E 's/^offset=([0-9]+) .*/\1/')"
  got="$(cut -d' ' -f1 "$tmp/before/java-read_uncommitted/$t")"
  if [[ -n "$want" && "$got" == "$want" ]]; then ok
  else bad "$t: the broker serves $(wc -l <<< "$got") records of Kafka 2.8.2's ${legacy[$t]}, its load holds $(wc -l <<< "$want")"; fi
done

# The pill, found as an operator finds it: kseg-dump --key, then --from-offset.
found="$("$bin/kseg-dump" --print-data-log --key poison-pill "$data/prices-0"/*.log)"
if grep -q "offset: $pill .*key: poison-pill" <<< "$found"; then
  ok; echo "prices: kseg-dump --key poison-pill finds offset $pill"
else
  bad "kseg-dump --key poison-pill does not print offset $pill: $(tail -3 <<< "$found")"
fi
shown="$("$bin/kseg-dump" --print-data-log --from-offset "$pill" --to-offset "$pill" "$data/prices-0"/*.log | grep -c 'payload: {"price"' || true)"
[[ "$shown" == 1 ]] && ok || bad "kseg-dump --from-offset $pill --to-offset $pill shows the pill's value $shown times"
if "$kseg" --broker-config "$tmp/server.properties" --offsets "$pill" --yes "$data/prices-0" > "$tmp/pill.out" 2>&1; then
  ok; tail -1 "$tmp/pill.out"
else
  bad "kseg-excise --offsets $pill: $(cat "$tmp/pill.out")"
fi
python3 "$KAFKA_DIR/excise_broker.py" excise "$kseg" "$tmp/server.properties" "$data" "$tmp/before" \
  "$tmp/removed.json" "${topics[@]}" | tee "$tmp/excise.out"
jq --argjson p "$pill" '. + {prices: [$p]}' "$tmp/removed.json" > "$tmp/removed2.json"
[[ -f "$data/.kafka_cleanshutdown" ]] || bad "the clean-shutdown marker is gone"

# 3. The reading after (and the broker's log of this start alone).
mark=$(wc -l < "$tmp/broker.out")
start_broker "$tmp/server.properties"
for t in "${topics[@]}" prices; do wait_leader "$t"; done
consume "$tmp/after"
if out="$(numbers)" && [[ "$out" == "read 17 $(seq -s' ' $((pill + 1)) 39)" ]]; then
  ok; echo "prices: the numbers-only consumer resumes at its committed offset $pill and reads past the pill: $out"
else
  bad "the numbers-only consumer still stops after the excision: $out"
fi
stop_broker
python3 "$KAFKA_DIR/excise_broker.py" judge "$tmp/before" "$tmp/after" "$tmp/removed2.json" | tee "$tmp/judge.out"
tail -n "+$((mark + 1))" "$tmp/broker.out" > "$tmp/broker3.out"
for t in "${topics[@]}" prices; do  # the load of each was logged, so a silence below means something
  grep -q "Completed load of Log(dir=$data/$t-0," "$tmp/broker3.out" && ok ||
    bad "the broker's log of its last start has no load of $t-0 (logging off?)"
done
pattern="$(IFS='|'; echo "${topics[*]}|prices")"
if grep -E "ERROR|WARN|unclean|[Cc]orrupt" "$tmp/broker3.out" | grep -E "($pattern)-0" > "$tmp/errors"; then
  bad "the broker's log names an excised partition: $(head -3 "$tmp/errors")"
else
  ok
fi
for f in "$tmp/excise.out" "$tmp/judge.out"; do
  read -r p _ f2 _ < <(tail -1 "$f")
  passed=$((passed + p)) failed=$((failed + f2))
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
