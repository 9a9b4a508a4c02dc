#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds kseg as users install it (issue 25, item 1) and checks what they get:
#   1. configured with -DKSEG_BUILD_TESTS=OFF and Catch2 hidden from CMake:
#      building the tools needs no test framework;
#   2. `cpack -G DEB`: Depends computed by dpkg-shlibdeps, no lintian error, apt
#      accepts it (apt-get install --simulate), it holds the seven binaries, the
#      man pages, the JSON schemas and the bash and zsh completions, and its kseg
#      (unpacked) verifies and dumps the bundled sample partition;
#   3. -DKSEG_STATIC=ON: ldd lists glibc's libraries only, and the binary
#      verifies and dumps the sample in a chroot that holds nothing but glibc,
#      printing what the packaged build prints.
# Usage: tests/package-check.sh [WORK_DIR]   (root for the chroot)
set -uo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d)}"
sample="$top/testdata/kafka/v2-zstd/orders-0"
failures=0
fail() { echo "package-check: $*"; failures=$((failures + 1)); }
configure_build() {  # DIR CMAKE_ARGS...
  local dir="$1"; shift
  cmake -S "$top" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSEG_WERROR=ON -DKSEG_BUILD_TESTS=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DCMAKE_INSTALL_PREFIX=/usr "$@" >/dev/null &&
    cmake --build "$dir" -j2 >/dev/null
}

# 1-2. The package.
configure_build "$work/deb" -DKSEG_STATIC=OFF || { echo "package-check: build without tests failed"; exit 1; }
(cd "$work/deb" && rm -f kseg_*.deb && cpack -G DEB >/dev/null) || { echo "package-check: cpack failed"; exit 1; }
deb="$(ls "$work"/deb/kseg_*.deb)"
echo "package-check: $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libc6 libstdc++6 libzstd1 liblz4-1 libsnappy1v5 zlib1g; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
lint="$(lintian --fail-on error "$deb" 2>&1 | grep -v 'running with root privileges')"
lintian --fail-on error "$deb" >/dev/null 2>&1 || fail "lintian: $lint"
[[ -z "$lint" ]] || echo "package-check: lintian (no error): $(tr '\n' ';' <<<"$lint")"
apt-get install --simulate -qq "$deb" >/dev/null 2>&1 || fail "apt-get install --simulate $deb refused it"
contents="$(dpkg-deb -c "$deb" | awk '{print $6}')"
for f in ./usr/bin/kseg ./usr/bin/kseg-{dump,verify,reindex,truncate,compact,txn,info,doctor,excise} \
         ./usr/share/man/man1/kseg{,-dump,-verify,-reindex,-truncate,-compact,-txn,-info,-doctor,-excise}.1.gz \
         ./usr/share/kseg/kseg-{dump,verify,info,txn,truncate,compact,reindex,doctor,excise}.schema.json ./usr/share/bash-completion/completions/kseg \
         ./usr/share/bash-completion/completions/kseg-dump ./usr/share/zsh/vendor-completions/_kseg \
         ./usr/share/doc/kseg/copyright ./usr/share/doc/kseg/changelog.gz; do
  grep -qxF "$f" <<<"$contents" || fail "$(basename "$deb") lacks $f"
done
rm -rf "$work/root" && dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/kseg" verify "$sample" >/dev/null || fail "the packaged kseg verify exited $? on the sample"
"$work/root/usr/bin/kseg" dump --deep-iteration "$sample" >"$work/dump-deb.txt" 2>"$work/dump-deb.err" ||
  fail "the packaged kseg dump exited $?"
# The bash completion offers a command's options from its --help.
words="$(PATH="$work/root/usr/bin:$PATH" bash -c 'source "$1"; COMP_WORDS=(kseg-verify --de); COMP_CWORD=1;
  _kseg_complete; echo "${COMPREPLY[*]}"' _ "$work/root/usr/share/bash-completion/completions/kseg")"
[[ "$words" == "--deep" ]] || fail "bash completion of 'kseg-verify --de' gave '$words'"

# 3. The self-contained binary.
configure_build "$work/static" -DKSEG_STATIC=ON || { echo "package-check: static build failed"; exit 1; }
libs="$(ldd "$work/static/kseg" | awk '{print $1}' | xargs -n1 basename | sort | tr '\n' ' ')"
echo "package-check: ldd kseg (static build): $libs"
for l in $libs; do
  case "$l" in linux-vdso.so.1 | libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2) ;; *) fail "static kseg needs $l" ;; esac
done
if [[ $(id -u) == 0 ]]; then
  root="$work/chroot"
  rm -rf "$root" && mkdir -p "$root/data"
  cp "$work/static/kseg" "$root/"
  # glibc alone, at the paths the binary asks for.
  ldd "$work/static/kseg" | grep -oE '/[^ ]+' | while read -r l; do mkdir -p "$root$(dirname "$l")"; cp -L "$l" "$root$l"; done
  cp -r "$sample" "$root/data/"
  chroot "$root" /kseg verify /data/orders-0 >/dev/null || fail "static kseg verify in the chroot exited $?"
  chroot "$root" /kseg dump --deep-iteration /data/orders-0 >"$work/dump-static.txt" 2>"$work/dump-static.err" ||
    fail "static kseg dump exited $?"
  # Paths differ (/data vs the tree); the rest is the same.
  diff <(sed "s|$sample|P|g" "$work/dump-deb.txt") <(sed "s|/data/orders-0|P|g" "$work/dump-static.txt") >/dev/null ||
    fail "the static and packaged builds print different dumps"
  echo "package-check: chroot with $(find "$root" -type f | grep -c '\.so') shared libraries: static kseg verified and dumped the sample"
else
  echo "package-check: not root: the chroot run is left out"
fi
if ((failures)); then echo "package-check: $failures problem(s)"; exit 1; fi
echo "package-check: builds without Catch2, .deb installable and lintian-clean of errors, static binary needs only glibc"
