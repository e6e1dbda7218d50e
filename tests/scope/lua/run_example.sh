#!/bin/sh
# The Lua example (examples/scope/lua/scope_lua.lua) runs and says what it
# captured: a "labs+0x.. [libc.so.6]  ret" line and "N insns, tier WEAK".
set -eu
command -v lua5.4 >/dev/null 2>&1 || { echo "SKIP: lua5.4 not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
out=$("$here/run_lua.sh" "$here/../../../examples/scope/lua/scope_lua.lua" 2>&1) || {
  printf '%s\n' "$out"; echo "FAIL: the Lua example failed"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -qE '^labs\+0x[0-9a-f]+ \[libc\.so\.6\]  ret$' || { echo "FAIL: no labs ret line"; exit 1; }
printf '%s\n' "$out" | grep -qE '^labs\(-42\) = 42: [1-9][0-9]* insns, tier WEAK' || { echo "FAIL: no 'N insns, tier WEAK' line"; exit 1; }
echo "ok: the Lua example traced labs in tier WEAK"
