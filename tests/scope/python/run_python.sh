#!/bin/sh
# run_python.sh script.py [args...]: run a Python scope test or example with
# the binding from the source tree (PYTHONPATH, ASMSPY_LIB from meson). In a
# sanitizer build libasmspy needs the ASan runtime first in the process:
# python3 is not built with it, so it is preloaded (as test_scope_counts.sh does).
set -eu
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
asan_rt=""
if [ -n "${ASMSPY_LIB:-}" ]; then
  asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
fi
if [ -n "$asan_rt" ]; then
  LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec python3 "$@"
fi
exec python3 "$@"
