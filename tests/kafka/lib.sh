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
