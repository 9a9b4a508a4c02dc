#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Kafka judges kseg-doctor: a real Kafka 4.4.0 broker process writes a log dir (kcat produces
# topics d0..d6, 2,600 records of about 1 KiB each, three or four 1 MiB segments per
# partition; d6 with an idempotent producer) and is stopped cleanly. Copies of it are damaged by script, one damage per
# partition, kseg-doctor predicts (--format json) what Kafka's start-up will do with each, and
# the broker is started on the copy with its log on (slf4j-simple in place of slf4j-nop). For
# every partition (and -future copy) the judge compares, from the broker's own log: the segments
# Kafka recovered and why (an unclean shutdown, a missing .index), where it found invalid bytes,
# the segments it emptied on an offset out of order, those it deleted, the log end offset it
# loaded, a directory it renamed -stray, the leftovers it removed; and for the whole broker
# whether it started. Then Kafka in service, on more copies started with other broker settings
# (given to kseg-doctor too, --broker-config): whether its load rebuilt each partition's producer
# state (snapshots deleted), where its retention check moved each log start
# (log.retention.bytes), which partitions its cleaner picked (log.cleanup.policy compact, one
# partition's cleaner checkpoint at its active segment), the first offset a consumer is served
# fetching through a wrong .index entry (kcat), and whether a -future copy's move between log
# dirs finished. Then kseg-doctor --fix on a copy of every case: the broker on those it wrote
# to; those it did not write to must be left with no kseg step. Usage: doctor-broker.sh KSEG_DOCTOR
# Prints a table (partition, damage, Kafka did, doctor said) and "N passed, M failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
doctor="$(realpath "$1")"
dump="$(dirname "$doctor")/kseg-dump"
broker_scratch doctor-broker.sh
# DOCTOR_BROKER_KEEP=1: the copies and the broker's output stay, for a look at what Kafka did.
keep_tmp="${DOCTOR_BROKER_KEEP:-}"
broker_logging
cp="$broker_cp"  # every JVM here logs as the broker does
topics=(d0 d1 d2 d3 d4 d5 d6 d7)
settings=(log.segment.bytes=1048576 log.retention.ms=-1 log.retention.bytes=-1)

# ---- the log dir a real broker writes ----
base="$tmp/base"
read -r bport cport < <(free_ports 2)
props "$base" "${settings[@]}" > "$tmp/server.properties"
start_broker "$tmp/server.properties"
for t in "${topics[@]:0:7}"; do
  python3 -c 'import sys
for i in range(2600): print(f"k{i % 50}:" + ("%06d" % i) * 160)' |
    kcat -q -b "127.0.0.1:$bport" -P -t "$t" -K: -X linger.ms=5 -X batch.num.messages=16 \
      -X enable.idempotence="$([[ $t == d6 ]] && echo true || echo false)"
done
# d7: ten plain records, then one transaction of five (a Java producer: kcat writes none).
seq 10 | sed 's/^/p/' | kcat -q -b "127.0.0.1:$bport" -P -t d7 -p 0
java -cp "$cp" kseg.oracle.TxnOnce "127.0.0.1:$bport" d7 doctor-txn 5 > "$tmp/txnonce.out" 2>&1 ||
  { echo "doctor-broker.sh: TxnOnce failed:" >&2; tail -20 "$tmp/txnonce.out" >&2; exit 1; }
stop_broker
[[ -f "$base/.kafka_cleanshutdown" ]] || { echo "doctor-broker.sh: the broker did not shut down cleanly" >&2; exit 1; }
rm -f "$base/.lock"
: > "$tmp/broker.out"

# ---- damages ----
seg() { ls "$1"/*.log | sed -n "${2}p"; }  # seg DIR N: the Nth segment's .log
# flip FILE: one byte inside the record data of the batch in the middle of the segment (its CRC fails)
flip() {
  local pos; pos="$("$dump" --format jsonl "$1" | jq -r 'select(.type == "batch") | .position' |
                     awk '{ a[NR] = $1 } END { print a[int(NR / 2) + 1] + 70 }')"
  python3 -c 'import sys
p = int(sys.argv[2]); f = open(sys.argv[1], "r+b"); f.seek(p); b = f.read(1); f.seek(p); f.write(bytes([b[0] ^ 0xFF]))' "$1" "$pos"
}
set_recovery_point() {  # set_recovery_point LOGDIR TOPIC OFFSET|none
  set_checkpoint "$1/recovery-point-offset-checkpoint" "$2" "$3"
}
set_checkpoint() {  # set_checkpoint FILE TOPIC OFFSET|none: partition 0's line
  python3 - "$@" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")
entries = [l for l in lines[2:] if l and not l.startswith(sys.argv[2] + " 0 ")]
if sys.argv[3] != "none":
    entries.append(f"{sys.argv[2]} 0 {sys.argv[3]}")
open(path, "w").write("0\n%d\n%s\n" % (len(entries), "\n".join(entries)))
PY
}
# rebase LOG mid|last [TO]: the middle (or last) batch of the segment given the base offset TO
# (mid: the batch's before it, so its offsets no longer increase). A v2 batch's base offset is
# outside its CRC: the batch still reads as valid.
rebase() {
  local at; at="$("$dump" --format jsonl "$1" | jq -r 'select(.type == "batch") | "\(.position) \(.base_offset)"' |
                  awk -v w="$2" '{ p[NR] = $1; b[NR] = $2 } END { i = (w == "last") ? NR : int(NR / 2) + 1; print p[i], b[i - 1] }')"
  python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(struct.pack(">q", int(sys.argv[3])))' "$1" "${at% *}" "${3:-${at#* }}"
}
# index_point SEGMENT_LOG DELTA: the .index entry in the middle gets the position of the entry
# DELTA on (a later batch when DELTA > 0); prints the entry's offset, which a fetch then asks for.
index_point() {
  python3 -c 'import os, struct, sys
path = sys.argv[1][:-4] + ".index"; delta = int(sys.argv[2])
data = bytearray(open(path, "rb").read()); n = len(data) // 8; k = n // 2
rel, _ = struct.unpack_from(">ii", data, k * 8)
struct.pack_into(">i", data, k * 8 + 4, struct.unpack_from(">ii", data, (k + delta) * 8)[1])
open(path, "wb").write(data)
print(int(os.path.basename(sys.argv[1])[:20]) + rel)' "$1" "$2"
}
# txnindex SEGMENT_LOG VERSION LAST_OFFSET: writes the segment's .txnindex, one AbortedTxn entry.
txnindex() {
  python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack(">hqqqq", int(sys.argv[2]), 7, 0, int(sys.argv[3]), int(sys.argv[3]) + 1))' \
    "${1%.log}.txnindex" "$2" "$3"
}
declare -A damage extra linger
linger[service]=8 linger[cleaner]=8 linger[badcleaner]=2 linger[badcleaner-fix]=2  # seconds in service: the retention check, the cleaner's passes
make_clean() {
  local d="$tmp/clean"; cp -a "$base" "$d"
  # An aborted transaction's entry ending below the segment's base: TransactionIndex.sanityCheck.
  txnindex "$(seg "$d/d0-0" 2)" 0 1; damage[clean/d0]=".txnindex entry below its segment's base offset"
  flip "$(seg "$d/d1-0" 1)"; damage[clean/d1]="CRC error mid first (closed) segment"
  rm "$(seg "$d/d2-0" 2 | sed 's/\.log$/.index/')"; damage[clean/d2]="second segment's .index deleted"
  rm "$d/d3-0/partition.metadata"; damage[clean/d3]="partition.metadata deleted"
  cp "$(seg "$d/d4-0" 1)" "$d/d4-0/00000000000000000000.log.cleaned"
  cp "$(seg "$d/d4-0" 1 | sed 's/\.log$/.index/')" "$d/d4-0/00000000000000000000.index.deleted"
  damage[clean/d4]="leftover .log.cleaned and .index.deleted"
  flip "$(seg "$d/d5-0" 1)"; rm "$(seg "$d/d5-0" 1 | sed 's/\.log$/.index/')"
  damage[clean/d5]="CRC error mid first segment, its .index deleted"
  # An epoch entry past the log end (a leader that was truncated): LogLoader drops it.
  python3 - "$d/d6-0/leader-epoch-checkpoint" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
entries = [l for l in lines[2:] if l] + ["99 999999"]
open(sys.argv[1], "w").write("0\n%d\n%s\n" % (len(entries), "\n".join(entries)))
PY
  damage[clean/d6]="leader-epoch-checkpoint entry past the log end"
  cp "$(seg "$d/d7-0" 1)" "$(seg "$d/d7-0" 1).kseg-tmp"; echo note > "$d/d7-0/notes.txt"; echo note > "$d/notes.txt"
  damage[clean/d7]="a .log.kseg-tmp and a file of no known kind in the partition, another in the log dir"
  # A leader-epoch-checkpoint that does not read.
  d="$tmp/badepoch"; cp -a "$base" "$d"; printf '0\n1\ngarbage\n' > "$d/d0-0/leader-epoch-checkpoint"
  damage[badepoch/d0]="leader-epoch-checkpoint unreadable (a malformed line)"
}
make_unclean() {
  local d="$tmp/unclean"; cp -a "$base" "$d"; rm "$d/.kafka_cleanshutdown"
  damage[unclean/d0]="none (recovery point at the log end)"
  flip "$(seg "$d/d1-0" 2)"; set_recovery_point "$d" d1 0; damage[unclean/d1]="CRC error mid second segment, recovery point 0"
  local last; last="$(basename "$(ls "$d/d2-0"/*.log | tail -1)" .log)"
  flip "$(seg "$d/d2-0" 1)"; set_recovery_point "$d" d2 "$((10#$last))"
  damage[unclean/d2]="CRC error mid first segment, recovery point in the last"
  truncate -s -7 "$(ls "$d/d3-0"/*.log | tail -1)"; damage[unclean/d3]="torn tail (7 bytes cut) of the active segment"
  head -c 4096 /dev/zero >> "$(ls "$d/d4-0"/*.log | tail -1)"; damage[unclean/d4]="4 KiB of zeros after the active segment"
  set_recovery_point "$d" d5 none; flip "$(seg "$d/d5-0" 1)"; rm "$(seg "$d/d5-0" 1 | sed 's/\.log$/.index/')"
  damage[unclean/d5]="no recovery point line; CRC error mid first segment, its .index deleted"
}
make_refused() {
  local d="$tmp/refused"; cp -a "$base" "$d"; mkdir "$d/lost+found"
  damage[refused/*]="a lost+found directory in the log dir"
  d="$tmp/service"; cp -a "$base" "$d"
  rm "$d"/d5-0/*.snapshot "$d"/d6-0/*.snapshot
  rm "$(ls "$d"/d3-0/*.snapshot | tail -1)"
  damage[service/d3]="the newest producer snapshot deleted (an older one at a segment base left)"
  local s; s="$(ls "$d"/d2-0/*.snapshot | tail -1)"; mv "$s" "$d/d2-0/00000000000000999999.snapshot"
  damage[service/d2]="the newest producer snapshot renamed past the log end"
  damage[service/d5]="producer snapshots deleted (no idempotent producer)"
  damage[service/d6]="producer snapshots deleted (an idempotent producer)"
  # A partition deleted (-delete) and one set aside as a stray (-stray): their data are copies.
  cp -a "$base/d0-0" "$d/x8-0.00000000000000000000000000000001-delete"
  cp -a "$base/d1-0" "$d/x9-0.00000000000000000000000000000002-stray"
  damage[service/*]="a -delete and a -stray directory beside the partitions"
  # A partition of a topic the metadata log does not have (deleted while the broker was down).
  cp -a "$base/d1-0" "$d/d9-0"; printf 'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAg' > "$d/d9-0/partition.metadata"
  damage[service/d9]="a partition of a topic the metadata log does not have"
  # An interrupted swap of the first segment, the .log only: LogLoader deletes the segment's
  # files and renames the .swap; reading the swap's end made an empty .index.swap, renamed too,
  # so nothing is recovered.
  cp "$(seg "$d/d1-0" 1)" "$(seg "$d/d1-0" 1).swap"
  damage[service/d1]="first segment's .log.swap left (no index swapped)"
  extra[service]="log.retention.bytes=1500000 log.initial.task.delay.ms=500 log.segment.delete.delay.ms=1000"
  d="$tmp/cleaner"; cp -a "$base" "$d"
  local active; active="$(basename "$(ls "$d/d0-0"/*.log | tail -1)" .log)"
  printf '0\n1\nd0 0 %d\n' "$((10#$active))" > "$d/cleaner-offset-checkpoint"
  damage[cleaner/d0]="cleaner checkpoint at the active segment (nothing dirty)"
  local f; for f in "$d"/d2-0/00000000000000000000.{log,index,timeindex}; do cp "$f" "$f.swap"; done
  damage[cleaner/d2]="first segment's .log, .index and .timeindex .swap files left"
  printf 'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n' > "$d/d1-0/partition.metadata"
  damage[cleaner/d1]="partition.metadata naming another topic id"
  # The commit marker of d7's transaction cut (kseg truncate, which the truncate oracle checks
  # against Kafka's own truncateTo): the partition holds it open, its coordinator has ended it.
  d="$tmp/txn"; cp -a "$base" "$d"
  local end; end="$("$(dirname "$doctor")/kseg-info" --format json "$d/d7-0" | jq '.partitions[0].log_end_offset')"
  "$(dirname "$doctor")/kseg-truncate" --no-backup --to-offset "$((end - 1))" "$d/d7-0" > /dev/null
  rm -f "$d/.lock"
  damage[txn/d7]="the commit marker of its one transaction cut: the transaction hangs"
  extra[cleaner]="log.cleanup.policy=compact"
  d="$tmp/txnversion"; cp -a "$base" "$d"
  txnindex "$(seg "$d/d0-0" 1)" 1 5; damage[txnversion/*]="a .txnindex entry of version 1"
  # A second log dir of the same broker, formatted for another cluster.
  d="$tmp/twodirs"; cp -a "$base" "$d"; mkdir "$d-b"
  sed -E 's/^cluster.id=.*/cluster.id=AAAAAAAAAAAAAAAAAAAAAA/; s/^directory.id=.*/directory.id=BBBBBBBBBBBBBBBBBBBBBA/' \
    "$d/meta.properties" > "$d-b/meta.properties"
  damage[twodirs/*]="a second log dir whose meta.properties names another cluster.id"
  # Root checkpoints that do not read, after an unclean shutdown (what the broker recovers
  # depends on the recovery points it reads).
  d="$tmp/badrp"; cp -a "$base" "$d"; rm "$d/.kafka_cleanshutdown"; echo garbage > "$d/recovery-point-offset-checkpoint"
  damage[badrp/*]="recovery-point-offset-checkpoint unreadable, unclean shutdown"
  d="$tmp/badlso"; cp -a "$base" "$d"; printf '0\n1\nd0 0\n' > "$d/log-start-offset-checkpoint"
  damage[badlso/*]="log-start-offset-checkpoint unreadable (a short line)"
  d="$tmp/badhw"; cp -a "$base" "$d"; echo garbage > "$d/replication-offset-checkpoint"
  damage[badhw/*]="replication-offset-checkpoint unreadable"
  # A number that does not parse is no IOException: the failure handler does not see it.
  d="$tmp/badcleaner"; cp -a "$base" "$d"; printf '0\n1\nd0 x 5\n' > "$d/cleaner-offset-checkpoint"
  damage[badcleaner/*]="cleaner-offset-checkpoint with a partition that is no number"
  d="$tmp/badrp2"; cp -a "$base" "$d"; rm "$d/.kafka_cleanshutdown"; printf '0\n1\nd0 x 5\n' > "$d/recovery-point-offset-checkpoint"
  damage[badrp2/*]="recovery-point-offset-checkpoint with a partition that is no number, unclean shutdown"
  d="$tmp/badlso2"; cp -a "$base" "$d"; printf '0\n1\nd0 0 x\n' > "$d/log-start-offset-checkpoint"
  damage[badlso2/*]="log-start-offset-checkpoint with an offset that is no number"
  d="$tmp/badhw2"; cp -a "$base" "$d"; printf '0\n1\nd0 x 5\n' > "$d/replication-offset-checkpoint"
  damage[badhw2/*]="replication-offset-checkpoint with a partition that is no number"
  # No root checkpoint at all, after an unclean shutdown: every partition recovered from 0.
  d="$tmp/nocheckpoints"; cp -a "$base" "$d"; rm "$d/.kafka_cleanshutdown"
  rm "$d"/{recovery-point,log-start,replication}-offset-checkpoint "$d/cleaner-offset-checkpoint"
  damage[nocheckpoints/*]="the four root checkpoints deleted, unclean shutdown"
  # A second log dir of the same broker, formatted for another node.
  d="$tmp/twonodes"; cp -a "$base" "$d"; mkdir "$d-b"
  sed -E 's/^node.id=.*/node.id=7/; s/^directory.id=.*/directory.id=BBBBBBBBBBBBBBBBBBBBBA/' \
    "$d/meta.properties" > "$d-b/meta.properties"
  damage[twonodes/*]="a second log dir whose meta.properties names another node.id"
  # Checkpoint lines past the log end, after an unclean shutdown.
  d="$tmp/outside"; cp -a "$base" "$d"; rm "$d/.kafka_cleanshutdown"
  set_checkpoint "$d/replication-offset-checkpoint" d0 999999; damage[outside/d0]="high watermark line past the log end"
  set_checkpoint "$d/recovery-point-offset-checkpoint" d1 999999; damage[outside/d1]="recovery point line past the log end"
  set_checkpoint "$d/log-start-offset-checkpoint" d3 5000; damage[outside/d3]="log start line past the log end"
  # Offsets out of order, after the same unclean shutdown: every batch of these segments is
  # indexed (16 KiB batches, index.interval.bytes 4096), so the recovery's index append sees the order.
  rebase "$(seg "$d/d2-0" 1)" mid; set_recovery_point "$d" d2 0
  damage[outside/d2]="a batch mid first segment given the offsets of the one before it, recovery point 0"
  rebase "$(seg "$d/d4-0" 1)" mid
  damage[outside/d4]="a batch mid first segment given the offsets of the one before it, recovery point in the last"
  local second; second="$(basename "$(seg "$d/d5-0" 2)" .log)"
  rebase "$(seg "$d/d5-0" 1)" last "$((10#$second))"; set_recovery_point "$d" d5 0
  damage[outside/d5]="the first segment's last batch reaching into the second's offsets, recovery point 0"
  # (txn, a clean shutdown:) offset index entries pointing at the wrong batch in a closed segment
  # (Kafka trusts the index): a consumer then fetches from each entry's offset.
  d="$tmp/txn"
  echo "d0 $(index_point "$(seg "$d/d0-0" 1)" 3)" > "$tmp/txn.from"
  damage[txn/d0]="a .index entry mid first segment pointing 3 batches on"
  echo "d1 $(index_point "$(seg "$d/d1-0" 1)" -3)" >> "$tmp/txn.from"
  damage[txn/d1]="a .index entry mid first segment pointing 3 batches back"
  # The first segment's .timeindex deleted: a consumer then asks for the offset of a timestamp in
  # it (ListOffsets). The offset Kafka's rule gives with the index: the first record (in offset
  # order) whose timestamp is at least it, from kseg-dump of the segment.
  local s1; s1="$(seg "$d/d3-0" 1)"
  "$dump" --format jsonl --deep-iteration "$s1" | jq -r 'select(.type == "record") | "\(.offset) \(.timestamp)"' |
    awk '{ o[NR] = $1; t[NR] = $2 } END { m = int(NR / 2); ts = t[m]; for (i = 1; i <= NR; i++) if (t[i] >= ts) { print "d3", ts, o[i]; exit } }' \
    > "$tmp/txn.time"
  rm "${s1%.log}.timeindex"
  damage[txn/d3]="first segment's .timeindex deleted"
  # A replica moving between two log dirs when the broker stopped: d2's copy in a second log dir (-future).
  mkdir "$d-b"
  sed -E 's/^directory.id=.*/directory.id=BBBBBBBBBBBBBBBBBBBBBA/' "$d/meta.properties" > "$d-b/meta.properties"
  cp -a "$d/d2-0" "$d-b/d2-0.0123456789abcdef0123456789abcdef-future"
  damage[txn/d2]="a -future copy in a second log dir (a move between log dirs not finished)"
}

# ---- Kafka's start-up, observed ----
# observe NAME: starts the broker on the copy, waits until every partition is loaded (or the
# broker dies), stops it; leaves the broker's output in $tmp/NAME.out and whether it started.
observe() {
  local d="$tmp/$1"
  read -r bport cport < <(free_ports 2)
  local dirs="$d"
  [[ -d "$d-b" ]] && dirs="$d,$d-b"
  props "$dirs" "${settings[@]}" ${extra[$1]:-} > "$tmp/$1.properties"
  : > "$tmp/broker.out"
  java -Xmx512m -XX:+UseSerialGC "${broker_jvm_flags[@]}" -cp "$cp" kafka.Kafka "$tmp/$1.properties" > "$tmp/broker.out" 2>&1 &
  broker_pid=$!
  local started=0
  for _ in $(seq 600); do
    if ! kill -0 "$broker_pid" 2>/dev/null; then break; fi
    if [[ "$(grep -c 'Completed load of Log' "$tmp/broker.out" || true)" -ge ${#topics[@]} ]] &&
       (exec 3<>"/dev/tcp/127.0.0.1/$bport") 2>/dev/null; then started=1; break; fi
    sleep 0.2
  done
  if [[ $started -eq 1 ]]; then
    if [[ $1 == txn || $1 == txn-fix ]]; then  # the first offset a consumer fetching from each damaged entry's offset gets
      while read -r t o; do
        echo "$t $o $(timeout 30 kcat -C -b "127.0.0.1:$bport" -t "$t" -p 0 -o "$o" -c 1 -e -q -f '%o\n' 2>/dev/null || true)"
      done < "$tmp/txn.from" > "$tmp/$1.served"
      read -r t ts _ < "$tmp/txn.time"
      echo "$t $(timeout 30 kcat -C -b "127.0.0.1:$bport" -t "$t" -p 0 -o "s@$ts" -c 1 -e -q -f '%o\n' 2>/dev/null || true)" \
        > "$tmp/$1.timed"
    fi
    if [[ $1 == txn ]]; then  # what consumers read of d7: to the last stable offset, and to the end
      for iso in read_committed read_uncommitted; do
        timeout 30 kcat -C -b "127.0.0.1:$bport" -t d7 -p 0 -o beginning -e -q -X isolation.level=$iso -f '%o\n' \
          > "$tmp/txn.$iso" 2>/dev/null || true
      done
    fi
    if [[ $1 == txn ]]; then  # until the -future copy's move has finished (at most 8 s)
      for _ in $(seq 16); do [[ -d "$d-b/d2-0" ]] && break; sleep 0.5; done
    fi
    # Until the first metadata image is applied (strays renamed, then each topic's partition made
    # leader: "initial high watermark"), at most 5 s; then the case's time in service.
    for _ in $(seq 50); do
      [[ "$(grep -c 'Log loaded for partition d[0-9]-0 with initial high watermark' "$tmp/broker.out" || true)" -ge ${#topics[@]} ]] && break
      sleep 0.1
    done
    sleep "${linger[$1]:-0}"
    stop_broker
  else
    kill -9 "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; broker_pid=""
  fi
  cp "$tmp/broker.out" "$tmp/$1.out"
  ls "$d" > "$tmp/$1.after"
  [[ -d "$d-b" ]] && ls "$d-b" | sed 's|^|b/|' >> "$tmp/$1.after"
  for t in "${topics[@]}"; do ls "$d/$t-0" 2>/dev/null | sed "s|^|$t-0/|" >> "$tmp/$1.after" || true; done
  echo "$started" > "$tmp/$1.started"
}

make_clean; make_unclean; make_refused
cases=(clean unclean refused txnversion twodirs twonodes badrp badlso badhw badcleaner badrp2 badlso2 badhw2 nocheckpoints outside
       service cleaner txn badepoch)
# DOCTOR_BROKER_CASES="a b": only those (and the --fix copies), when looking into one.
[[ -n "${DOCTOR_BROKER_CASES:-}" ]] && read -ra cases <<< "$DOCTOR_BROKER_CASES"
# kseg-doctor --fix on a second copy of every damaged log dir (its log dirs, the broker's settings):
# its report (--format json) is the diagnosis after the fix. Where it wrote something the broker
# is started on the copy too (judged below); where it wrote nothing (all that is left is for a
# person) the copy is byte for byte the damaged one Kafka was judged on.
fixed=()
for c in "${cases[@]}"; do
  props "$tmp/$c" "${settings[@]}" ${extra[$c]:-} > "$tmp/$c.settings"
  fdirs=("$tmp/$c-fix"); cp -a "$tmp/$c" "$tmp/$c-fix"
  if [[ -d "$tmp/$c-b" ]]; then cp -a "$tmp/$c-b" "$tmp/$c-fix-b"; fdirs+=("$tmp/$c-fix-b"); fi
  touch "$tmp/$c-fix/.lock"  # a stopped broker leaves it
  # (every path too: a directory moved, such as an empty lost+found, holds no file)
  sums() { (cd "$tmp" && find "${fdirs[@]#"$tmp/"}" ! -name .lock | sort &&
            find "${fdirs[@]#"$tmp/"}" -type f ! -name .lock -print0 | sort -z | xargs -0 md5sum); }
  before="$(sums)"
  "$doctor" --fix --yes --no-backup --format json --broker-config "$tmp/$c.settings" "${fdirs[@]}" \
    > "$tmp/$c-fix.json" 2> "$tmp/$c-fix.steps" || true
  if [[ "$(sums)" == "$before" ]]; then echo "$c" >> "$tmp/unchanged"; rm -rf "${fdirs[@]}"; else fixed+=("$c"); fi
done
for c in "${cases[@]}" "${fixed[@]/%/-fix}"; do
  dirs=("$tmp/$c"); [[ -d "$tmp/$c-b" ]] && dirs+=("$tmp/$c-b")
  [[ $c == *-fix ]] || "$doctor" --format json --broker-config "$tmp/$c.settings" "${dirs[@]}" > "$tmp/$c.json" || true
  extra[$c]="${extra[${c%-fix}]:-}"  # a fixed copy starts with its case's settings (judged at start-up: no linger)
  observe "$c"
done

for k in "${!damage[@]}"; do printf '%s\t%s\n' "$k" "${damage[$k]}"; done > "$tmp/damages.tsv"
python3 - "$tmp" "${cases[*]}" "${fixed[*]}" <<'PY'
import json, os, re, sys
tmp = sys.argv[1]
damages = dict(l.rstrip("\n").split("\t", 1) for l in open(f"{tmp}/damages.tsv"))
passed = failed = 0
rows = []
reasons = []  # (case, Kafka's exception, doctor's why) where the broker did not start

def judge(case, part, what, kafka, doctor):
    global passed, failed
    ok = kafka == doctor
    passed += ok
    failed += not ok
    rows.append((f"{case}/{part}", what, str(kafka), str(doctor), "ok" if ok else "FAIL"))

def fetched(case):  # txn, txn-fix: topic -> (offset asked, first offset served)
    out = {}
    if os.path.exists(f"{tmp}/{case}.served"):
        for line in open(f"{tmp}/{case}.served"):
            t, o, *first = line.split()
            out[t] = (int(o), int(first[0]) if first else None)
    return out
served = fetched("txn")

for case in sys.argv[2].split():
    log = open(f"{tmp}/{case}.out", errors="replace").read()
    after = set(open(f"{tmp}/{case}.after").read().split())
    started = open(f"{tmp}/{case}.started").read().strip() == "1"
    doc = json.load(open(f"{tmp}/{case}.json"))
    judge(case, "*", "broker starts", started, doc["summary"]["broker_starts"])
    if started:
        judge(case, "*", "the log cleaner's thread dies", bool(re.search(r"CleanerThread.*Error due to", log)),
              any(p.get("kafka_effect") == "cleaner_stops" for lt in doc["targets"] if lt["type"] == "log_dir" for p in lt["problems"]))
        judge(case, "*", "partitions fail to become leader (NumberFormatException)",
              bool(re.search(r"due to NumberFormatException", log)),
              any(p.get("kafka_effect") == "partitions_unserved" for lt in doc["targets"] if lt["type"] == "log_dir" for p in lt["problems"]))
    if not started:
        why = re.search(r"^\S*(?:Exception|Error)\b.*$", log, re.M)
        reasons.append((case, why.group(0)[:160] if why else "?", "; ".join(doc["summary"]["fails"])[:160]))
        continue
    for t in doc["targets"]:
        if t["type"] == "log_dir" and case == "service":
            # What Kafka does with the -delete and -stray directories, some seconds in service.
            kinds = {e["name"]: e["kind"] for e in t["inventory"]}
            # (not the -stray directories Kafka makes of partitions doctor said go stray: judged with them)
            went_stray = [u["dir"].rsplit("/", 1)[1] for u in doc["targets"] if u["type"] == "partition" and u["stray"]]
            for name in sorted(n for n in after if (n.endswith("-delete") or n.endswith("-stray")) and
                               not any(n.startswith(g + ".") and n not in kinds for g in went_stray)) + \
                        sorted(n for n, k in kinds.items() if k in ("deleting", "stray") and n not in after):
                # doctor: a deleting directory goes, a stray one stays (an entry it did not list: None)
                said = {"deleting": False, "stray": True}.get(kinds.get(name))
                judge(case, name, "a -delete or -stray directory: still there after 8 s in service", name in after, said)
        if t["type"] == "log_dir" and case == "txn" and t["log_dir"].endswith("-b"):
            # A -future copy: Kafka loads it and resumes the move (its alter-log-dirs fetcher catches
            # up, then the copy replaces the current log), some seconds in service.
            future = [e["name"] for e in t["inventory"] if e["kind"] == "future"]
            judge(case, "b/d2-0", "a -future copy: the move between log dirs finished in service (doctor: resumes it)",
                  "b/d2-0" in after and not any(n.startswith("b/") and n.endswith("-future") for n in after), bool(future))
        if t["type"] != "partition":
            continue
        if t["dir"].endswith("/__cluster_metadata-0"):
            # The raft layer opens it as unclean from offset 0 at every start (KafkaMetadataLog).
            tag = r"\[LogLoader partition=__cluster_metadata-0, dir=[^\]]*\]"
            judge(case, "__cluster_metadata-0", "the metadata log: segments recovered",
                  sorted(int(b) for b in re.findall(tag + r" Recovering unflushed segment (\d+)\.", log)),
                  sorted(g["base_offset"] for g in (t["startup"] or {"segments": []})["segments"] if g["unclean_pass"]))
            continue
        # A partition, or a -future copy of one (its log lines name the partition and its log dir).
        m = re.search(r"/((d\d)-0)(?:\.\w+-future)?$", t["dir"])
        if not m:
            continue
        part = t["dir"].rsplit("/", 1)[1]
        topic = m.group(2)
        damage = damages.get(f"{case}/{topic}", "none")
        tag = f"\\[LogLoader partition={re.escape(m.group(1))}, dir={re.escape(t['dir'].rsplit('/', 1)[0])}\\]"
        unclean = sorted(int(b) for b in re.findall(tag + r" Recovering unflushed segment (\d+)\.", log))
        corrupt_index = sorted(int(b) for b in re.findall(tag + r" Found a corrupted index file corresponding to log file \S*/" + re.escape(part) + r"/0*(\d+)\.log", log))
        no_index = sorted(int(b) for b in re.findall(tag + r" Could not find offset index file corresponding to log file \S*/" + re.escape(part) + r"/0*(\d+)\.log", log))
        invalid = sorted((int(b), int(p)) for b, p in re.findall(r"Found invalid messages in log segment \S*/" + re.escape(part) + r"/0*(\d+)\.log at byte offset (\d+)", log))
        deleted = sorted(int(b) for line in re.findall(tag + r" Deleting segments as part of log recovery: (.*)", log)
                         for b in re.findall(r"baseOffset=(\d+)", line))
        stray = any(re.fullmatch(re.escape(part) + r"\.\w+-stray", n) for n in after)
        loaded = re.findall(r"Completed load of Log\(dir=\S*/" + re.escape(part) + r"(?:\.\w+-stray)?, .*?logEndOffset=(\d+)\)", log)
        s = t["startup"] or {"segments": [], "log_end_after": None}
        segs = s["segments"]
        judge(case, part, f"{damage}: segments recovered, unclean shutdown", unclean,
              sorted(g["base_offset"] for g in segs if g["unclean_pass"]))
        # LogLoader logs a missing .index only after a clean shutdown or below the recovery point
        # (above it, the unclean pass would recover the segment anyway); it recovers it at load either way.
        rp = s.get("recovery_point") or 0
        judge(case, part, f"{damage}: segments recovered, no .index (logged)", no_index,
              sorted(g["base_offset"] for g in segs if g["why"] == "no .index" and (s["clean_shutdown"] or g["base_offset"] < rp)))
        # Kafka logs the invalid bytes its scan throws on (a CRC, a size below the minimum, zeros);
        # a torn entry at the end (its size runs past the file) ends the scan without a line.
        said_invalid = sorted((g["base_offset"], g["truncated_at"]) for g in segs
                              if g["truncated_bytes"] and g["stop"] not in ("partial_tail", "short_tail", "invalid_offset"))
        judge(case, part, f"{damage}: segments recovered, .txnindex sanity check", corrupt_index,
              sorted(g["base_offset"] for g in segs if g["why"] == ".txnindex fails the sanity check"))
        judge(case, part, f"{damage}: invalid bytes found at (segment, byte)", invalid, said_invalid)
        # LogLoader.recoverLog: an InvalidOffsetException (an offset that does not increase where an
        # index entry is appended) empties the segment, named by its base offset.
        emptied = sorted(int(b) for b in re.findall(tag + r" Found invalid offset during recovery\. Deleting the corrupt segment and creating an empty one with starting offset (\d+)", log))
        judge(case, part, f"{damage}: segments emptied (invalid offset)", emptied,
              sorted(g["base_offset"] for g in segs if g["stop"] == "invalid_offset"))
        judge(case, part, f"{damage}: segments deleted", deleted, sorted(g["base_offset"] for g in segs if g["deleted"]))
        judge(case, part, f"{damage}: log end offset loaded", int(loaded[-1]) if loaded else None, s["log_end_after"])
        judge(case, part, f"{damage}: renamed -stray", stray, t["stray"])
        if case == "txn" and topic in served:
            # A fetch from the damaged entry's offset: served from the batch the entry points at (doctor's
            # "fetch" of the finding, when it predicts a skip), else from that offset itself.
            frm, first = served[topic]
            skips = [p["fetch"] for p in t["findings"] if p.get("fetch") and p["fetch"]["from"] == frm]
            judge(case, part, f"{damage}: the first offset a fetch from {frm} serves", first,
                  skips[0]["served_from"] if skips else frm)
        if case == "txn" and topic == "d3":
            # A segment without .timeindex: Kafka makes an empty one, takes the .log's mtime as its largest
            # timestamp and scans it from its start, so a time lookup still finds the offset (doctor's text).
            t_, ts, want = open(f"{tmp}/txn.time").read().split()
            got = open(f"{tmp}/txn.timed").read().split()[1:]
            idx = [f for f in t["findings"] if f["code"] == "timeindex.missing"]
            judge(case, part, f"{damage}: the offset a time lookup ({ts}) finds, against the one with the index",
                  int(got[0]) if got else None, int(want))
            judge(case, part, f"{damage}: doctor says a time lookup still finds it", True,
                  bool(idx) and "still finds" in idx[0]["kafka"])
        # The files of no name Kafka knows planted in clean/d7: left where they are (doctor: ignored).
        if case == "clean" and topic == "d7":
            planted = ["d7-0/00000000000000000000.log.kseg-tmp", "d7-0/notes.txt"]
            judge(case, part, f"{damage}: files of no known name Kafka left in place (doctor: it ignores them)",
                  [l for l in planted if l in after],
                  [l for l in planted if any(f["kafka"].startswith("ignores it") for f in t["findings"]
                                              if f["file"].endswith("/" + l))])
        if case == "service":
            # UnifiedLog.rebuildProducerState: after a clean shutdown with no snapshot it rebuilds nothing.
            rebuilt = bool(re.search(tag + r" Reloading from producer snapshot and rebuilding producer state", log))
            missing = [f for f in t["findings"] if f["code"] == "snapshot.missing"]
            judge(case, part, f"{damage}: producer state rebuilt at load", rebuilt, not missing)
            judge(case, part, f"{damage}: producers forgotten (doctor: a warning)", not rebuilt and topic == "d6",
                  any(f["severity"] == "warning" for f in missing))
            # The retention check: the first segment left (the .log files, not the .deleted ones).
            first = min((int(n.split("/")[1][:-4]) for n in after if n.startswith(part + "/") and n.endswith(".log")), default=None)
            due = [f for f in t["findings"] if f["code"] == "retention.due"]
            said = int(re.match(r"offsets \d+\.\.(\d+) ", due[0]["message"]).group(1)) + 1 if due else t["log_start"]
            if t["stray"]:
                said = None  # renamed -stray at the first metadata image: no retention, no segment left here
            judge(case, part, f"{damage}: log start after the retention check", first, said)
        if case == "cleaner":
            picked = bool(re.search(r"Beginning cleaning of log " + re.escape(part) + r"\b", log))
            judge(case, part, f"{damage}: the cleaner picks it", picked,
                  any(f["code"] == "cleaner.dirty" for f in t["findings"]))
        if case == "outside" and topic == "d0":
            hw = re.findall(r"Log loaded for partition " + re.escape(part) + r" with initial high watermark (\d+)", log)
            handles = [p["kafka_handles"] for lt in doc["targets"] if lt["type"] == "log_dir" for p in lt["problems"]
                       if p["code"] == "checkpoint.past_log_end" and p["file"].endswith("/replication-offset-checkpoint")]
            judge(case, part, f"{damage}: high watermark at load (doctor: Kafka takes the log end)",
                  int(hw[-1]) if hw else None, s["log_end_after"] if handles == [True] else 999999)
        if case == "txn" and topic == "d7":
            committed = [int(o) for o in open(f"{tmp}/txn.read_committed").read().split()]
            everything = [int(o) for o in open(f"{tmp}/txn.read_uncommitted").read().split()]
            hanging = [f for f in t["findings"] if f["code"] == "txn.hanging"]
            first = int(re.search(r"open from offset (\d+)", hanging[0]["message"]).group(1)) if hanging else None
            judge(case, part, f"{damage}: read_committed stops short of read_uncommitted (doctor: txn.hanging)",
                  len(committed) < len(everything), bool(hanging))
            judge(case, part, f"{damage}: offsets read_committed consumers read (doctor: all below the open transaction's first)",
                  committed, [o for o in everything if first is None or o < first])
        if case == "clean" and topic == "d6":
            epochs = open(f"{tmp}/{case}/{part}/leader-epoch-checkpoint").read().split("\n")[2:]
            found_ = [f for f in t["findings"] if f["code"] == "epoch.past_log_end"]
            judge(case, part, f"{damage}: Kafka drops the entry past the log end (doctor: found, handled by Kafka)",
                  not [l for l in epochs if l and int(l.split()[1]) > 2600],
                  bool(found_) and all(f["kafka_handles"] for f in found_))
        leftovers = sorted(f["file"].rsplit("/", 2)[-2] + "/" + f["file"].rsplit("/", 1)[1] for f in t["findings"]
                           if f["code"] in ("dir.leftover_cleaned", "dir.leftover_deleted", "dir.leftover_swap"))
        judge(case, part, f"{damage}: leftovers Kafka removed (doctor: handled by Kafka)",
              [l for l in leftovers if l not in after],
              [l for l in leftovers if any(f["kafka_handles"] for f in t["findings"] if f["file"].endswith(l))])

# After kseg-doctor --fix: the broker starts, its recovery cuts nothing, deletes nothing, finds no
# index missing or corrupt and renames nothing -stray; after a clean shutdown it recovers no
# partition at all; each partition loads the log end the diagnosis after the fix promised.
for case in [c + "-fix" for c in sys.argv[3].split()]:
    log = open(f"{tmp}/{case}.out", errors="replace").read()
    after = set(open(f"{tmp}/{case}.after").read().split())
    started = open(f"{tmp}/{case}.started").read().strip() == "1"
    doc = json.load(open(f"{tmp}/{case}.json"))
    steps = open(f"{tmp}/{case}.steps").read()
    judge(case, "*", "after --fix: the broker starts; doctor's plan left", (started, []),
          (doc["summary"]["broker_starts"], [p["command"] for p in doc["plan"] if not p["by_hand"]]))
    judge(case, "*", f"after --fix ({steps.count('applying ')} steps): invalid bytes, missing or corrupt indexes",
          [l for l in log.splitlines() if re.search(r"Found invalid messages|"
                                                     r"Could not find offset index|Found a corrupted index", l)], [])
    # A stray is left to a person (a topic id only they can choose): as the diagnosis after the fix says.
    judge(case, "*", "after --fix: partitions Kafka marks stray",
          sorted(set(re.findall(r"Log in \S*/(d\d-0) marked stray", log))),
          sorted(t["dir"].rsplit("/", 1)[1] for t in doc["targets"] if t["type"] == "partition" and t["stray"]))
    # Deletions only where the diagnosis after the fix still says so (a log start line past the log
    # end is left to a person).
    judge(case, "*", "after --fix: partitions whose segments Kafka deletes",
          sorted(set(re.findall(r"\[LogLoader partition=(d\d-0), dir=[^\]]*\] Deleting segments as part of log recovery", log))),
          sorted(t["dir"].rsplit("/", 1)[1] for t in doc["targets"] if t["type"] == "partition" and
                 re.search(r"/d\d-0$", t["dir"]) and t["startup"] and any(g["deleted"] for g in t["startup"]["segments"])))
    # After an unclean shutdown --fix recovers each partition itself, moves its recovery point to
    # its log end and, every partition done, writes the clean-shutdown marker: the same check.
    # (one it could not fix, as its diagnosis after the fix says, is recovered by Kafka).
    judge(case, "*", "after --fix: partitions Kafka recovers (a -future copy by its partition's name)",
          sorted(set(re.findall(r"\[LogLoader partition=(d\d-0), dir=[^\]]*\] Recovering unflushed segment", log))),
          sorted(set(m.group(1) for t in doc["targets"] if t["type"] == "partition" and t["startup"] and
                     t["startup"]["segments_recovered"] for m in [re.search(r"/(d\d-0)(?:\.\w+-future)?$", t["dir"])] if m)))
    for topic, (frm, first) in fetched(case).items():
        judge(case, f"{topic}-0", f"after --fix: the first offset a fetch from {frm} serves", first, frm)
    if started:  # a root checkpoint --fix set aside: Kafka reads none, its threads run
        judge(case, "*", "after --fix: the log cleaner's thread dies", bool(re.search(r"CleanerThread.*Error due to", log)),
              any(p.get("kafka_effect") == "cleaner_stops" for lt in doc["targets"] if lt["type"] == "log_dir" for p in lt["problems"]))
        judge(case, "*", "after --fix: partitions fail to become leader (NumberFormatException)",
              bool(re.search(r"due to NumberFormatException", log)),
              any(p.get("kafka_effect") == "partitions_unserved" for lt in doc["targets"] if lt["type"] == "log_dir" for p in lt["problems"]))
    if case == "badhw-fix":  # replication-offset-checkpoint set aside: each high watermark starts at its log start
        judge(case, "*", "after --fix: the initial high watermarks (doctor: each at its log start)",
              sorted((p, int(h)) for p, h in re.findall(r"Log loaded for partition (d\d-0) with initial high watermark (\d+)", log)),
              sorted((t["dir"].rsplit("/", 1)[1], t["log_start"]) for t in doc["targets"]
                     if t["type"] == "partition" and re.search(r"/d\d-0$", t["dir"])))
    if case == "badepoch-fix":  # rebuilt from the batches: the broker's own entries before the damage, then its new ones
        mine = [l for l in open(f"{tmp}/base/d0-0/leader-epoch-checkpoint").read().split("\n")[2:] if l]
        now = [l for l in open(f"{tmp}/{case}/d0-0/leader-epoch-checkpoint").read().split("\n")[2:] if l]
        judge(case, "d0-0", "after --fix and a start: leader-epoch-checkpoint begins with the broker's entries before the damage",
              now[:len(mine)], mine)
    for t in doc["targets"]:
        if t["type"] != "partition" or not re.search(r"/d\d-0$", t["dir"]):
            continue
        part = t["dir"].rsplit("/", 1)[1]
        loaded = re.findall(r"Completed load of Log\(dir=\S*/" + re.escape(part) + r"(?:\.\w+-stray)?, .*?logEndOffset=(\d+)\)", log)
        judge(case, part, "after --fix: log end offset loaded", int(loaded[-1]) if loaded else None,
              t["startup"]["log_end_after"] if t["startup"] else None)

# --fix that wrote nothing: what is left must be for a person (no kseg step it could have run).
for case in (open(f"{tmp}/unchanged").read().split() if os.path.exists(f"{tmp}/unchanged") else []):
    try:
        left = [p["command"] for p in json.load(open(f"{tmp}/{case}-fix.json"))["plan"] if not p["by_hand"]]
    except (ValueError, KeyError) as e:
        left = [f"no report: {e}"]
    judge(f"{case}-fix", "*", "after --fix: it wrote nothing (the copy Kafka was judged on); kseg steps left", [], left)

w = [max(len(r[i]) for r in rows) for i in range(4)]
print("case/partition".ljust(w[0]), "what".ljust(w[1]), "Kafka did".ljust(w[2]), "doctor said".ljust(w[3]))
for r in rows:
    print(r[0].ljust(w[0]), r[1].ljust(w[1]), r[2].ljust(w[2]), r[3].ljust(w[3]), r[4])
for case, kafka, said in reasons:
    print(f"{case}: Kafka: {kafka}\n{' ' * len(case)}  doctor: {said}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
