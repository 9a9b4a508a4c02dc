#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a real Kafka 4.4.0 broker does with a .timeindex whose preallocated zero tail was never
# trimmed (KAFKA-10207, KAFKA-19200), and that kseg-verify calls it so and kseg-reindex mends it.
# The broker writes a topic of several segments (log.roll.ms 1000, records stamped now, the
# default 7-day retention) and shuts down cleanly; then, on copies of that log dir:
#   clean    as the broker left it: kseg-verify passes, the broker keeps and serves every record;
#   closed   the first segment's .timeindex grown with zeros to the preallocated size: kseg-verify
#            fails on timeindex.untrimmed; the broker reads the segment's largest timestamp as 0
#            and its first retention pass deletes the segment;
#   mended   closed, then kseg-reindex: kseg-verify passes; the broker keeps every record;
#   active   the active segment's .timeindex grown so (as a running broker has it) in the log
#            dir shut down cleanly: kseg-verify fails on timeindex.preallocated_loaded; the broker
#            loads it as it is (KAFKA-19200: its zeros count as entries, so it is full), and the
#            next append rolls the segment (log.roll.ms alone would roll it here too) leaving
#            the zero tail on the closed segment: what kseg-verify then calls timeindex.untrimmed,
#            the state the closed case shows retention deleting;
#   active_mended  active, then kseg-reindex (which trims it): the broker rolls, the segment's
#            .timeindex trimmed, and serves every record;
#   active_unclean  active without .kafka_cleanshutdown: kseg-verify passes (info
#            timeindex.preallocated): the broker's recovery rebuilds the index and trims it.
# Usage: timeindex-broker.sh BUILD_DIR. Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build="$(realpath "$1")"
broker_scratch timeindex-broker.sh
broker_logging
read -r bport cport < <(free_ports 2)
settings=(log.roll.ms=1000 log.initial.task.delay.ms=500 log.segment.delete.delay.ms=500)
topic=events

# produce N FIRST: N records keyed k<i>, values v<i>, i from FIRST, acknowledged by the broker.
produce() {
  seq "$2" $(($2 + $1 - 1)) | sed 's/.*/k&:v&/' |
    kcat -b "127.0.0.1:$bport" -P -t "$topic" -p 0 -K: -X acks=all 2>> "$tmp/kcat.err"
}
# offsets: what the broker serves of the topic, from its log start (empty until it leads it).
offsets() {
  local got=""
  for _ in $(seq 30); do
    got="$(kcat -b "127.0.0.1:$bport" -C -t "$topic" -p 0 -o beginning -e -q -f '%o\n' 2>/dev/null || true)"
    [[ -n "$got" ]] && break
    sleep 1
  done
  echo "$got"
}
# run_broker NAME DIR: the broker on DIR, its output in $tmp/NAME.out once stopped (stop_as).
run_broker() {
  : > "$tmp/broker.out"
  broker_on "$2" "${settings[@]}"
}
stop_as() { stop_broker; cp "$tmp/broker.out" "$tmp/$1.out"; }

# The broker writes the topic: four bursts 1.3 s apart, each rolling the segment before it.
src="$tmp/src"
run_broker write "$src"
for i in 0 1 2 3; do
  produce 50 $((i * 50))
  sleep 1.3
done
stop_as write
seg_dir="$src/$topic-0"
mapfile -t logs < <(ls "$seg_dir"/*.log)
if [[ ${#logs[@]} -ge 3 ]]; then ok; echo "the broker wrote ${#logs[@]} segments of $topic-0"
else bad "the broker wrote ${#logs[@]} segments of $topic-0, 3 or more wanted"; fi
first="${logs[0]%.log}.timeindex" active="${logs[-1]%.log}.timeindex"
# The size the broker preallocates (log.index.size.max.bytes 4096, in 12-byte entries).
prealloc=4092
[[ "$(stat -c %s "$first")" -lt $prealloc && "$(stat -c %s "$active")" -lt $prealloc ]] && ok ||
  bad "the broker left a .timeindex untrimmed: $(stat -c '%n %s' "$first" "$active")"

copy() { cp -a "$src" "$tmp/$1"; }
copy clean
copy closed; truncate -s $prealloc "$tmp/closed/$topic-0/$(basename "$first")"
copy mended; truncate -s $prealloc "$tmp/mended/$topic-0/$(basename "$first")"
copy active; truncate -s $prealloc "$tmp/active/$topic-0/$(basename "$active")"
copy active_mended; truncate -s $prealloc "$tmp/active_mended/$topic-0/$(basename "$active")"
copy active_unclean; truncate -s $prealloc "$tmp/active_unclean/$topic-0/$(basename "$active")"
rm "$tmp/active_unclean/.kafka_cleanshutdown"
for c in mended active_mended; do
  if "$build/kseg-reindex" "$tmp/$c/$topic-0" > "$tmp/$c.reindex" 2>&1; then ok
  else bad "$c: kseg-reindex failed: $(cat "$tmp/$c.reindex")"; fi
done

# verify CASE WANT_STATUS [CODE]: kseg-verify's exit status on the case, and the code it names.
verify() {
  local status=0
  "$build/kseg-verify" --verbose "$tmp/$1/$topic-0" > "$tmp/$1.verify" 2>&1 || status=$?
  if [[ $status -eq $2 && ( -z "${3:-}" || -n "$(grep -F "$3" "$tmp/$1.verify")" ) ]]; then ok
  else bad "$1: kseg-verify exited $status (wanted $2${3:+, naming $3}): $(grep -E 'error|warning' "$tmp/$1.verify" | head -3)"; fi
  echo "$1: kseg-verify exits $status${3:+: $(grep -F "$3" "$tmp/$1.verify" | head -1)}"
}
verify clean 0
verify closed 1 timeindex.untrimmed
verify mended 0
verify active 1 timeindex.preallocated_loaded
verify active_mended 0
verify active_unclean 0 timeindex.preallocated

all="$(seq 0 199)"
# Retention: the broker on each closed-segment case, through a few retention passes.
for c in clean closed mended; do
  run_broker "$c" "$tmp/$c"
  sleep 4
  got="$(offsets)"
  stop_as "$c"
  deleted="$(grep -c "due to log retention time\|retention time .* breach" "$tmp/$c.out" || true)"
  echo "$c: the broker serves $(wc -l <<< "$got") records from offset $(head -1 <<< "$got"); retention deletions logged: $deleted"
  if [[ $c == closed ]]; then
    [[ "$got" != "$all" && $deleted -gt 0 ]] && ok || bad "closed: the broker kept the segment kseg calls an error"
  else
    [[ "$got" == "$all" && $deleted -eq 0 ]] && ok || bad "$c: the broker did not serve offsets 0..199 or deleted a segment"
  fi
done

# The next roll: the broker on each active-segment case takes a burst, rolls, takes another.
for c in active active_mended active_unclean; do
  run_broker "$c" "$tmp/$c"
  offsets > /dev/null  # leading it
  produce 10 200 || true
  sleep 1.3
  produce 10 210 || true
  sleep 1
  got="$(offsets)"
  stop_as "$c"
  was="$tmp/$c/$topic-0/$(basename "$active")"
  left=0
  "$build/kseg-verify" "$tmp/$c/$topic-0" > "$tmp/$c.after" 2>&1 || left=$?
  echo "$c: after two bursts the broker serves $(wc -l <<< "$got") records; the segment that was active: .timeindex $(stat -c %s "$was") bytes; kseg-verify then exits $left"
  [[ "$got" == "$(seq 0 219)" ]] && ok || bad "$c: the broker did not serve offsets 0..219"
  if [[ $c == active ]]; then
    [[ "$(stat -c %s "$was")" -eq $prealloc && $left -eq 1 && -n "$(grep -F timeindex.untrimmed "$tmp/$c.after")" ]] && ok ||
      bad "active: the broker's roll did not leave the zero tail kseg calls an error"
  else
    [[ "$(stat -c %s "$was")" -lt $prealloc && $left -eq 0 ]] && ok || bad "$c: the broker's roll left $(cat "$tmp/$c.after")"
  fi
done

# The broker logged each load (its silence about the good cases means something).
for c in clean mended active_mended active_unclean; do
  grep -q "Completed load of Log(dir=$tmp/$c/$topic-0," "$tmp/$c.out" && ok || bad "$c: the broker's log has no load of $topic-0"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
