#!/bin/sh
# test_out_of_tree: a third party can build a plugin from the INSTALLED
# header with nothing but cc + pkg-config, and the host loads and runs it.
#
#   1. meson install --destdir $TMP/dest        (from the build dir)
#   2. build examples/view_plugin with PKG_CONFIG_PATH into the destdir's
#      pkgconfig dir and PKG_CONFIG_SYSROOT_DIR=$TMP/dest (the .pc says
#      prefix=/usr/local; the sysroot makes its -I point into the destdir)
#   3. copy asmspy_hello.so into $TMP/plugins and, with
#      ASMSPY_PLUGIN_PATH=$TMP/plugins, run the BUILD TREE's asmspy:
#        asmspy --backends          lists `hello` usable
#        asmspy --hello <pid> 50    prints "hello: saw 50 instructions in M functions"
#   4. its typed record (the view's own schema, emit_record): --record of a
#      run is valid for asmtrace-check, and valid BECAUSE of the schema: the
#      same recording with "insns":"x" is rejected naming hello.insns (and,
#      with the plugin off the path, accepted as an unknown type); --replay
#      prints the live text
#
# usage: test_out_of_tree.sh <build-root> <asmspy> <victim_loop> <example-src-dir> <asmtrace-check>
# exit: 0 pass, 1 fail, 77 skip (pkg-config missing), 99 harness problem
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
hard() { echo "ERROR (harness): $*" >&2; exit 99; }

[ $# -eq 5 ] || hard "usage: $0 <build-root> <asmspy> <victim_loop> <example-src-dir> <asmtrace-check>"
BUILD=$1
ASMSPY=$2
VICTIM=$3
EXAMPLE=$4
CHECK=$5
[ -x "$CHECK" ] || hard "asmtrace-check '$CHECK' is not executable"
[ -d "$BUILD" ] || hard "build root '$BUILD' is not a directory"
[ -x "$ASMSPY" ] || hard "asmspy '$ASMSPY' is not executable"
[ -x "$VICTIM" ] || hard "victim '$VICTIM' is not executable"
[ -f "$EXAMPLE/hello_view.c" ] || hard "no hello_view.c in '$EXAMPLE'"

if ! command -v pkg-config >/dev/null 2>&1; then
  echo "SKIP: pkg-config not found: cannot build a plugin the way a third party would"
  exit 77
fi
MESON=${MESON:-meson}
command -v "$MESON" >/dev/null 2>&1 || hard "meson not found on PATH (set MESON=)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || hard "C compiler '$CC' not found"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/asmspy-oot.XXXXXX")
VPID=
cleanup() {
  rc=$?
  if [ -n "$VPID" ]; then
    kill "$VPID" 2>/dev/null || true
    wait "$VPID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# ---- 1. install into a throwaway DESTDIR --------------------------------
DEST=$TMP/dest
echo "# meson install -C $BUILD --destdir $DEST"
"$MESON" install -C "$BUILD" --no-rebuild --quiet --destdir "$DEST" >"$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log" >&2; fail "meson install --destdir failed"; }
PC=$(find "$DEST" -name asmspy.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$PC" ] || fail "meson install put no asmspy.pc into $DEST"
HDR=$(find "$DEST" -path '*/include/asmspy/plugin.h' | head -n 1)
[ -n "$HDR" ] || fail "meson install put no include/asmspy/plugin.h into $DEST"
echo "# installed: ${PC#"$DEST"} ${HDR#"$DEST"}"

# ---- 2. build the example as a third party would ------------------------
PKG_CONFIG_PATH=$(dirname "$PC")
PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH # only the destdir's .pc files, not the system's
PKG_CONFIG_SYSROOT_DIR=$DEST
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
CFLAGS_ASMSPY=$(pkg-config --cflags asmspy) || fail "pkg-config --cflags asmspy failed"
echo "# pkg-config --cflags asmspy: $CFLAGS_ASMSPY"
case "$CFLAGS_ASMSPY" in
  *"-I$DEST/"*) ;;
  *) fail "pkg-config's -I does not point into the destdir ($DEST): '$CFLAGS_ASMSPY'" ;;
esac

SRC=$TMP/src # never build inside the source tree
mkdir -p "$SRC"
cp "$EXAMPLE/hello_view.c" "$EXAMPLE/Makefile" "$SRC/"
STRICT="-O2 -g -std=gnu11 -Wall -Wextra -Werror"
if command -v make >/dev/null 2>&1; then
  echo "# make -C $SRC (examples/view_plugin/Makefile)"
  make -s -C "$SRC" CC="$CC" CFLAGS="$STRICT" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; fail "building the example with its Makefile failed"; }
else
  echo "# make not found: the Makefile's compile line by hand"
  # shellcheck disable=SC2086 # word splitting of the flags is intended
  (cd "$SRC" && "$CC" $STRICT -shared -fPIC -fvisibility=hidden $CFLAGS_ASMSPY \
    -o asmspy_hello.so hello_view.c) >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; fail "building the example failed"; }
fi
[ -f "$SRC/asmspy_hello.so" ] || fail "the build produced no asmspy_hello.so"

if command -v nm >/dev/null 2>&1; then
  EXPORTS=$(nm -D --defined-only "$SRC/asmspy_hello.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}')
  [ "$EXPORTS" = "asmspy_plugin_entry" ] ||
    fail "the plugin should export only asmspy_plugin_entry, exports: $(echo "$EXPORTS" | tr '\n' ' ')"
  if nm -D --undefined-only "$SRC/asmspy_hello.so" | grep -q 'asmspy_'; then
    fail "the plugin links host symbols (it must use the host API table only)"
  fi
  echo "# exports exactly asmspy_plugin_entry, imports no asmspy_ symbol"
fi

PLUGDIR=$TMP/plugins
mkdir -p "$PLUGDIR"
cp "$SRC/asmspy_hello.so" "$PLUGDIR/"
ASMSPY_PLUGIN_PATH=$PLUGDIR
export ASMSPY_PLUGIN_PATH
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

# ---- 3a. the registry lists it --------------------------------------------
"$ASMSPY" --backends >"$TMP/backends.txt" 2>&1 ||
  { cat "$TMP/backends.txt" >&2; fail "asmspy --backends exited non-zero"; }
cat "$TMP/backends.txt"
grep -Eq '^view +hello +1\.[0-9]+ +usable( |$)' "$TMP/backends.txt" ||
  fail "asmspy --backends does not list view 'hello' as usable"
echo "ok   --backends lists view hello usable"

# ---- 3b. it runs against a live process ------------------------------------
"$VICTIM" >"$TMP/victim.out" 2>&1 &
VPID=$!
i=0
while [ ! -s "$TMP/victim.out" ]; do
  i=$((i + 1))
  [ $i -le 100 ] || fail "victim_loop printed no pid within 5 s"
  kill -0 "$VPID" 2>/dev/null || fail "victim_loop exited early: $(cat "$TMP/victim.out")"
  sleep 0.05
done
TPID=$(head -n 1 "$TMP/victim.out")
[ "$TPID" = "$VPID" ] || fail "victim_loop printed pid '$TPID', expected $VPID"

RUN="$ASMSPY --hello $TPID 50"
echo "# $RUN"
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 60"
set +e
# shellcheck disable=SC2086
$TO "$ASMSPY" --hello "$TPID" 50 >"$TMP/hello.out" 2>"$TMP/hello.err"
RC=$?
set -e
cat "$TMP/hello.out"
if [ $RC -ne 0 ]; then
  cat "$TMP/hello.err" >&2
  scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo '?')
  fail "'$RUN' exited $RC (yama ptrace_scope=$scope, uid=$(id -u))"
fi
LINE=$(grep -E '^hello: saw [0-9]+ instructions in [0-9]+ functions$' "$TMP/hello.out" || true)
[ -n "$LINE" ] || { cat "$TMP/hello.err" >&2; fail "no 'hello: saw N instructions in M functions' line"; }
N=$(echo "$LINE" | sed -E 's/^hello: saw ([0-9]+) .*/\1/')
M=$(echo "$LINE" | sed -E 's/.* in ([0-9]+) functions$/\1/')
[ "$N" -eq 50 ] || fail "expected N=50 (s->max honoured), got: $LINE"
[ "$M" -ge 1 ] || fail "expected at least one named function, got: $LINE"
kill -0 "$VPID" 2>/dev/null || fail "the victim died while traced"
echo "ok   $LINE"

# ---- 4. its typed record: recorded, validated by its schema, replayed -------
REC=$TMP/hello.asmtrace
# shellcheck disable=SC2086
$TO "$ASMSPY" --hello "$TPID" 20 --record="$REC" >"$TMP/hello2.out" 2>"$TMP/hello2.err" ||
  { cat "$TMP/hello2.err" >&2; fail "--hello --record exited non-zero"; }
grep -q '"type":"hello","seq":[0-9]*,"insns":20,"functions":[0-9]*,"unknown":[0-9]*,"human":"hello: saw 20 instructions' "$REC" ||
  fail "the recording has no typed hello record: $(grep hello "$REC" || true)"
"$CHECK" "$REC" >"$TMP/check.out" 2>&1 || { cat "$TMP/check.out" >&2; fail "asmtrace-check rejected the hello recording"; }
grep -q 'valid: mode=hello.*hello=1' "$TMP/check.out" || fail "asmtrace-check summary: $(cat "$TMP/check.out")"
echo "ok   asmtrace-check: $(cat "$TMP/check.out")"
sed 's/"insns":20,/"insns":"x",/' "$REC" >"$TMP/bad.asmtrace"
cmp -s "$REC" "$TMP/bad.asmtrace" && hard "could not make a bad hello record"
set +e
"$CHECK" "$TMP/bad.asmtrace" >"$TMP/bad.out" 2>&1
RC=$?
set -e
[ $RC -eq 2 ] || fail "asmtrace-check accepted \"insns\":\"x\" (exit $RC): $(cat "$TMP/bad.out")"
grep -q 'hello.insns must be an integer >= 0' "$TMP/bad.out" || fail "the rejection does not name hello.insns: $(cat "$TMP/bad.out")"
echo "ok   a hello record with a string insns is rejected: $(cat "$TMP/bad.out")"
# without the plugin nobody declares `hello`: an unknown type, checked for seq only
ASMSPY_PLUGIN_PATH=$TMP/empty "$CHECK" "$TMP/bad.asmtrace" >"$TMP/bad2.out" 2>&1 ||
  fail "without the hello plugin the record should be an unknown type: $(cat "$TMP/bad2.out")"
echo "ok   without the plugin, the same line is an unknown type (the schema is what checks it)"
"$ASMSPY" --replay "$REC" >"$TMP/replay.out" 2>"$TMP/replay.err" ||
  { cat "$TMP/replay.err" >&2; fail "--replay of the hello recording failed"; }
cmp -s "$TMP/hello2.out" "$TMP/replay.out" ||
  fail "--replay differs from the live text: $(diff "$TMP/hello2.out" "$TMP/replay.out" | head -5)"
echo "ok   --replay prints the live text"
echo "PASS"
