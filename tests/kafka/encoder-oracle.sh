#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kseg's encoders against Kafka 4.4.0 itself. Every .log of every partition in testdata/kafka is
# rebuilt by kseg_reencode (tests/unit/reencode.h: each batch and legacy message re-encoded from
# its decoded fields; damaged entries and tails copied as they are) three ways: keeping each
# entry's codec, with gzip, and with zstd (legacy wrappers keep theirs: magic 0/1 has no zstd).
# Kafka's unclean load of each result (LoadCheck: UnifiedLog recovers every segment, CRCs
# checked, indexes rebuilt, then every record read through UnifiedLog.read and printed with its
# offset, timestamp, key, value, headers and batch fields) must equal Kafka's unclean load of
# the original. Indexes are deleted in both, since the re-encoded batches sit elsewhere.
# Usage: encoder-oracle.sh KSEG_REENCODE     Prints "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
reencode="$(realpath "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0
variants=(same gzip zstd)
jobs="$tmp/jobs.tsv"; : > "$jobs"
parts=()
for case_dir in "$CORPUS_DIR"/*/; do
  c="$(basename "$case_dir")"
  for v in orig "${variants[@]}"; do
    mkdir -p "$tmp/$v"
    cp -r "$case_dir" "$tmp/$v/$c"
    rm -rf "$tmp/$v/$c/dump"
    for part in "$tmp/$v/$c"/*-[0-9]*/; do
      part="${part%/}"
      rm -f "$part"/*.index "$part"/*.timeindex
      if [[ $v != orig ]]; then
        for log in "$part"/*.log; do
          [[ -e "$log" ]] || continue
          args=(); [[ $v == same ]] || args=(--codec "$v")
          "$reencode" "${args[@]}" "$log" "$log.new" >> "$tmp/reencode-$v.txt"
          mv "$log.new" "$log"
        done
      fi
      printf '%s\t%s\t--unclean\n' "$part.digest" "$part" >> "$jobs"
      [[ $v == orig ]] && parts+=("$c/$(basename "$part")")
    done
  done
done
oracle_java kseg.oracle.LoadCheckBatch "$jobs"

records=0
for p in "${parts[@]}"; do
  want="$tmp/orig/$p.digest"
  if grep -q '^# load failed' "$want"; then
    skipped=$((skipped + 1)); echo "skip: $p: Kafka does not load the original ($(grep -m1 '^# load failed' "$want"))"
    continue
  fi
  records=$((records + $(grep -c '^offset=' "$want" || true)))
  for v in "${variants[@]}"; do
    if cmp -s "$want" "$tmp/$v/$p.digest"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); echo "FAIL: $p re-encoded ($v): Kafka's load differs from the original's"
      diff "$want" "$tmp/$v/$p.digest" | head -5
    fi
  done
done
for v in "${variants[@]}"; do
  echo "kseg_reencode ($v), summed over $(wc -l < "$tmp/reencode-$v.txt") segments:"
  # Sum the numbers of each summary field over every segment.
  python3 - "$tmp/reencode-$v.txt" <<'EOF'
import re, sys
tot = None
for line in open(sys.argv[1]):
    nums = [int(n) for n in re.findall(r"(?<![\w.-])(\d+)(?![\w.-])", line.split(": ", 1)[1])]
    tot = nums if tot is None else [a + b for a, b in zip(tot, nums)]
text = re.sub(r"(?<![\w.-])\d+(?![\w.-])", "{}", open(sys.argv[1]).readline().split(": ", 1)[1])
print("  " + text.strip().format(*tot))
EOF
done
echo "encoder oracle: ${#parts[@]} partitions ($skipped not loadable as written), $records records in all,"
echo "  Kafka's load of kseg's re-encoding == Kafka's load of Kafka's own bytes, 3 codec variants"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
