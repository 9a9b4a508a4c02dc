#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg-info against Kafka 4.4.0 (one JVM run): for every partition of every case in testdata/kafka,
# and a fresh partition of 340 producers with transactions left open (ManyProducers), Kafka's load
# of a copy (LoadCheckBatch) against `kseg-info --format json` of the same directory:
#   - the log end offset, of Kafka's clean load (no recovery: the log as it is on disk; where that
#     throws, at a zero tail, of its unclean load, whose recovery stops where kseg-info's reader does);
#   - the record count and the max record timestamp, when Kafka's log start offset is the first
#     segment's base (above it, a fetch does not return the records below the log start);
#   - the open transactions (producer id, first offset), of Kafka's unclean load, whose
#     ProducerStateManager replays the log as kseg-info does.
# A partition Kafka refuses to load is counted, not compared.
# Usage: info-oracle.sh KSEG_INFO     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kseg="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

seed="${KSEG_ORACLE_SEED:-$RANDOM}"
oracle_java kseg.oracle.ManyProducers "$tmp/extra" "$seed" > /dev/null
echo "many-producers seed $seed"
jobs="$tmp/jobs.tsv"; : > "$jobs"
list="$tmp/partitions.tsv"; : > "$list"
for case_dir in "$CORPUS_DIR"/*/ "$tmp/extra/many-producers/"; do
  case_dir="${case_dir%/}"; case_name="$(basename "$case_dir")"
  [[ -f "$case_dir/case.json" ]] || continue
  for name in $(jq -r '.partitions[].dir' "$case_dir/case.json"); do
    [[ -d "$case_dir/$name" ]] || continue
    out="$tmp/k/$case_name/$name"; mkdir -p "$out"
    # The topic's settings as the case was written (LoadCheck reads the log dir's checkpoints itself).
    config=()
    while IFS= read -r kv; do [[ -n "$kv" ]] && config+=(--config "$kv"); done < <(topic_config "$case_dir" "$name")
    (IFS=$'\t'; echo "$out/clean"$'\t'"$case_dir/$name${config[*]:+$'\t'${config[*]}}") >> "$jobs"
    (IFS=$'\t'; echo "$out/unclean"$'\t'"$case_dir/$name"$'\t'"--unclean${config[*]:+$'\t'${config[*]}}") >> "$jobs"
    rc=0
    "$kseg" --format json -q "$case_dir/$name" > "$out/kseg.json" 2> "$out/kseg.err" || rc=$?
    if ((rc == 0)); then ok; else bad "$case_name/$name: kseg-info exit $rc: $(head -c 600 "$out/kseg.err")"; fi
    printf '%s\t%s\n' "$case_name/$name" "$out" >> "$list"
  done
done
oracle_java kseg.oracle.LoadCheckBatch "$jobs"

python3 - "$list" <<'PY' > "$tmp/compare.txt"
import json, re, sys
passed = failed = refused = compared_records = open_txns = 0
def digest(path):
    d = {"records": 0, "max_ts": -1, "open": set(), "failed": None}
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("# load failed"):
            d["failed"] = line.strip()
        elif line.startswith("offset="):
            d["records"] += 1
            ts = int(re.match(r"offset=\S+ \S+?=(-?\d+)", line).group(1))
            if ts != -1: d["max_ts"] = max(d["max_ts"], ts)
        elif line.startswith("log_start_offset "):
            d["log_start"] = int(line.split()[1])
        elif line.startswith("log_end_offset "):
            d["log_end"] = int(line.split()[1])
        elif line.startswith("producer "):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            if f["current_txn_first_offset"] != "none":
                d["open"].add((int(f["pid"]), int(f["current_txn_first_offset"])))
    return d
for row in open(sys.argv[1]):
    name, out = row.rstrip("\n").split("\t")
    try:
        p = json.load(open(out + "/kseg.json"))["partitions"][0]
    except Exception as e:
        print(f"FAIL: {name}: no kseg-info JSON ({e})"); failed += 1; continue
    clean, unclean = digest(out + "/clean"), digest(out + "/unclean")
    def check(what, kafka, kseg):
        global passed, failed
        if kafka == kseg: passed += 1
        else:
            failed += 1; print(f"FAIL: {name}: {what}: Kafka {kafka}, kseg-info {kseg}")
    # A clean load reads the last segment as it is and throws at a zero size field (zero tails);
    # then the unclean load, whose recovery stops where kseg-info's scanner stops, is the reference.
    log = clean if not clean["failed"] else unclean
    if log["failed"]:
        refused += 1; print(f"refused: {name}: {log['failed'][:160]}")
    else:
        if log is unclean: print(f"note: {name}: clean load refused ({clean['failed'][:100]}); compared with the unclean load")
        check("log end offset", log["log_end"], p["log_end_offset"])
        first_base = p["segments"][0]["base_offset"] if p["segments"] else p["log_end_offset"]
        if log["log_start"] == first_base:
            compared_records += 1
            check("records", log["records"], p["records"])
            check("max record timestamp", log["max_ts"], p["max_timestamp"])
    if unclean["failed"]:
        refused += 1; print(f"refused: {name}: unclean load: {unclean['failed'][:160]}")
    else:
        kseg_open = {(t["producer_id"], t["first_offset"]) for t in p["open_transactions"]}
        open_txns += len(unclean["open"])
        if unclean["open"] == kseg_open: passed += 1
        else:
            failed += 1
            print(f"FAIL: {name}: open transactions (pid, first offset): only Kafka's {sorted(unclean['open'] - kseg_open)[:10]}, only kseg-info's {sorted(kseg_open - unclean['open'])[:10]}")
print(f"compared: log end offsets; records and max timestamp of {compared_records} partitions; {open_txns} open transactions in Kafka's state; {refused} loads Kafka refused")
print(f"RESULT {passed} {failed}")
PY
grep -v '^RESULT' "$tmp/compare.txt"
read -r _ p f < <(grep '^RESULT' "$tmp/compare.txt")
passed=$((passed + p)) failed=$((failed + f))
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
