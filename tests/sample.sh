#!/usr/bin/env bash
# Sets up, builds and runs the main job on the bundled sample partition:
# `kseg dump --deep-iteration` of a Kafka-written partition directory (v2 with
# zstd, several segments), printed exactly as kafka-dump-log prints it.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/tests/deps.sh" --build
# Where the machine has ccache (tests/run-all.sh installs it), an unchanged file is compiled once.
if command -v ccache >/dev/null; then export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=true CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
cmake -S "$top" -B "$top/build-sample" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSEG_BUILD_TESTS=OFF >/dev/null
cmake --build "$top/build-sample" -j2 --target kseg kseg-dump >/dev/null
cd "$top/testdata/kafka/v2-zstd"
"$top/build-sample/kseg" dump --deep-iteration orders-0
