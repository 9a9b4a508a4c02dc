#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the corpus cases written by a real Kafka 4.4.0 broker process (KRaft, one node as
# broker and controller, loopback ports), as operators' data is made:
#   live-broker        real clients (the Java clients of kseg.oracle.LiveTraffic, and librdkafka
#                      through kcat), the log cleaner running, then a controlled shutdown;
#   live-crash-before  a broker killed with SIGKILL under a fast producer, as the kill left it;
#   live-crash-after   the same log dir after the broker restarted on it (Kafka's own
#                      unclean-shutdown recovery) and shut down cleanly.
# Each is copied to ROOT/<case> with a case.json saying how it was made, and its goldens are
# taken with Kafka's DumpLogSegments (goldens.sh).
# Usage: live-broker.sh [--out ROOT] [--seed N] [--no-goldens]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
broker_case_args "$@"
"$REPO_DIR/tests/deps.sh"
command -v kcat >/dev/null || { echo "live-broker.sh: kcat is missing (apt-get install kcat)" >&2; exit 1; }
cp="$(oracle_classpath)"
tmp="$(mktemp -d)"
broker_pid="" flood_pid=""
cleanup() {
  [[ -n "$broker_pid" ]] && kill -9 "$broker_pid" 2>/dev/null || true
  [[ -n "$flood_pid" ]] && kill -9 "$flood_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Two free loopback ports.
read -r bport cport < <(free_ports 2)

# keep DIR CASE [PARTITION...]: copies the log dir (or its root files and the partitions
# named) to ROOT/CASE, without the .lock.
keep() {
  local dir="$1" out="$root/$2"; shift 2
  rm -rf "$out"
  mkdir -p "$out"
  if [[ $# -eq 0 ]]; then
    cp -a "$dir/." "$out/"
  else
    find "$dir" -maxdepth 1 -type f -exec cp -a {} "$out/" \;
    for p in "$@"; do cp -a "$dir/$p" "$out/"; done
  fi
  rm -f "$out/.lock"
}

# ---- live-broker: real clients, the live cleaner, a controlled shutdown ----
data="$tmp/data"
props "$data" > "$tmp/server.properties"
start_broker "$tmp/server.properties"
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
stop_broker
[[ -f "$data/.kafka_cleanshutdown" ]] || { echo "live-broker.sh: no clean shutdown" >&2; exit 1; }
grep -q '^accounts 0 ' "$data/cleaner-offset-checkpoint" || { echo "live-broker.sh: the cleaner did not run" >&2; exit 1; }
keep "$data" live-broker
out="$root/live-broker"
# case.json: what LiveTraffic did, the broker's settings, and each partition's index settings
# (for the reindex oracle: the broker defaults but log.index.size.max.bytes).
parts="$(cd "$out" && for d in */; do echo "${d%/}"; done | jq -R . | jq -s 'map({dir: ., topic_config: {"index.interval.bytes": (if . == "idempotent-0" then 1024 else 4096 end), "segment.index.bytes": 4096}})')"
jq --argjson parts "$parts" --arg props "$(grep -v '^log.dirs\|127.0.0.1' "$tmp/server.properties")" \
   --arg kcat "$(kcat -V 2>&1 | head -1)" \
   '. + {broker_properties: ($props | split("\n")), kcat: $kcat,
         steps: (.steps + ["300 records each to kcat-{snappy,lz4,gzip,zstd} with kcat (librdkafka), linger.ms 20",
                           "waited for the log cleaner to checkpoint accounts-0, then SIGTERM (controlled shutdown)"]),
         partitions: $parts}' "$tmp/traffic.json" > "$out/case.json"
echo "live-broker: $(find "$out" -type f | wc -l) files, $(du -sk "$out" | cut -f1) KiB in $out"

# ---- live-crash-before/-after: SIGKILL under a fast producer, then Kafka's recovery ----
crash="$tmp/crash"
props "$crash" log.segment.bytes=1048576 > "$tmp/crash.properties"
start_broker "$tmp/crash.properties"
java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.LiveTraffic --bootstrap "127.0.0.1:$bport" --flood flood --seed "$seed" \
  2> "$tmp/flood.err" &
flood_pid=$!
for _ in $(seq 480); do
  grep -q "flood: 8000 records sent" "$tmp/flood.err" 2>/dev/null && break
  kill -0 "$flood_pid" 2>/dev/null || { cat "$tmp/flood.err" >&2; echo "live-broker.sh: the flood producer died" >&2; exit 1; }
  sleep 0.25
done
kill -9 "$broker_pid"
wait "$broker_pid" 2>/dev/null || true
broker_pid=""
kill -9 "$flood_pid" 2>/dev/null || true
wait "$flood_pid" 2>/dev/null || true
flood_pid=""
[[ ! -f "$crash/.kafka_cleanshutdown" ]] || { echo "live-broker.sh: a clean-shutdown marker after SIGKILL" >&2; exit 1; }
keep "$crash" live-crash-before flood-0
start_broker "$tmp/crash.properties"
sleep 3  # the log manager loads (recovers) the partition as the broker starts
stop_broker
[[ -f "$crash/.kafka_cleanshutdown" ]] || { echo "live-broker.sh: no clean shutdown after the recovery" >&2; exit 1; }
keep "$crash" live-crash-after flood-0
for c in live-crash-before live-crash-after; do
  after=""; [[ $c == live-crash-after ]] && after=1
  jq -n --arg c "$c" --arg after "$after" --argjson seed "$seed" \
     --arg kv "$(jq -r .kafka_version "$out/case.json")" --arg jv "$(jq -r .java_version "$out/case.json")" \
     --arg props "$(grep -v '^log.dirs\|127.0.0.1' "$tmp/crash.properties")" \
     '{case: $c, kafka_version: $kv, java_version: $jv, seed: $seed,
       made_by: "tests/kafka/live-broker.sh: a Kafka broker process (KRaft, combined, loopback) killed with SIGKILL under kseg.oracle.LiveTraffic --flood (default idempotent producer, lz4, linger.ms 1)",
       broker_properties: ($props | split("\n")),
       steps: (["flooded topic flood until 8000 records were sent, then SIGKILL to the broker and the producer"]
               + (if $after == "1" then ["restarted the broker on the same log dir (unclean-shutdown recovery), then SIGTERM"] else [] end)
               + ["kept flood-0 and the root files"]),
       partitions: [{dir: "flood-0", topic_config: {"index.interval.bytes": 4096, "segment.index.bytes": 4096}}]}' \
     > "$root/$c/case.json"
  echo "$c: $(find "$root/$c" -type f | wc -l) files, $(du -sk "$root/$c" | cut -f1) KiB"
done
if [[ $goldens -eq 1 ]]; then "$KAFKA_DIR/goldens.sh" --root "$root" live-broker live-crash-before live-crash-after; fi
