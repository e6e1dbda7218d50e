#!/bin/bash
# test_scope_installed: the three scope examples work against an INSTALLED
# asmspy, the way examples/scope/README.md and docs/scope.md say:
#   1. meson install --destdir $TMP/dest (from the build dir)
#   2. C and C++ examples compiled with pkg-config from the destdir
#      (PKG_CONFIG_SYSROOT_DIR makes its -I/-L point into it)
#   3. the Python example with PYTHONPATH=<datadir>/asmspy/python
# Each must capture in tier WEAK. The destdir is not the configured prefix:
# the installed libasmspy finds its plugins beside itself (<libdir>/asmspy/
# plugins, host/registry.c); with ASMSPY_PLUGIN_PATH_ONLY=1 and no
# ASMSPY_PLUGIN_PATH no plugin is reachable, and a scope is a recorded no-op
# whose reason names the variable, while the program runs on.
# usage: test_scope_installed.sh <build-root> <source-root>
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
[ $# -eq 2 ] || { echo "usage: $0 <build-root> <source-root>" >&2; exit 99; }
BUILD=$1
SRC=$2
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config missing"; exit 77; }
TMP=$(mktemp -d /tmp/asmspy-scope-inst.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

meson install -C "$BUILD" --no-rebuild --destdir "$TMP/dest" >"$TMP/install.log" 2>&1 \
  || fail "meson install: $(tail -5 "$TMP/install.log")"
pc=$(find "$TMP/dest" -name asmspy.pc | head -1)
[ -n "$pc" ] || fail "no asmspy.pc installed"
libdir=$(dirname "$(dirname "$pc")")
pydir=$(find "$TMP/dest" -type d -path '*/asmspy/python' | head -1)
[ -n "$pydir" ] || fail "the Python module was not installed"
[ -f "$libdir/libasmspy.so.0" ] || fail "no libasmspy.so.0 in $libdir"
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$TMP/dest
export ASMSPY_PLUGIN_PATH=$libdir/asmspy/plugins
cd "$TMP"
# A sanitizer build's libasmspy needs the ASan runtime first in the process:
# the examples are not built with it, so preload it (as scope_counts does).
asan_rt=$(ldd "$libdir/libasmspy.so.0" 2>/dev/null | awk '/libasan/ {print $3; exit}')
if [ -n "$asan_rt" ]; then
  export LD_PRELOAD=$asan_rt ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

# C
cc -O1 $(pkg-config --cflags asmspy) "$SRC/examples/scope/scope_c.c" -o "$TMP/scope_c" \
  $(pkg-config --libs asmspy) -Wl,-rpath,"$libdir" 2>"$TMP/cc.err" || fail "C example: $(cat "$TMP/cc.err")"
"$TMP/scope_c" >"$TMP/c.out" 2>&1 || fail "C example failed: $(tail -5 "$TMP/c.out")"
grep -qE '^dot = 70: [1-9][0-9]* instructions, tier WEAK' "$TMP/c.out" || fail "C example: $(grep -E '^dot|^#' "$TMP/c.out")"
grep -qE '^dot\+0x[0-9a-f]+ \[scope_c\]  ret$' "$TMP/c.out" || fail "C example: no dot+0x.. ret line"
pass "C example against the installed header, .pc and library: tier WEAK, dot = 70"

# C++
if command -v c++ >/dev/null 2>&1; then
  c++ -O1 $(pkg-config --cflags asmspy) "$SRC/examples/scope/scope_cpp.cpp" -o "$TMP/scope_cpp" \
    $(pkg-config --libs asmspy) -Wl,-rpath,"$libdir" 2>"$TMP/cxx.err" || fail "C++ example: $(cat "$TMP/cxx.err")"
  "$TMP/scope_cpp" >"$TMP/cpp.out" 2>&1 || fail "C++ example failed: $(tail -5 "$TMP/cpp.out")"
  grep -qE '^# scope .*scope_cpp.cpp:[0-9]+: [1-9][0-9]* instructions, tier WEAK' "$TMP/cpp.out" \
    || fail "C++ example: $(grep '^#' "$TMP/cpp.out")"
  grep -q '^square_sum(4) = 14$' "$TMP/cpp.out" || fail "C++ example result: $(tail -1 "$TMP/cpp.out")"
  pass "C++ example (<asmspy/scope.hpp> installed): tier WEAK, square_sum(4) = 14"
fi

# Python
PYTHONPATH=$pydir ASMSPY_LIB=$libdir/libasmspy.so.0 python3 "$SRC/examples/scope/scope_py.py" \
  >"$TMP/py.out" 2>&1 || fail "Python example failed: $(tail -5 "$TMP/py.out")"
grep -qE '^labs\+0x[0-9a-f]+ \[libc.so.6\]  ret$' "$TMP/py.out" || fail "Python example: $(cat "$TMP/py.out")"
grep -qE '^tier WEAK, [1-9][0-9]* instructions' "$TMP/py.out" || fail "Python example: $(tail -1 "$TMP/py.out")"
pass "Python example from <datadir>/asmspy/python: tier WEAK, labs traced"

# no plugin reachable: a recorded no-op with the reason, the program runs on
env -u ASMSPY_PLUGIN_PATH -u LD_LIBRARY_PATH ASMSPY_PLUGIN_PATH_ONLY=1 "$TMP/scope_c" >"$TMP/none.out" 2>&1 || fail "C example without plugins failed"
grep -qE '^dot = 70: 0 instructions, tier NONE' "$TMP/none.out" || fail "no-plugin run: $(grep '^dot' "$TMP/none.out")"
grep -q 'ASMSPY_PLUGIN_PATH' "$TMP/none.out" || fail "the no-op reason does not say where plugins are looked for"
pass "without reachable plugins: tier NONE, the reason names ASMSPY_PLUGIN_PATH, dot = 70 still"
