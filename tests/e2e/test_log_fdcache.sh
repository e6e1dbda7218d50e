#!/bin/bash
# --log names the right file every time an fd number is reused (the fd
# description cache, host/fdinfo.c, flushed by the seam at the syscalls that
# change fd tables): victim_fdreuse reuses fd 3 by close+open, dup, dup2,
# fcntl(F_DUPFD), in a forked child, in another thread, after a rename and
# after an exec, and writes which file each marker's writes must name.
# Count-based: every marker's two writes are in the log, under the right
# name; and the cache did serve some of them (hits > 0), in both syscall-stop
# paths (PTRACE_GET_SYSCALL_INFO and the entry/exit toggle fallback).
. "$(dirname "$0")/lib.sh"
require_backend ptrace

check() { # check LABEL [ENV=VAL...]
  local label=$1; shift
  local d="$TMP/$label"
  mkdir -p "$d"
  env ASMSPY_DEBUG_FD_CACHE=1 "$@" "$ASMSPY" --launch --follow log -1 -- \
    "$VICTIM_DIR/victim_fdreuse" "$d" "$d/expect" >"$d/log.txt" 2>"$d/err" \
    || fail "$label: --log failed: $(cat "$d/err")"
  [ "$(grep -c '' "$d/expect")" -ge 12 ] || fail "$label: the victim stopped early: $(cat "$d/expect")"
  local bad=0 m path n
  while read -r m path; do
    n=$(grep -cF "(fd=3<$path>, \"$m\", " "$d/log.txt" || true)
    if [ "$n" != 2 ]; then
      echo "$label: marker $m: $n of 2 writes name $path:" >&2
      grep -F "\"$m\"" "$d/log.txt" >&2 || true
      bad=$((bad + 1))
    fi
  done <"$d/expect"
  [ "$bad" = 0 ] || fail "$label: $bad markers named the wrong file"
  local hits
  hits=$(sed -n 's/^\[fdcache\] \([0-9]*\) hits.*/\1/p' "$d/err" | head -1)
  [ -n "$hits" ] && [ "$hits" -gt 0 ] || fail "$label: the fd cache served nothing: $(grep fdcache "$d/err")"
  pass "$label: $(grep -c '' "$d/expect") markers, every write names its file ($hits cache hits)"
}
check info
check toggle ASMSPY_NO_SYSCALL_INFO=1
