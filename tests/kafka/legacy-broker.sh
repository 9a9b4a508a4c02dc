#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the corpus case legacy-broker: a log dir written by a Kafka 2.8.2 broker process with
# its ZooKeeper (both from Maven Central, on Java 17), the last line that still writes message
# formats 0 and 1. Topics with message.format.version 0.9.0 (magic 0) and 0.10.0 (magic 1),
# produced by librdkafka (kcat) with each codec those formats allow, a compacted one cleaned by
# the 2.8 cleaner, a consumer group's commits; then a controlled shutdown. The log dir goes to
# ROOT/legacy-broker with a case.json, and its goldens are taken with Kafka 4.4's
# DumpLogSegments (goldens.sh), which kseg-dump follows.
# Usage: legacy-broker.sh [--out ROOT] [--seed N] [--no-goldens]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
broker_case_args "$@"
"$REPO_DIR/tests/deps.sh"
cp="$(legacy_classpath)"
tmp="$(mktemp -d)"
zk_pid="" broker_pid=""
cleanup() {
  [[ -n "$broker_pid" ]] && kill -9 "$broker_pid" 2>/dev/null || true
  [[ -n "$zk_pid" ]] && kill -9 "$zk_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
read -r bport zport < <(free_ports 2)
java_run=(java -Xmx512m -XX:+UseSerialGC -cp "$cp")

printf '%s\n' "dataDir=$tmp/zk" "clientPort=$zport" "clientPortAddress=127.0.0.1" admin.enableServer=false \
  > "$tmp/zk.properties"
"${java_run[@]}" org.apache.zookeeper.server.ZooKeeperServerMain "$tmp/zk.properties" > "$tmp/zk.out" 2>&1 &
zk_pid=$!
wait_port "$zport" "$zk_pid" "$tmp/zk.out"

data="$tmp/data"
printf '%s\n' broker.id=0 "zookeeper.connect=127.0.0.1:$zport" "listeners=PLAINTEXT://127.0.0.1:$bport" \
  "log.dirs=$data" num.partitions=1 offsets.topic.num.partitions=1 offsets.topic.replication.factor=1 \
  group.initial.rebalance.delay.ms=0 log.index.size.max.bytes=4096 log.cleaner.backoff.ms=500 \
  > "$tmp/server.properties"
"${java_run[@]}" kafka.Kafka "$tmp/server.properties" > "$tmp/broker.out" 2>&1 &
broker_pid=$!
wait_port "$bport" "$broker_pid" "$tmp/broker.out"

topic() {  # topic NAME CONFIG...
  local name="$1"; shift
  local args=(--bootstrap-server "127.0.0.1:$bport" --create --topic "$name" --partitions 1 --replication-factor 1)
  for c in "$@"; do args+=(--config "$c"); done
  "${java_run[@]}" kafka.admin.TopicCommand "${args[@]}" > /dev/null
}
produce() {  # produce TOPIC CODEC COUNT [KEYS]
  produced=$((${produced:-0} + 1))
  python3 - "$((seed * 1000 + produced))" "$1" "$3" "${4:-40}" <<'PY' | kcat -q -b "127.0.0.1:$bport" -P -t "$1" -z "$2" -K: -X linger.ms=20
import random, sys
seed, topic, count, keys = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed * 31 + sum(map(ord, topic)))
words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
for i in range(count):
    print(f"key-{rnd.randrange(keys)}:" + " ".join(rnd.choice(words) for _ in range(rnd.randrange(2, 20))))
PY
}
steps=()
for fmt in 0.9.0 0.10.0; do
  for codec in none gzip snappy lz4; do
    if [[ $fmt == 0.9.0 ]]; then t="v0-$codec"; else t="v1-$codec"; fi
    topic "$t" "message.format.version=$fmt"
    # Four produce runs: each is one append of many messages (uncompressed: one entry each),
    # and the index points every entry at an append's first message with its last offset.
    for round in 1 2 3 4; do produce "$t" "$codec" 100; done
  done
done
steps+=("topics v0-{none,gzip,snappy,lz4} (message.format.version 0.9.0) and v1-{none,gzip,snappy,lz4} (0.10.0), 4 x 100 records each from kcat (librdkafka) with that codec, linger.ms 20")
topic compacted-v1 message.format.version=0.10.0 cleanup.policy=compact segment.ms=1500 min.cleanable.dirty.ratio=0.01
for round in 1 2 3 4; do produce compacted-v1 none 200 20; sleep 1.7; done
produce compacted-v1 none 5 20
steps+=("topic compacted-v1 (0.10.0, compact, segment.ms 1500): 4 rounds of 200 records over 20 keys, 1.7 s apart, for the 2.8 cleaner")
timeout 60 kcat -q -b "127.0.0.1:$bport" -G legacy-readers v1-gzip -c 400 -o beginning -X enable.auto.commit=true \
  -X auto.commit.interval.ms=100 > /dev/null || true
steps+=("group legacy-readers (kcat -G) read v1-gzip, committing offsets")
for _ in $(seq 60); do
  grep -q '^compacted-v1 0 ' "$data/cleaner-offset-checkpoint" 2>/dev/null && break
  sleep 0.5
done
kill -TERM "$broker_pid"; wait "$broker_pid" || true; broker_pid=""
kill -TERM "$zk_pid"; wait "$zk_pid" || true; zk_pid=""
[[ -f "$data/.kafka_cleanshutdown" ]] || { echo "legacy-broker.sh: no clean shutdown" >&2; exit 1; }
grep -q '^compacted-v1 0 ' "$data/cleaner-offset-checkpoint" || { echo "legacy-broker.sh: the cleaner did not run" >&2; exit 1; }
steps+=("waited for the cleaner to checkpoint compacted-v1-0, then SIGTERM to the broker (controlled shutdown) and ZooKeeper")

out="$root/legacy-broker"
rm -rf "$out"; mkdir -p "$out"
cp -a "$data/." "$out/"
rm -f "$out/.lock"
parts="$(cd "$out" && for d in */; do echo "${d%/}"; done | jq -R . | jq -s 'map({dir: ., topic_config: {"index.interval.bytes": 4096, "segment.index.bytes": 4096}})')"
jq -n --argjson seed "$seed" --argjson parts "$parts" --arg jv "$(java -version 2>&1 | sed -n 's/.*version "\(.*\)".*/\1/p' | head -1)" \
   --arg props "$(grep -v '^log.dirs\|127.0.0.1' "$tmp/server.properties")" --arg kcat "$(kcat -V 2>&1 | head -1)" \
   --arg steps "$(printf '%s\n' "${steps[@]}")" \
   '{case: "legacy-broker", kafka_version: "2.8.2 (broker, with ZooKeeper 3.5.9)", java_version: $jv, seed: $seed,
     made_by: "tests/kafka/legacy-broker.sh: a Kafka 2.8.2 broker process with its ZooKeeper, loopback, driven by kcat",
     broker_properties: ($props | split("\n")), kcat: $kcat, steps: ($steps | rtrimstr("\n") | split("\n")),
     partitions: $parts}' > "$out/case.json"
echo "legacy-broker: $(find "$out" -type f | wc -l) files, $(du -sk "$out" | cut -f1) KiB in $out"
if [[ $goldens -eq 1 ]]; then "$KAFKA_DIR/goldens.sh" --root "$root" legacy-broker; fi
