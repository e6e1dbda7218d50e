#!/bin/sh
# The Java scope suite, run by test_scope_counts.sh (which exports the
# callgrind oracle SCOPE_EXP_*): the binding test, the same counts again with
# the JVM's signal-chaining library (libjsig) preloaded, the no-plugin run and
# the example. JAVA, SCOPE_JAVA_CLASSES, ASMSPY_JNI_LIB, ASMSPY_LIB and
# SCOPE_VICTIM_LIB come from tests/scope/java/meson.build.
set -u
java=${JAVA:-java}
cp=$SCOPE_JAVA_CLASSES
# In a sanitizer build libasmspy and the shim need the ASan runtime first in
# the process: the JVM is not built with it, so preload it. The JVM handles
# SIGSEGV itself (implicit null checks, safepoint polls): ASan must not.
asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
asan_opts="${ASAN_OPTIONS:-}:detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:use_sigaltstack=0"
run() { # [preload] -- java args
  pre=$1; shift
  if [ -n "$asan_rt" ]; then
    LD_PRELOAD="$asan_rt${pre:+ $pre}" ASAN_OPTIONS="$asan_opts" "$java" "$@"
  elif [ -n "$pre" ]; then
    LD_PRELOAD="$pre" "$java" "$@"
  else
    "$java" "$@"
  fi
}
rc=0
echo "# java: $("$java" -version 2>&1 | head -1)"
run "" -cp "$cp" TestScopeJava || rc=1
jsig=$(dirname "$(dirname "$(readlink -f "$(command -v "$java")")")")/lib/libjsig.so
if [ -f "$jsig" ]; then
  echo "# with JVM signal chaining: LD_PRELOAD=$jsig"
  run "$jsig" -cp "$cp" TestScopeJava quick || rc=1
else
  echo "# no libjsig.so next to $java: signal-chaining rerun skipped"
fi
ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent run "" -cp "$cp" TestScopeJava noplugin || rc=1
out=$(run "" -cp "$cp" ScopeJava) || { echo "FAIL example exited non-zero"; rc=1; }
printf '%s\n' "$out" | tail -3
if printf '%s\n' "$out" | grep -Eq '^labs\(-42\) = 42: [1-9][0-9]* insns, tier (WEAK|STRONG), scope ScopeJava\.java:[0-9]+$'; then
  echo "ok   example: labs traced, auto-named"
else
  echo "FAIL example output"; rc=1
fi
exit $rc
