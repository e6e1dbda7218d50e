#!/bin/bash
# test_install: a RELOCATED install works with no environment help. The
# build is installed (meson install --destdir) and the tree then moved to
# another directory, so neither the configured prefix nor the destdir is
# where the files end up; with LD_LIBRARY_PATH, ASMSPY_LIB and
# ASMSPY_PLUGIN_PATH unset, from that tree:
#   1. asmspy --backends finds its plugins beside itself (their paths are in
#      the tree) and asmspy records a live victim;
#   2. asmtrace-check (linked to libasmspy.so: its $ORIGIN rpath) validates it;
#   3. the out-of-tree example view (examples/view_plugin) builds against the
#      installed headers and runs in the installed asmspy;
#   4. the Python, Java and Node scope examples trace labs() in tier WEAK or
#      STRONG (each skipped with its reason when the toolchain or the binding
#      is missing), and with no plugin reachable print tier NONE and the reason.
# Exit 77 only when nothing could run.
# usage: test_install.sh <build-root> <source-root> <victim_loop>
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; RAN=$((RAN + 1)); }
note() { echo "skip: $*"; }
[ $# -eq 3 ] || { echo "usage: $0 <build-root> <source-root> <victim_loop>" >&2; exit 99; }
BUILD=$1 SRC=$2 VICTIM=$3
RAN=0
TMP=$(mktemp -d /tmp/asmspy-install.XXXXXX)
VPID=
cleanup() { [ -n "$VPID" ] && { kill "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; }; rm -rf "$TMP"; }
trap cleanup EXIT
unset LD_LIBRARY_PATH ASMSPY_LIB ASMSPY_PLUGIN_PATH ASMSPY_PLUGIN_PATH_ONLY ASMSPY_JNI_LIB \
  ASMSPY_NODE_ADDON PYTHONPATH NODE_PATH
export ASMSPY_SCOPE_EMIT=1

meson install -C "$BUILD" --no-rebuild --destdir "$TMP/dest" >"$TMP/install.log" 2>&1 ||
  fail "meson install: $(tail -5 "$TMP/install.log")"
exe=$(find "$TMP/dest" -path '*/bin/asmspy' -type f | head -1)
[ -n "$exe" ] || fail "no bin/asmspy installed"
mv "$(dirname "$(dirname "$exe")")" "$TMP/p" || fail "cannot move the installed tree"
P=$TMP/p
rm -rf "$TMP/dest"
cd "$TMP" || exit 99
pc=$(find "$P" -name asmspy.pc | head -1)
LIBDIR=$(dirname "$(dirname "$pc")")
echo "# installed, then moved to $P (libdir ${LIBDIR#"$P"/})"
asan_rt=$(ldd "$LIBDIR/libasmspy.so.0" 2>/dev/null | awk '/libasan/ {print $3; exit}')
if [ -n "$asan_rt" ]; then # a sanitizer build: its runtime first in every process
  export LD_PRELOAD=$asan_rt ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

# 1. asmspy: its plugins, from the moved tree
"$P/bin/asmspy" --backends --json >"$TMP/backends.json" 2>"$TMP/err" || fail "asmspy --backends: $(cat "$TMP/err")"
grep -o '"path":"[^"]*"' "$TMP/backends.json" >"$TMP/paths"
[ -s "$TMP/paths" ] || fail "the installed asmspy found no plugin: $(cat "$TMP/backends.json")"
bad=$(grep -v "\"path\":\"$LIBDIR/asmspy/plugins/" "$TMP/paths") && fail "plugins loaded from outside the moved tree: $bad"
grep -Eq '"name":"singlestep","kind":"backend"[^}]*"status":"usable"' "$TMP/backends.json" ||
  fail "singlestep is not usable from the installed asmspy: $(grep singlestep "$TMP/backends.json")"
pass "asmspy --backends: $(wc -l <"$TMP/paths") plugins, all from $P"

"$VICTIM" >"$TMP/victim.out" 2>&1 &
VPID=$!
for _ in $(seq 100); do [ -s "$TMP/victim.out" ] && break; sleep 0.05; done
"$P/bin/asmspy" --stream "$VPID" 300 --record="$TMP/s.asmtrace" >/dev/null 2>"$TMP/err" ||
  fail "installed asmspy --stream: $(cat "$TMP/err")"
# 2. asmtrace-check: libasmspy.so through its rpath
ldd "$P/bin/asmtrace-check" | grep -q "libasmspy.so.0 => $P/bin/../${LIBDIR#"$P"/}/" ||
  fail "asmtrace-check does not resolve libasmspy in the tree: $(ldd "$P/bin/asmtrace-check" | grep asmspy)"
"$P/bin/asmtrace-check" "$TMP/s.asmtrace" >"$TMP/check.out" 2>&1 || fail "asmtrace-check: $(cat "$TMP/check.out")"
grep -q 'valid: mode=stream' "$TMP/check.out" || fail "asmtrace-check: $(cat "$TMP/check.out")"
pass "installed asmspy recorded --stream; asmtrace-check: $(cat "$TMP/check.out")"

# 3. the out-of-tree view, built against the installed headers
if command -v cc >/dev/null 2>&1; then
  mkdir -p "$TMP/oot"
  cc -O1 -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -I"$P/include" \
    -o "$TMP/oot/asmspy_hello.so" "$SRC/examples/view_plugin/hello_view.c" 2>"$TMP/err" ||
    fail "hello_view.c against the installed headers: $(cat "$TMP/err")"
  ASMSPY_PLUGIN_PATH=$TMP/oot timeout 60 "$P/bin/asmspy" --hello "$VPID" 50 >"$TMP/hello.out" 2>"$TMP/err" ||
    fail "installed asmspy --hello: $(cat "$TMP/err")"
  grep -Eq '^hello: saw 50 instructions in [1-9][0-9]* functions$' "$TMP/hello.out" ||
    fail "--hello: $(cat "$TMP/hello.out")"
  pass "the out-of-tree view: $(cat "$TMP/hello.out")"
else
  note "out-of-tree view: no C compiler"
fi
kill "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=

# 4. the scope examples from the tree, no ASMSPY_LIB
traced='tier (WEAK|STRONG)'
# python
pydir=$P/share/asmspy/python
if ! command -v python3 >/dev/null 2>&1; then
  note "Python: python3 missing"
elif [ ! -d "$pydir/asmspy" ]; then
  note "Python: the module was not installed"
else
  PYTHONPATH=$pydir python3 "$SRC/examples/scope/scope_py.py" >"$TMP/py.out" 2>&1 || fail "Python example: $(tail -3 "$TMP/py.out")"
  grep -Eq "^$traced, [1-9][0-9]* instructions" "$TMP/py.out" || fail "Python example: $(tail -3 "$TMP/py.out")"
  ASMSPY_PLUGIN_PATH_ONLY=1 PYTHONPATH=$pydir python3 "$SRC/examples/scope/scope_py.py" >"$TMP/py0.out" 2>&1 ||
    fail "Python example, no plugins: $(tail -3 "$TMP/py0.out")"
  grep -q '^tier NONE, 0 instructions' "$TMP/py0.out" && grep -q '^not captured: .*ASMSPY_PLUGIN_PATH' "$TMP/py0.out" ||
    fail "Python example with no plugin does not say why: $(tail -3 "$TMP/py0.out")"
  pass "Python example: $(grep -E "^tier" "$TMP/py.out"); no plugin: $(grep '^not captured' "$TMP/py0.out" | cut -c1-60)..."
fi
# java
jar=$P/share/asmspy/java/asmspy.jar
if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  note "Java: javac/java missing"
elif [ ! -f "$jar" ] || ! ls "$LIBDIR"/libasmspy_jni.so >/dev/null 2>&1; then
  note "Java: the binding was not installed (no JDK when the build was configured)"
else
  javac -cp "$jar" -d "$TMP/jcls" "$SRC/examples/scope/java/ScopeJava.java" 2>"$TMP/err" || fail "javac ScopeJava: $(cat "$TMP/err")"
  java -cp "$jar:$TMP/jcls" ScopeJava >"$TMP/java.out" 2>&1 || fail "Java example: $(tail -3 "$TMP/java.out")"
  grep -Eq "^labs\(-42\) = 42: [1-9][0-9]* insns, $traced" "$TMP/java.out" || fail "Java example: $(tail -3 "$TMP/java.out")"
  pass "Java example (shim found beside the jar): $(grep '^labs(-42)' "$TMP/java.out")"
fi
# node
ndir=$P/share/asmspy/node
if ! command -v node >/dev/null 2>&1; then
  note "Node: node missing"
elif [ ! -f "$ndir/asmspy/asmspy_node.node" ]; then
  note "Node: the addon was not installed (no node headers when the build was configured)"
else
  NODE_PATH=$ndir node "$SRC/examples/scope/node/scope_node.js" >"$TMP/node.out" 2>&1 || fail "Node example: $(tail -3 "$TMP/node.out")"
  grep -Eq "^labs\(-42\) = 42: [1-9][0-9]* insns, $traced" "$TMP/node.out" || fail "Node example: $(tail -3 "$TMP/node.out")"
  ASMSPY_PLUGIN_PATH_ONLY=1 NODE_PATH=$ndir node "$SRC/examples/scope/node/scope_node.js" >"$TMP/node0.out" 2>&1 ||
    fail "Node example, no plugins: $(tail -3 "$TMP/node0.out")"
  grep -q '^not captured: ' "$TMP/node0.out" || fail "Node example with no plugin does not say why: $(cat "$TMP/node0.out")"
  pass "Node example (addon rpath): $(grep '^labs(-42)' "$TMP/node.out")"
fi
[ "$RAN" -gt 0 ] || { echo "SKIP: nothing could run"; exit 77; }
echo "PASS ($RAN parts)"
