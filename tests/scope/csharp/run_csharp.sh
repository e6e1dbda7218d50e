#!/bin/sh
# run_csharp.sh: the C# binding's suite (scope-csharp). Compiles the test
# and the example with mcs (plain C#, no project file), runs them with mono:
#   1. test_scope_counts.sh <driver> <test>: the callgrind oracle, then the
#      traced checks (region counts, whole window, (addr,1), thread hop by
#      Task.Run and ContinueWith, HwBackend, overhead line);
#   2. the no-plugin invocation (tier NONE, work's result unchanged) and a
#      run with ASMSPY_LIB pointing nowhere;
#   3. the example, its output checked.
# usage: run_csharp.sh <test-src-dir> <test-build-dir> <source-root> <test_scope_counts.sh> <scope_driver>
# env: MCS, MONO (what meson found, may be empty), ASMSPY_LIB, SCOPE_VICTIM_LIB
set -eu
[ $# -eq 5 ] || { echo "usage: $0 <src> <build> <root> <counts.sh> <driver>" >&2; exit 99; }
src=$1 bld=$2 root=$3 counts=$4 driver=$5
mcs=${MCS:-}
[ -n "$mcs" ] && [ -x "$mcs" ] || mcs=$(command -v mcs 2>/dev/null || true)
mono=${MONO:-}
[ -n "$mono" ] && [ -x "$mono" ] || mono=$(command -v mono 2>/dev/null || true)
[ -n "$mcs" ] || { echo "SKIP: mcs not installed (apt-get install mono-mcs mono-runtime)"; exit 77; }
[ -n "$mono" ] || { echo "SKIP: mono not installed (apt-get install mono-runtime)"; exit 77; }
mkdir -p "$bld"
echo "# $("$mono" --version | head -1)"
"$mcs" -nologo -warnaserror -out:"$bld/test_scope_csharp.exe" "$src/TestScope.cs" "$root/bindings/csharp/AsmTrace.cs" \
  || { echo "FAIL: mcs of the test"; exit 1; }
"$mcs" -nologo -warnaserror -out:"$bld/scope_example_csharp.exe" "$root/examples/scope/csharp/ScopeExample.cs" \
  "$root/bindings/csharp/AsmTrace.cs" || { echo "FAIL: mcs of the example"; exit 1; }

# The runner test_scope_counts.sh runs: mono on the .exe. A sanitizer
# build's libasmspy needs the ASan runtime first in the process (mono is not
# built with it): preload it, as scope_counts does for python3.
asan_rt=$(ldd "${ASMSPY_LIB:-}" 2>/dev/null | awk '/libasan/ {print $3; exit}')
for exe in test_scope_csharp scope_example_csharp; do
  {
    echo '#!/bin/sh'
    if [ -n "$asan_rt" ]; then
      echo "export LD_PRELOAD='$asan_rt'"
      echo 'export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0:handle_segv=0:allow_user_segv_handler=1"'
    fi
    echo "exec \"$mono\" \"$bld/$exe.exe\" \"\$@\""
  } >"$bld/$exe.run"
  chmod +x "$bld/$exe.run"
done
run="$bld/test_scope_csharp.run"

rc=0
sh "$counts" "$driver" "$run" || rc=$?
if [ $rc -eq 77 ]; then
  echo "# no callgrind oracle: the checks without exact counts"
  "$run" || { echo "FAIL: test_scope_csharp"; exit 1; }
elif [ $rc -ne 0 ]; then
  exit $rc
fi

echo "# running test_scope_csharp -noplugin"
ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent "$run" -noplugin \
  || { echo "FAIL: the no-plugin run"; exit 1; }
echo "# running test_scope_csharp -nolib"
env -u LD_LIBRARY_PATH ASMSPY_LIB=/nonexistent/libasmspy.so "$run" -nolib \
  || { echo "FAIL: the no-libasmspy run"; exit 1; }

echo "# running the example"
out=$("$bld/scope_example_csharp.run" 2>&1) || { printf '%s\n' "$out"; echo "FAIL: the example"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -qE '^labs\(-42\) = 42: [1-9][0-9]* insns, tier WEAK' \
  || { echo "FAIL: the example did not print 'labs(-42) = 42: N insns, tier WEAK'"; exit 1; }
printf '%s\n' "$out" | grep -qE '^labs\+0x[0-9a-f]+ \[libc.so.6\]  ret$' \
  || { echo "FAIL: the example's listing has no labs+0x.. ret line"; exit 1; }
echo "ok   the example: labs traced, tier WEAK"
exit $rc
