#!/bin/sh
# run_lua.sh [script.lua] [args...]: run a Lua scope test or example with
# the binding on the load path (LUA_CPATH from meson: the built asmspy_lua.so; ASMSPY_LIB is
# read here only to find a sanitizer runtime: the module is linked to libasmspy).
# Default script: test_scope_lua.lua beside this file (test_scope_counts.sh
# calls this with no arguments, the callgrind oracle's SCOPE_EXP_* set).
# In a sanitizer build libasmspy needs the ASan runtime first in the
# process: lua5.4 is not built with it, so it is preloaded (as for python3).
set -eu
command -v lua5.4 >/dev/null 2>&1 || { echo "SKIP: lua5.4 not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then set -- "$here/test_scope_lua.lua"; fi
asan_rt=""
if [ -n "${ASMSPY_LIB:-}" ]; then
  asan_rt=$(ldd "$ASMSPY_LIB" 2>/dev/null | awk '/libasan/ {print $3; exit}')
fi
if [ -n "$asan_rt" ]; then
  LD_PRELOAD="$asan_rt" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec lua5.4 "$@"
fi
exec lua5.4 "$@"
