#!/bin/bash
# test_pip_install: `pip install ./bindings/python` into a venv (under the
# meson build dir) against a `meson install --destdir` tree, offline, and
# the installed package finding libasmspy:
#   A. --no-build-isolation, the libdir recorded at build time (pkg-config
#      asmspy from the destdir): found with NO environment variable at all;
#   B. build isolation (the in-tree backend needs nothing fetched) with
#      nothing recorded (--config-settings libdir=none): found through the
#      loader with only LD_LIBRARY_PATH=<destdir libdir> (ldconfig's stand-in),
#      and without it: a recorded no-op (tier NONE + reason), no exception.
# The destdir is not the configured prefix: the plugins are reached through
# ASMSPY_PLUGIN_PATH where a WEAK capture is checked (as test_scope_installed).
# usage: test_pip_install.sh <build-root> <source-root>
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
[ $# -eq 2 ] || { echo "usage: $0 <build-root> <source-root>" >&2; exit 99; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
"$PY" -c 'import venv' 2>/dev/null || { echo "SKIP: python3 venv module missing (apt-get install python3-venv)"; exit 77; }
"$PY" -m pip --version >/dev/null 2>&1 || { echo "SKIP: pip missing (apt-get install python3-pip)"; exit 77; }
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config missing"; exit 77; }
TMP=$(mktemp -d "$BUILD/scope-python-pip.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

meson install -C "$BUILD" --no-rebuild --destdir "$TMP/dest" >"$TMP/install.log" 2>&1 \
  || fail "meson install: $(tail -5 "$TMP/install.log")"
pc=$(find "$TMP/dest" -name asmspy.pc | head -1)
[ -n "$pc" ] || fail "no asmspy.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$libdir/libasmspy.so.0" ] || fail "no libasmspy.so.0 in $libdir"
plugins=$libdir/asmspy/plugins
# offline for real where a network namespace can be made (root / userns);
# --no-index keeps pip off any index either way
NET=""
if unshare -n true 2>/dev/null; then NET="unshare -n"; fi
echo "# pip: $("$PY" -m pip --version); offline: ${NET:-"--no-index only (no network namespace here)"}"
# A sanitizer build's libasmspy needs the ASan runtime first in python3
asan_rt=$(ldd "$libdir/libasmspy.so.0" 2>/dev/null | awk '/libasan/ {print $3; exit}')
asan_env=()
if [ -n "$asan_rt" ]; then
  asan_env=(LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0")
fi
# the environment of a fresh shell: no ASMSPY_*, no PYTHONPATH, no LD_LIBRARY_PATH
clean=(env -i PATH="$PATH" HOME="${HOME:-/root}" TMPDIR="$TMP" "${asan_env[@]}")
probe='import asmspy, ctypes, os
lib = ctypes.CDLL(os.environ["VICTIM"]) if os.environ.get("VICTIM") else ctypes.CDLL("libc.so.6")
f = lib.work if os.environ.get("VICTIM") else lib.labs
f.restype = ctypes.c_long; f.argtypes = [ctypes.c_long]
with asmspy.HwTrace.scope(f, flags=asmspy.QUIET) as t:
    r = f(-42)
print("lib=%s" % asmspy.library_path)
print("file=%s" % asmspy.__file__)
print("result=%d tier=%s insns=%d reason=%s" % (r, t.tier, t.insn_count, t.reason))'

# ---- A: --no-build-isolation, libdir recorded --------------------------------
"$PY" -m venv --without-pip --system-site-packages "$TMP/venvA" || fail "python3 -m venv"
PYTHONDONTWRITEBYTECODE=1 PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$TMP/dest \
  $NET "$TMP/venvA/bin/python" -m pip install -q --no-index --no-build-isolation "$SRC/bindings/python" \
  >"$TMP/pipA.log" 2>&1 || fail "pip install --no-index --no-build-isolation: $(tail -5 "$TMP/pipA.log")"
cfg=$(find "$TMP/venvA" -path '*/site-packages/asmspy/_config.py' | head -1)
[ -n "$cfg" ] && grep -qF "LIBDIR = '$libdir'" "$cfg" || fail "the libdir was not recorded: $(cat "$cfg" 2>/dev/null)"
pass "pip install --no-index --no-build-isolation: installed, libdir recorded ($libdir)"
out=$(cd "$TMP" && "${clean[@]}" "$TMP/venvA/bin/python" -c "$probe" 2>&1) || fail "import without env: $out"
printf '%s\n' "$out" | sed 's/^/#   /'
printf '%s\n' "$out" | grep -qxF "lib=$libdir/libasmspy.so.0" || fail "not loaded from the recorded libdir"
printf '%s\n' "$out" | grep -qF "file=$TMP/venvA/" || fail "asmspy not imported from the venv"
# WEAK or NONE: with no ASMSPY_PLUGIN_PATH the library looks in its configured
# plugin dir (not in the destdir) and, since this destdir lies under the build
# root, in the build tree's plugins (libasmspy's build-tree rule): either way
# the program's own result is what matters here.
printf '%s\n' "$out" | grep -qE '^result=42 tier=(WEAK|NONE) ' || fail "the scope or the program's result: $out"
pass "no environment variable at all: libasmspy found through the recorded libdir, labs(-42) = 42"
out=$(cd "$TMP" && "${clean[@]}" ASMSPY_PLUGIN_PATH="$plugins" "$TMP/venvA/bin/python" \
  "$SRC/examples/scope/scope_py.py" 2>&1) || fail "example: $out"
printf '%s\n' "$out" | grep -qE '^labs\+0x[0-9a-f]+ \[libc.so.6\]  ret$' || fail "example: $out"
printf '%s\n' "$out" | grep -qE '^tier WEAK, [1-9][0-9]* instructions' || fail "example: $(printf '%s\n' "$out" | tail -1)"
pass "the Python example from the venv (plugins via ASMSPY_PLUGIN_PATH): $(printf '%s\n' "$out" | tail -1 | cut -d, -f1-2)"

# ---- B: build isolation (offline), nothing recorded: the loader --------------
"$PY" -m venv --without-pip --system-site-packages "$TMP/venvB" || fail "python3 -m venv"
PYTHONDONTWRITEBYTECODE=1 $NET "$TMP/venvB/bin/python" -m pip install -q --no-index \
  --config-settings libdir=none "$SRC/bindings/python" >"$TMP/pipB.log" 2>&1 \
  || fail "pip install --no-index (build isolation): $(tail -5 "$TMP/pipB.log")"
cfg=$(find "$TMP/venvB" -path '*/site-packages/asmspy/_config.py' | head -1)
grep -qF "LIBDIR = None" "$cfg" || fail "libdir=none still recorded: $(cat "$cfg")"
pass "pip install --no-index with build isolation: nothing to fetch, installed"
out=$(cd "$TMP" && "${clean[@]}" LD_LIBRARY_PATH="$libdir" ASMSPY_PLUGIN_PATH="$plugins" \
  VICTIM="$BUILD/tests/scope/libscope_victim.so" "$TMP/venvB/bin/python" -c "$probe" 2>&1) || fail "LD_LIBRARY_PATH: $out"
printf '%s\n' "$out" | sed 's/^/#   /'
printf '%s\n' "$out" | grep -qx "lib=libasmspy.so.0" || fail "not loaded through the loader"
printf '%s\n' "$out" | grep -qE '^result=-595 tier=WEAK insns=[1-9]' || fail "work(-42) region scope: $out"
pass "only LD_LIBRARY_PATH=<destdir libdir>: loaded as libasmspy.so.0, work region captured in tier WEAK"
if "${clean[@]}" "$PY" -c 'import ctypes; ctypes.CDLL("libasmspy.so.0")' 2>/dev/null; then
  echo "# (a libasmspy.so.0 is installed system-wide here: the not-found case is not checked)"
else
  out=$(cd "$TMP" && "${clean[@]}" "$TMP/venvB/bin/python" -c "$probe" 2>&1) || fail "not found must not raise: $out"
  printf '%s\n' "$out" | grep -qE '^result=42 tier=NONE insns=0 reason=libasmspy not loaded' || fail "not found: $out"
  pass "libasmspy nowhere: import works, the scope is a recorded no-op (tier NONE, reason), labs(-42) = 42"
fi
