#!/bin/sh
# run_go.sh: the Go binding's suite (scope-go). Builds the test program and
# the example with the Go toolchain (offline: the binding is a local module
# through `replace`, no external modules; caches under the meson build dir),
# then:
#   1. test_scope_counts.sh <driver> <test>: the callgrind oracle, then the
#      traced checks (region counts, whole window, (addr,1), pinning,
#      goroutine fan-out, thread hop, overhead line);
#   2. the no-plugin invocation (tier NONE, work's result unchanged) and a
#      run with ASMSPY_LIB pointing nowhere;
#   3. the example, its output checked.
# usage: run_go.sh <test-src-dir> <test-build-dir> <source-root> <test_scope_counts.sh> <scope_driver>
# env: GO (the toolchain meson found, may be empty), ASMSPY_LIB, SCOPE_VICTIM_LIB
set -eu
[ $# -eq 5 ] || { echo "usage: $0 <src> <build> <root> <counts.sh> <driver>" >&2; exit 99; }
src=$1 bld=$2 root=$3 counts=$4 driver=$5
go=${GO:-}
[ -n "$go" ] && [ -x "$go" ] || go=$(command -v go 2>/dev/null || true)
[ -n "$go" ] || { echo "SKIP: go not installed (apt-get install golang-go)"; exit 77; }
mkdir -p "$bld"
export GOCACHE="$bld/gocache" GOPATH="$bld/gopath" GOPROXY=off GOFLAGS= GO111MODULE=on \
  GOTOOLCHAIN=local GOTELEMETRY=off CGO_ENABLED=1 CGO_CFLAGS="-I$root/include"
echo "# $("$go" version)"
(cd "$src" && "$go" build -o "$bld/test_scope_go" .) || { echo "FAIL: go build of the test"; exit 1; }
(cd "$root/examples/scope/go" && "$go" build -o "$bld/scope_example_go" .) \
  || { echo "FAIL: go build of the example"; exit 1; }

# A sanitizer build's libasmspy needs the ASan runtime first in the process
# (the Go program is not built with it): preload it, as scope_counts does for
# python3. handle_segv=0: the Go runtime owns SIGSEGV.
run="$bld/test_scope_go.run"
asan_rt=$(ldd "${ASMSPY_LIB:-}" 2>/dev/null | awk '/libasan/ {print $3; exit}')
{
  echo '#!/bin/sh'
  if [ -n "$asan_rt" ]; then
    echo "export LD_PRELOAD='$asan_rt'"
    echo 'export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0:handle_segv=0:allow_user_segv_handler=1"'
  fi
  echo "exec \"$bld/\$(basename \"\$0\" .run)\" \"\$@\""
} >"$run"
chmod +x "$run"
cp "$run" "$bld/scope_example_go.run"

rc=0
sh "$counts" "$driver" "$run" || rc=$?
if [ $rc -eq 77 ]; then
  echo "# no callgrind oracle: the checks without exact counts"
  "$run" || { echo "FAIL: test_scope_go"; exit 1; }
elif [ $rc -ne 0 ]; then
  exit $rc
fi

echo "# running test_scope_go -noplugin"
ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent "$run" -noplugin \
  || { echo "FAIL: the no-plugin run"; exit 1; }
echo "# running test_scope_go -nolib"
env -u LD_LIBRARY_PATH ASMSPY_LIB=/nonexistent/libasmspy.so "$run" -nolib || { echo "FAIL: the no-libasmspy run"; exit 1; }

echo "# running the example"
out=$("$bld/scope_example_go.run" 2>&1) || { printf '%s\n' "$out"; echo "FAIL: the example"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -qE '^labs\(-42\) = 42: [1-9][0-9]* insns, tier WEAK' \
  || { echo "FAIL: the example did not print 'labs(-42) = 42: N insns, tier WEAK'"; exit 1; }
printf '%s\n' "$out" | grep -qE '^labs\+0x[0-9a-f]+ \[libc.so.6\]  ret$' \
  || { echo "FAIL: the example's listing has no labs+0x.. ret line"; exit 1; }
echo "ok   the example: labs traced, tier WEAK"
exit $rc
