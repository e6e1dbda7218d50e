#!/bin/bash
# The hwwatch backend builds for AArch64: every file of plugins/hwwatch (the
# NT_ARM_HW_WATCH probe and arch ops are only compiled there natively)
# compiled with the AArch64 cross compiler, -Wall -Wextra -Werror, to object
# files (so the _Static_asserts against the target's own struct
# user_hwdebug_state and NT_ARM_HW_WATCH are checked too), plus the watch
# view. Exit 77 (skip) when no cross compiler is installed (Debian:
# gcc-aarch64-linux-gnu).
# Usage: aarch64.sh <source root>
set -eu
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "SKIP: $cc not found (apt-get install gcc-aarch64-linux-gnu)"
  exit 77
fi
out=$(mktemp -d /tmp/asmspy-cross.XXXXXX)
trap 'rm -rf "$out"' EXIT
n=0
for f in "$src"/plugins/hwwatch/*.c "$src"/plugins/views/watch/*.c; do
  "$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -fvisibility=hidden \
        -I"$src/include" -I"$src" -c "$f" -o "$out/$(basename "$f").o" ||
    { echo "FAIL: $f does not build for aarch64"; exit 1; }
  n=$((n + 1))
done
# the AArch64-only code really was compiled (not preprocessed away)
"${cc%gcc}nm" "$out/probe_arm64.c.o" | grep -q ' T hw_probe_impl$' ||
  { echo "FAIL: probe_arm64.c defines no hw_probe_impl for aarch64"; exit 1; }
"${cc%gcc}nm" "$out/probe_x86.c.o" | grep -q 'hw_probe_impl' &&
  { echo "FAIL: the x86 probe leaked into the aarch64 build"; exit 1; }
"${cc%gcc}readelf" -h "$out/run.c.o" | grep -q 'Machine: *AArch64' || { echo "FAIL: not an aarch64 object"; exit 1; }
echo "ok: $n files compile for aarch64 with $cc ($("$cc" -dumpversion))"
