#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks every tool's help and the front end's words (issue 25, item 3):
#   - `kseg-X --help` exits 0, fits 80 columns, ends with examples and exit codes;
#   - `kseg help X` prints the same, `kseg -V`, `kseg version` and `kseg-X -V` the version;
#   - an unknown option or command exits 2 and names the closest spelling.
# Usage: tests/help-check.sh BUILD_DIR
set -uo pipefail
bin="${1:?usage: tests/help-check.sh BUILD_DIR}"
failures=0
fail() { echo "help-check: $*"; failures=$((failures + 1)); }
tools=(dump verify reindex truncate compact txn info doctor excise)
for t in "${tools[@]}"; do
  help="$("$bin/kseg-$t" --help)" || fail "kseg-$t --help exited $?"
  wide="$(awk 'length($0) > 80 { printf "%d: %s\n", length($0), $0 }' <<<"$help")"
  [[ -z "$wide" ]] || fail "kseg-$t --help has lines over 80 columns:"$'\n'"$wide"
  for part in "Usage: kseg-$t" "Examples:" "Exit status:" "  2  usage error"; do
    grep -qF -- "$part" <<<"$help" || fail "kseg-$t --help lacks '$part'"
  done
  [[ "$("$bin/kseg" help "$t")" == "$help" ]] || fail "kseg help $t differs from kseg-$t --help"
  [[ "$("$bin/kseg-$t" -V)" == "kseg-$t "* ]] || fail "kseg-$t -V does not print the version"
done
wide="$("$bin/kseg" --help | awk 'length($0) > 80')"
[[ -z "$wide" ]] || fail "kseg --help has lines over 80 columns: $wide"
for args in "-V" "--version" "version"; do
  [[ "$("$bin/kseg" $args)" == "kseg "* ]] || fail "kseg $args does not print the version"
done
expect() {  # expect RC STDERR-PART COMMAND...
  local rc="$1" part="$2"; shift 2
  local err
  err="$("$@" 2>&1 >/dev/null)"
  local got=$?
  [[ $got == "$rc" ]] || fail "$* exited $got, not $rc"
  grep -qF -- "$part" <<<"$err" || fail "$* said '$err', not '$part'"
}
expect 2 "did you mean --deep-iteration?" "$bin/kseg-dump" --deep-iteratoin x
expect 2 "did you mean --dry-run?" "$bin/kseg-reindex" --dryrun x
expect 2 "did you mean 'verify'?" "$bin/kseg" verfiy x
expect 2 "kseg-verify: unknown option --frobnicate" "$bin/kseg-verify" --frobnicate x
expect 2 "IntegerDecoder" "$bin/kseg-dump" --value-decoder-class com.acme.AvroDecoder x
if ((failures)); then echo "help-check: $failures problem(s)"; exit 1; fi
echo "help-check: ${#tools[@]} tools and kseg: help within 80 columns, examples and exit codes, help/version words, suggestions"
