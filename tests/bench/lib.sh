# SPDX-License-Identifier: Apache-2.0
# What the benchmark scripts share; sourced after they set $here and their defaults.
#   bench_options SCRIPT NAME... -- "$@"  sets $NAME from each --NAME VALUE; any other argument: exit 2
#   bench_setup TARGET...                 $cache, $out, the packages, a Release build of the targets in
#                                         $build (KSEG_BENCH_NO_BUILD=1: no build, the binaries must be
#                                         there), $cp (the Kafka harness classpath), $out/machine.txt
top="$(cd "$here/../.." && pwd)"
source "$top/tests/kafka/lib.sh"

bench_options() {  # locals prefixed: printf -v must set the caller's variable, not one of these
  local _bo_script="$1" _bo_names=() _bo_key
  shift
  while [[ "$1" != -- ]]; do _bo_names+=("$1"); shift; done
  shift
  while [[ $# -gt 0 ]]; do
    _bo_key="${1#--}"
    if [[ "$1" == --* && $# -ge 2 && " ${_bo_names[*]} " == *" $_bo_key "* ]]; then
      printf -v "$_bo_key" '%s' "$2"
      shift 2
    else
      echo "$_bo_script: unknown argument $1 (or its value missing)" >&2
      exit 2
    fi
  done
}

bench_setup() {
  cache="${KSEG_BENCH_DIR:-/tmp/kseg-bench}"
  mkdir -p "$out" "$cache"
  "$top/tests/deps.sh"  # a fresh machine: the packages the build and the Kafka harness need
  if [[ -n "${KSEG_BENCH_NO_BUILD:-}" ]]; then  # binaries built elsewhere (a build in progress there): used as they are
    local _bs_t
    for _bs_t in "$@"; do
      [[ -x "$build/$_bs_t" || -x "$build/tests/bench/$_bs_t" ]] || { echo "bench: $build has no $_bs_t" >&2; exit 3; }
    done
  else
    [[ -f "$build/build.ninja" ]] || cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j2 --target "$@" >/dev/null
  fi
  cp="$(oracle_classpath)"
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(lscpu | sed -n 's/^Model name: *//p')" \
    > "$out/machine.txt"
}
