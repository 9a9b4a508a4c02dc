#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up, builds and runs the main job on the bundled sample partition:
# `kseg dump --deep-iteration` of a Kafka-written partition directory (v2 with
# zstd, several segments), printed exactly as kafka-dump-log prints it.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/tests/deps.sh" --build
# ccache (deps.sh installs it): an unchanged file is compiled once per machine. These are the
# flags of tests/run-all.sh's main and package builds (-Werror included), in a build dir as deep as
# theirs (ccache keys hold paths relative to it), so they reuse every object compiled here.
if command -v ccache >/dev/null; then export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=true CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
build="$top/build-sample/release"
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSEG_BUILD_TESTS=OFF -DKSEG_WERROR=ON \
  -DKSEG_SANITIZE=OFF -DKSEG_FUZZ=OFF -DKSEG_STATIC=OFF >/dev/null
cmake --build "$build" -j2 --target kseg kseg-dump >/dev/null
cd "$top/testdata/kafka/v2-zstd"
"$build/kseg" dump --deep-iteration orders-0
