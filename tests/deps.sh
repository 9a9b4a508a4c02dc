#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages kseg builds and tests with (idempotent; quiet
# when everything is there already). Java 17 and Maven come with the machine
# image; the Kafka harness downloads Kafka itself from Maven Central.
set -euo pipefail
# --build: only what building the tools needs (tests/sample.sh): no JDK, no test framework.
pkgs=(cmake ninja-build g++ pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev libzstd-dev liblz4-dev
      libsnappy-dev zlib1g-dev libisal-dev libxxhash-dev
      file dpkg-dev  # cpack -G DEB: CPackDeb needs file, and dpkg-shlibdeps computes Depends
      ccache)  # each unchanged file compiled once per machine, by sample.sh and run-all.sh alike
[[ "${1:-}" == --build ]] || pkgs+=(catch2 clang libclang-rt-14-dev maven openjdk-17-jdk-headless jq kcat
      time  # /usr/bin/time: the peak RSS of a tool, unpolluted by the test process that starts it
      groff-base man-db bsdextrautils  # groff, man and col: tests/man-check.sh
      lintian)  # tests/package-check.sh
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
