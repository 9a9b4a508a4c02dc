#!/usr/bin/env bash
# Makes the corpus case live-broker as operators' data is made: a real Kafka 4.4.0 broker
# process (KRaft, one node as broker and controller, loopback ports) driven by real clients
# (the Java clients of kseg.oracle.LiveTraffic, and librdkafka through kcat), its log cleaner
# running, then a controlled shutdown. The log dir is copied to CASE_DIR (default
# testdata/kafka/live-broker) with a case.json saying how it was made, and its goldens are
# taken with Kafka's DumpLogSegments (goldens.sh).
# Usage: live-broker.sh [--out ROOT] [--seed N] [--no-goldens]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root="$CORPUS_DIR" seed=1 goldens=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) root="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --no-goldens) goldens=0; shift ;;
    *) echo "live-broker.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
"$REPO_DIR/tests/deps.sh"
command -v kcat >/dev/null || { echo "live-broker.sh: kcat is missing (apt-get install kcat)" >&2; exit 1; }
cp="$(oracle_classpath)"
tmp="$(mktemp -d)"
broker_pid=""
cleanup() {
  [[ -n "$broker_pid" ]] && kill -9 "$broker_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Two free loopback ports.
read -r bport cport < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
data="$tmp/data"
cat > "$tmp/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$bport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$bport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data
num.partitions=1
offsets.topic.num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
log.index.size.max.bytes=4096
log.cleaner.backoff.ms=500
EOF
# Small preallocated indexes (log.index.size.max.bytes) keep the corpus small; every other
# setting is the broker's default.
broker_java=(java -Xmx512m -XX:+UseSerialGC -cp "$cp")
cluster_id="$("${broker_java[@]}" kafka.tools.StorageTool random-uuid)"
"${broker_java[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$tmp/server.properties" >/dev/null
"${broker_java[@]}" kafka.Kafka "$tmp/server.properties" > "$tmp/broker.out" 2>&1 &
broker_pid=$!
for _ in $(seq 120); do
  (exec 3<>"/dev/tcp/127.0.0.1/$bport") 2>/dev/null && break
  kill -0 "$broker_pid" 2>/dev/null || { cat "$tmp/broker.out" >&2; echo "live-broker.sh: the broker died" >&2; exit 1; }
  sleep 0.5
done

java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.LiveTraffic --bootstrap "127.0.0.1:$bport" --info "$tmp/traffic.json" --seed "$seed"

# librdkafka: its own batching and its own LZ4 and snappy framing.
for codec in snappy lz4 gzip zstd; do
  python3 - "$seed" "$codec" <<'PY' | kcat -q -b "127.0.0.1:$bport" -P -t "kcat-$codec" -z "$codec" -K: -X linger.ms=20
import random, sys
rnd = random.Random(int(sys.argv[1]) * 7 + len(sys.argv[2]))
words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
for i in range(300):
    print(f"key-{rnd.randrange(30)}:" + " ".join(rnd.choice(words) for _ in range(rnd.randrange(2, 20))))
PY
done

# Let the cleaner finish with accounts, then a controlled shutdown (.kafka_cleanshutdown).
for _ in $(seq 60); do
  grep -q '^accounts 0 ' "$data/cleaner-offset-checkpoint" 2>/dev/null && break
  sleep 0.5
done
kill -TERM "$broker_pid"
wait "$broker_pid" || true
broker_pid=""
[[ -f "$data/.kafka_cleanshutdown" ]] || { echo "live-broker.sh: no clean shutdown" >&2; exit 1; }
grep -q '^accounts 0 ' "$data/cleaner-offset-checkpoint" || { echo "live-broker.sh: the cleaner did not run" >&2; exit 1; }

out="$root/live-broker"
rm -rf "$out"
mkdir -p "$out"
cp -a "$data/." "$out/"
rm -f "$out/.lock"
# case.json: what LiveTraffic did, the broker's settings, and each partition's index settings
# (for the reindex oracle: the broker defaults but log.index.size.max.bytes).
parts="$(cd "$out" && for d in */; do echo "${d%/}"; done | jq -R . | jq -s 'map({dir: ., topic_config: {"index.interval.bytes": 4096, "segment.index.bytes": 4096}})')"
jq --argjson parts "$parts" --arg props "$(grep -v '^log.dirs\|127.0.0.1' "$tmp/server.properties")" \
   --arg kcat "$(kcat -V 2>&1 | head -1)" \
   '. + {broker_properties: ($props | split("\n")), kcat: $kcat,
         steps: (.steps + ["300 records each to kcat-{snappy,lz4,gzip,zstd} with kcat (librdkafka), linger.ms 20",
                           "waited for the log cleaner to checkpoint accounts-0, then SIGTERM (controlled shutdown)"]),
         partitions: $parts}' "$tmp/traffic.json" > "$out/case.json"
echo "live-broker: $(find "$out" -type f | wc -l) files, $(du -sk "$out" | cut -f1) KiB in $out"
if [[ $goldens -eq 1 ]]; then "$KAFKA_DIR/goldens.sh" --root "$root" live-broker; fi
