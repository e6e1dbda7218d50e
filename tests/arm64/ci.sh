#!/bin/bash
# The arm64 suite for CI: build (or reuse) the emulated arm64 machine,
# assemble the payload, boot it and print the suite's counts as the last
# line ("N passed, N failed, N skipped").
# Payload (/asmspy in the guest):
#   run_suite.sh lib.sh suite/*.sh   this directory's in-guest runner and tests
#   bin/armfacts                     the ptrace facts prober (armfacts.c),
#                                    built here with aarch64-linux-gnu-gcc
#   build/cli/asmspy build/host/libasmspy.so*
#   build/plugins/**/asmspy_*.so build/tests/victims/*
#                                    from the cross build directory, same
#                                    layout as a native build tree
#   objdump/<victim>.txt             `aarch64-linux-gnu-objdump -d` of each
#                                    victim, made here (the guest has no
#                                    binutils) for tests comparing --stream
# Without a build directory only armfacts runs (the pipeline's self-test).
# Every NEEDED library of the payload is checked against the image before
# booting, so a missing runtime package fails here with its name.
# Environment: ASMSPY_ARM64_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/asmspy-arm64),
# and run_vm.sh's ARM64_VM_TIMEOUT / ARM64_VM_SMP / ARM64_VM_MEM.
# Exit: 0 passed, 1 failed, 77 skipped (qemu or the arm64 packages cannot be
# had: the reason is printed), 2 bad arguments.
# Usage: ci.sh [<cross-build-dir>]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -le 1 ] || { echo "usage: ci.sh [<cross-build-dir>]" >&2; exit 2; }
bdir=${1:-}
if [ -n "$bdir" ]; then
  [ -d "$bdir" ] || { echo "ci.sh: $bdir is not a directory" >&2; exit 2; }
  [ -f "$bdir/cli/asmspy" ] || { echo "ci.sh: $bdir has no cli/asmspy (not a build tree)" >&2; exit 2; }
  readelf -h "$bdir/cli/asmspy" 2>/dev/null | grep -q 'Machine: *AArch64' ||
    { echo "ci.sh: $bdir/cli/asmspy is not an AArch64 binary (not a cross build)" >&2; exit 2; }
fi
cache=${ASMSPY_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/asmspy-arm64}
counts_skip() { echo "SKIP: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 77; }
counts_fail() { echo "FAIL: $*"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

command -v qemu-system-aarch64 >/dev/null ||
  counts_skip "qemu-system-aarch64 not found (Debian package qemu-system-arm)"
command -v cpio >/dev/null || counts_skip "cpio not found (Debian package cpio)"
img=$("$here/build_image.sh" "$cache")
rc=$?
case $rc in
  0) img=$(echo "$img" | tail -n1) ;;
  77) why=$(echo "$img" | sed -n 's/^SKIP: //p' | head -n1)
      counts_skip "${why:-the arm64 image cannot be built}" ;;
  *) counts_fail "build_image.sh exited $rc" ;;
esac

pl=$(mktemp -d /tmp/asmspy-arm64-payload.XXXXXX)
trap 'rm -rf "$pl"' EXIT
cp "$here/run_suite.sh" "$here/lib.sh" "$pl/"
mkdir -p "$pl/suite" "$pl/bin"
cp "$here"/suite/*.sh "$pl/suite/"
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
if command -v "$cc" >/dev/null; then
  "$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$pl/bin/armfacts" "$here/armfacts.c" ||
    counts_fail "armfacts.c does not build with $cc"
else
  echo "ci.sh: $cc not found: the payload has no armfacts (its test skips)"
fi
if [ -n "$bdir" ]; then
  mkdir -p "$pl/build/cli" "$pl/build/host" "$pl/build/tests/victims" "$pl/objdump"
  cp "$bdir/cli/asmspy" "$pl/build/cli/"
  cp -a "$bdir"/host/libasmspy.so* "$pl/build/host/" 2>/dev/null || true
  (cd "$bdir" && find plugins -name 'asmspy_*.so' -type f) | while IFS= read -r f; do
    mkdir -p "$pl/build/$(dirname "$f")" && cp "$bdir/$f" "$pl/build/$f"
  done
  for v in "$bdir"/tests/victims/*; do
    [ -f "$v" ] || continue
    cp "$v" "$pl/build/tests/victims/"
    if [ -x "$v" ] && command -v aarch64-linux-gnu-objdump >/dev/null; then
      aarch64-linux-gnu-objdump -d "$v" >"$pl/objdump/$(basename "$v").txt" 2>/dev/null || true
    fi
  done
fi

# every library the payload's ELF files name is in the image or the payload
have=$( { cat "$img/libs.txt"; find "$pl" -name '*.so*' -printf '%f\n'; } | sort -u)
missing=""
while IFS= read -r f; do
  for n in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    echo "$have" | grep -qxF "$n" || missing="$missing $n(${f#"$pl"/})"
  done
done < <(find "$pl" -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.sh')
[ -z "$missing" ] ||
  counts_fail "the payload needs libraries the image lacks (add their Debian packages to build_image.sh's runtime_pkgs):$missing"

out=$(mktemp /tmp/asmspy-arm64-out.XXXXXX)
trap 'rm -rf "$pl" "$out"' EXIT
"$here/run_vm.sh" "$cache" "$pl" | tee "$out"
rc=${PIPESTATUS[0]}
summary=$(sed -n 's/^run_vm: suite rc=[0-9]*: //p' "$out" | tail -n1)
case $rc in
  0 | 1) [ -n "$summary" ] && { echo "$summary"; exit "$rc"; }
         counts_fail "$(grep '^run_vm: FAIL' "$out" | tail -n1 | sed 's/^run_vm: FAIL: //')" ;;
  77) counts_skip "$(sed -n 's/^SKIP: //p' "$out" | tail -n1)" ;;
  *) counts_fail "run_vm.sh exited $rc" ;;
esac
