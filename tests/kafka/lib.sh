# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts in tests/kafka/: paths, the build, and how to start Java.
# shellcheck shell=bash
KAFKA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$KAFKA_DIR/../.." && pwd)"
CORPUS_DIR="$REPO_DIR/testdata/kafka"
# Modest heap, serial GC and C1 only: these JVMs are short-lived and share two cores
# with a C++ build.
JAVA_FLAGS=(-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto)

# Prints the classpath of the Kafka 4.4 harness, building it first if needed.
oracle_classpath() {
    "$KAFKA_DIR/build.sh" >&2 || return 1
    echo "$KAFKA_DIR/target/classes:$(cat "$KAFKA_DIR/target/classpath.txt")"
}

# Runs a class of the harness: oracle_java CLASS ARGS...
oracle_java() {
    local cp
    cp="$(oracle_classpath)"
    java "${JAVA_FLAGS[@]}" -cp "$cp" "$@"
}

# Prints the classpath of Kafka 2.8.2 and its ZooKeeper (legacy/pom.xml), resolving it first.
legacy_classpath() {
    local dir="$KAFKA_DIR/legacy"
    if [[ ! -f "$dir/target/classpath.txt" || "$dir/pom.xml" -nt "$dir/target/classpath.txt" ]]; then
        mkdir -p "$dir/target"
        (cd "$dir" && mvn -q -B dependency:build-classpath -Dmdep.outputFile=target/classpath.txt) >&2 || return 1
    fi
    cat "$dir/target/classpath.txt"
}

# For the scripts that run broker processes (live-broker.sh, legacy-broker.sh).
# broker_case_args ARGS...: sets root (--out, default the corpus), seed (--seed), goldens
# (--no-goldens clears it); anything else is a usage error.
broker_case_args() {
    root="$CORPUS_DIR" seed=1 goldens=1
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --out) root="$2"; shift 2 ;;
            --seed) seed="$2"; shift 2 ;;
            --no-goldens) goldens=0; shift ;;
            *) echo "$(basename "$0"): unknown argument $1" >&2; exit 2 ;;
        esac
    done
}
# free_ports N: N free loopback ports on one line.
free_ports() {
    python3 -c 'import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}
# wait_port PORT PID LOG: waits until PORT accepts connections; fails, printing LOG, if PID exits
# or a minute passes.
wait_port() {
    for _ in $(seq 120); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || { cat "$3" >&2; echo "$(basename "$0"): process $2 died" >&2; exit 1; }
        sleep 0.5
    done
    echo "$(basename "$0"): nothing listens on port $1" >&2
    exit 1
}

# A KRaft broker process on loopback (one node, broker and controller), for live-broker.sh and
# truncate-broker.sh. The caller sets cp (oracle_classpath), tmp, and bport/cport (free_ports 2).
# props LOG_DIR [LINE...]: the broker's settings. Small preallocated indexes
# (log.index.size.max.bytes) keep the corpus small; every other setting is the default.
props() {
  local dir="$1"; shift
  printf '%s\n' process.roles=broker,controller node.id=1 "controller.quorum.voters=1@127.0.0.1:$cport" \
    "listeners=PLAINTEXT://127.0.0.1:$bport,CONTROLLER://127.0.0.1:$cport" \
    "advertised.listeners=PLAINTEXT://127.0.0.1:$bport" controller.listener.names=CONTROLLER \
    inter.broker.listener.name=PLAINTEXT listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT \
    "log.dirs=$dir" num.partitions=1 offsets.topic.num.partitions=1 offsets.topic.replication.factor=1 \
    transaction.state.log.num.partitions=1 transaction.state.log.replication.factor=1 \
    transaction.state.log.min.isr=1 group.initial.rebalance.delay.ms=0 log.index.size.max.bytes=4096 \
    log.cleaner.backoff.ms=500 log.retention.check.interval.ms=1000 "$@"
}
broker_pid=""
broker_jvm_flags=()  # more JVM flags for the broker (broker_logging)
broker_cp=""         # the broker's classpath, when not $cp (broker_logging)
# broker_logging: the broker logs through slf4j-simple (the harness's classpath binds slf4j-nop:
# silent), into $tmp/broker.out: warnings and errors, each log's load (kafka.log and the storage
# internals: "Completed load of Log(...)") and each partition led ("Log loaded for partition ...
# with initial high watermark N", kafka.cluster). Clients started with $cp stay silent.
broker_logging() {
  broker_cp="$KAFKA_DIR/target/broker-logging/slf4j-simple-1.7.36.jar:$(tr ':' '\n' <<< "$cp" | grep -v '/slf4j-nop-' | paste -sd:)"
  broker_jvm_flags=(-Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.log.kafka.log=info
                    -Dorg.slf4j.simpleLogger.log.org.apache.kafka.storage.internals.log=info
                    -Dorg.slf4j.simpleLogger.log.kafka.server=error -Dorg.slf4j.simpleLogger.log.kafka.cluster=info)
}
# start_broker PROPERTIES: formats its log dir if new, starts the broker, waits for its port.
start_broker() {
  local dir; dir="$(sed -n 's/^log.dirs=//p' "$1")"
  local java=(java -Xmx512m -XX:+UseSerialGC ${broker_jvm_flags[@]+"${broker_jvm_flags[@]}"} -cp "${broker_cp:-$cp}")
  if [[ ! -f "$dir/meta.properties" ]]; then
    "${java[@]}" kafka.tools.StorageTool format -c "$1" \
      -t "$("${java[@]}" kafka.tools.StorageTool random-uuid)" >/dev/null
  fi
  "${java[@]}" kafka.Kafka "$1" >> "$tmp/broker.out" 2>&1 &
  broker_pid=$!
  wait_port "$bport" "$broker_pid" "$tmp/broker.out"
}
# broker_on DIR [SETTING...]: the broker on log dir DIR with props' settings and these.
broker_on() {
  local dir="$1"; shift
  props "$dir" "$@" > "$tmp/server.properties"
  start_broker "$tmp/server.properties"
}
# stop_broker: a controlled shutdown (SIGTERM), as a service manager does it.
stop_broker() {
  kill -TERM "$broker_pid"
  wait "$broker_pid" || true
  broker_pid=""
}


# broker_scratch SCRIPT: what the tiers that start a broker need first: kcat, cp (the harness's
# classpath) and tmp, removed on exit after the broker is killed (kept, and named, when keep_tmp
# is set).
broker_scratch() {
  command -v kcat >/dev/null || { echo "$1: kcat is missing (apt-get install kcat)" >&2; exit 1; }
  cp="$(oracle_classpath)"
  tmp="$(mktemp -d)"
  trap broker_cleanup EXIT
}
keep_tmp="${KEEP_TMP:-}"
broker_cleanup() {
  [[ -n "$broker_pid" ]] && kill -9 "$broker_pid" 2>/dev/null || true
  if [[ -n "$keep_tmp" ]]; then echo "$(basename "$0"): kept $tmp" >&2; else rm -rf "$tmp"; fi
}
# live_broker_copy DIR: a copy of the live-broker corpus case's log dir, as the broker left it.
live_broker_copy() {
  mkdir -p "$1"
  cp -a "$CORPUS_DIR/live-broker/." "$1/"
  rm -rf "$1/dump" "$1/case.json"
}

# The tally every oracle script keeps: ok, bad "what", then "N passed, M failed".
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# topic_config CASE_DIR PARTITION_DIR_NAME > properties (from case.json, as the case was written)
topic_config() {
  jq -r --arg d "$2" '.partitions[] | select(.dir == $d) | .topic_config | to_entries[] | "\(.key)=\(.value)"' \
    "$1/case.json"
}
