#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the Kafka corpus and its goldens: the ONE command for testdata/kafka.
# Usage: regen.sh [--seed N] [--out DIR] [--cases a,b,...] [--no-goldens]
#   --seed N      seed for record contents and ids (default 1, the committed corpus)
#   --out DIR     log-dir root to write into (default testdata/kafka)
#   --cases LIST  only these cases (default: all; `regen.sh --list` prints them)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
seed=1 out="$CORPUS_DIR" cases="" goldens=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seed) seed="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --cases) cases="$2"; shift 2 ;;
        --no-goldens) goldens=0; shift ;;
        --list) oracle_java kseg.oracle.Generate --list; printf '%s\n' live-broker live-crash-before live-crash-after legacy-broker; exit 0 ;;
        *) echo "regen.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# The live-* cases are made by a running broker (live-broker.sh, all three at once),
# legacy-broker by a Kafka 2.8.2 broker (legacy-broker.sh), every other case in-process.
live=0 legacy=0 inproc=""
if [[ -z "$cases" ]]; then live=1 legacy=1; fi
if [[ -n "$cases" ]]; then
    IFS=, read -r -a requested <<< "$cases"
    for c in "${requested[@]}"; do
        if [[ "$c" == live-* ]]; then live=1
        elif [[ "$c" == legacy-broker ]]; then legacy=1
        else inproc+="${inproc:+,}$c"; fi
    done
fi
if [[ -z "$cases" || -n "$inproc" ]]; then
    args=(--seed "$seed" --out "$out")
    [[ -n "$inproc" ]] && args+=(--cases "$inproc")
    oracle_java kseg.oracle.Generate "${args[@]}"
    if [[ $goldens -eq 1 ]]; then
        if [[ -n "$inproc" ]]; then IFS=, read -r -a list <<< "$inproc"; else list=(); fi
        if [[ ${#list[@]} -eq 0 ]]; then
            for d in "$out"/*/; do
                n="$(basename "$d")"
                [[ -f "$d/case.json" && "$n" != live-* && "$n" != legacy-broker ]] && list+=("$n")
            done
        fi
        "$KAFKA_DIR/goldens.sh" --root "$out" "${list[@]}"
    fi
fi
live_args=(--out "$out" --seed "$seed")
[[ $goldens -eq 1 ]] || live_args+=(--no-goldens)
if [[ $live -eq 1 ]]; then "$KAFKA_DIR/live-broker.sh" "${live_args[@]}"; fi
if [[ $legacy -eq 1 ]]; then "$KAFKA_DIR/legacy-broker.sh" "${live_args[@]}"; fi
