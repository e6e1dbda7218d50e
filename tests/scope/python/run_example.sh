#!/bin/sh
# The Python example (examples/scope/scope_py.py) in the build tree: a
# "labs+0x.. [libc.so.6]  ret" line and "tier WEAK, N instructions".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$("$here/run_python.sh" "$here/../../../examples/scope/scope_py.py" 2>&1) || {
  rc=$?; printf '%s\n' "$out"; [ $rc -eq 77 ] && exit 77; echo "FAIL: the Python example failed"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -qE '^labs\+0x[0-9a-f]+ \[libc\.so\.6\]  ret$' || { echo "FAIL: no labs ret line"; exit 1; }
printf '%s\n' "$out" | grep -qE '^tier WEAK, [1-9][0-9]* instructions' || { echo "FAIL: no 'tier WEAK, N instructions' line"; exit 1; }
echo "ok: the Python example traced labs in tier WEAK"
