#!/bin/sh
# zig_checks.sh: run by test_scope_counts.sh (SCOPE_EXP_* set): the Zig
# test program, then the example (its output checked). In a sanitizer build
# libasmspy needs the ASan runtime first in the process: a Zig binary is
# not built with it, so it is preloaded (as for python3).
set -eu
bin=$SCOPE_ZIG_BIN
asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
if [ -n "$asan_rt" ]; then
  export LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
"$bin/test_scope_zig"
out=$("$bin/scope_zig")
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '^collatz_steps+0x' || { echo "FAIL: example: no collatz_steps listing lines"; exit 1; }
printf '%s\n' "$out" | grep -q '^collatz_steps(6) = 8$' || { echo "FAIL: example: wrong result line"; exit 1; }
printf '%s\n' "$out" | grep -Eq '^collatz_steps\(7\) = 16: [1-9][0-9]* insns, tier WEAK ' || { echo "FAIL: example: no 'N insns, tier WEAK' line"; exit 1; }
echo "ok   example: listing, result and 'N insns, tier WEAK'"
