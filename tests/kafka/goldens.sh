#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the DumpLogSegments goldens (CASE/dump/*) of the given cases, or of all cases.
# Usage: goldens.sh [--root DIR] [case...]      (DIR defaults to testdata/kafka)
# Each case is dumped in a scratch copy at the fixed path /tmp/kseg-golden/CASE, so the corpus
# itself is never opened by the tool and the absolute paths DumpLogSegments prints in its
# end-of-run summaries (it uses File.getAbsolutePath there) are the same on every machine;
# that path is stored in CASE/dump/golden-cwd.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root="$CORPUS_DIR"
if [[ "${1:-}" == "--root" ]]; then root="$(cd "$2" && pwd)"; shift 2; fi
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
    for d in "$root"/*/; do [[ -f "$d/case.json" ]] && cases+=("$(basename "$d")"); done
fi
cp="$(oracle_classpath)"
scratch=/tmp/kseg-golden
for c in "${cases[@]}"; do
    rm -rf "${scratch:?}/$c"
    mkdir -p "$scratch/$c"
    (cd "$scratch/$c" && java "${JAVA_FLAGS[@]}" -cp "$cp" kseg.oracle.Goldens --src "$root/$c" --dump "$root/$c/dump")
    echo "$scratch/$c" > "$root/$c/dump/golden-cwd"
    rm -rf "${scratch:?}/$c"
done
