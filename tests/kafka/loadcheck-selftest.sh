#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Shows that the load-check digest sees a removed record: copies testdata/kafka/v2-none/orders-0,
# cuts one whole batch out of the middle of its first segment (position and size taken from
# Kafka's own DumpLogSegments golden), loads both with Kafka (unclean start-up, so the
# indexes are rebuilt), and asserts that the digests differ by exactly that batch's records.
# Exits non-zero on any other outcome.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case_dir="$CORPUS_DIR/v2-none"
seg=00000000000000000000.log
golden="$case_dir/dump/orders-0.$seg.plain.out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "loadcheck-selftest: FAIL: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

mkdir -p "$tmp/a" "$tmp/b"
cp -r "$case_dir/orders-0" "$tmp/a/"
cp -r "$case_dir/orders-0" "$tmp/b/"

# The middle batch of the segment, from the golden: "baseOffset: B lastOffset: L ... position: P ... size: S".
mapfile -t batches < <(grep '^baseOffset:' "$golden")
[[ ${#batches[@]} -ge 3 ]] || fail "expected at least 3 batches in $golden"
pick="${batches[$(( ${#batches[@]} / 2 ))]}"
base=$(sed -E 's/.*baseOffset: ([0-9]+) .*/\1/' <<< "$pick")
last=$(sed -E 's/.* lastOffset: ([0-9]+) .*/\1/' <<< "$pick")
pos=$(sed -E 's/.* position: ([0-9]+) .*/\1/' <<< "$pick")
size=$(sed -E 's/.* size: ([0-9]+) .*/\1/' <<< "$pick")
echo "removing batch $base..$last (position $pos, $size bytes) from orders-0/$seg"
f="$tmp/b/orders-0/$seg"
{ head -c "$pos" "$f"; tail -c +"$(( pos + size + 1 ))" "$f"; } > "$f.new"
mv "$f.new" "$f"

"$KAFKA_DIR/loadcheck.sh" "$tmp/a/orders-0" --unclean | tail -n +2 > "$tmp/a.digest"
"$KAFKA_DIR/loadcheck.sh" "$tmp/a/orders-0" | tail -n +2 > "$tmp/a-clean.digest"
"$KAFKA_DIR/loadcheck.sh" "$tmp/b/orders-0" --unclean | tail -n +2 > "$tmp/b.digest"

passed=0
# 1. A clean and an unclean load of the same directory agree.
cmp -s "$tmp/a.digest" "$tmp/a-clean.digest" || fail "clean and unclean digests of the untouched copy differ"
passed=$((passed + 1))
# 2. The digest of the damaged copy lacks exactly offsets base..last and has nothing new.
expected="$(seq "$base" "$last" | sed 's/^/offset=/')"
removed="$(diff "$tmp/a.digest" "$tmp/b.digest" | grep '^<' | sed -E 's/^< (offset=[0-9]+) .*/\1/' || true)"
added="$(diff "$tmp/a.digest" "$tmp/b.digest" | grep '^>' || true)"
[[ "$removed" == "$expected" ]] || fail "removed lines: $(tr '\n' ' ' <<< "$removed"); expected: $(tr '\n' ' ' <<< "$expected")"
[[ -z "$added" ]] || fail "unexpected new lines: $added"
passed=$((passed + 1))
echo "$passed passed, 0 failed"
