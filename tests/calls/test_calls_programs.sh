#!/bin/bash
# What real programs do, under a call capture attached to the running
# process: calls_stress (threads created and joined during the capture,
# longjmp out of patched frames, a signal handler calling a patched
# function, fork, recursion) and calls_cxx (C++ exceptions thrown through
# patched frames, caught, rethrown). Each prints a checksum of its own work:
# it must be the same with and without the capture, the program must
# finish, and afterwards its code must equal the ELF's (every patched byte
# put back, in the executable and in the unwinder's libraries).
. "$(dirname "$0")/lib.sh"
require_entrypatch

plain_checksum() { # NAME ARGS... -> the checksum of a run without asmspy
  "$CALLS_DIR/$1" "${@:2}" | awk '/^checksum/ {print $2}'
}

# captured NAME ROUNDS MODE: the checksum of a run under `asmspy --MODE`
# attached while it waits; also checks the code after asmspy left, while
# the program still runs (it waits a second time for that: SIGUSR1 again is
# not needed, the check runs right after asmspy ends)
captured() {
  local name=$1 rounds=$2 mode=$3
  start_waiting "$name" "$rounds"
  before=$(rings "$VPID")
  "$ASMSPY" --"$mode" "$VPID" -1 >"$TMP/$name.$mode.txt" 2>"$TMP/$name.$mode.err" &
  local a=$!
  wait_patched "$VPID" "$before"
  kill -USR1 "$VPID"
  if ! wait_gone "$VPID" 3000; then
    kill -9 "$a" 2>/dev/null || true
    fail "$name did not finish under --$mode: $(tail -3 "$TMP/$name.$mode.err")"
  fi
  wait "$VPID" || fail "$name exited non-zero under --$mode: $(cat "$VOUT")"
  wait "$a" || true
  checksum_of "$VOUT"
}

for name in calls_stress calls_cxx; do
  [ -x "$CALLS_DIR/$name" ] || { echo "# $name not built (no C++ compiler)"; continue; }
  rounds=12
  [ "$name" = calls_cxx ] && rounds=300
  want=$(plain_checksum "$name" "$rounds")
  [ -n "$want" ] || fail "$name printed no checksum on its own"
  for mode in calls graph tree; do
    got=$(captured "$name" "$rounds" "$mode")
    [ "$got" = "$want" ] || fail "$name --$mode: checksum $got, without asmspy $want"
    grep -q "functions patched" "$TMP/$name.$mode.err" || fail "$name --$mode patched nothing"
  done
  pass "$name: checksum $want with and without --calls / --graph / --tree attached"
done
grep -q "unwound" "$TMP/calls_stress.calls.txt" \
  || fail "--calls showed no frame left by longjmp as unwound"
pass "--calls marks the frames longjmp left as unwound"
# tail_a ends in `jmp tail_b`: tail_b nests under tail_a, both end together
grep -A1 "tail_a() {" "$TMP/calls_stress.calls.txt" | grep -q "^ *[0-9.]* us \[ *[0-9]*\] |  *tail_b();" \
  || { grep -A2 "tail_a" "$TMP/calls_stress.calls.txt" | head; fail "--calls: no tail_b() under tail_a()"; }
pass "--calls follows a tail call (tail_a jumps to tail_b: nested under it)"
if [ -x "$CALLS_DIR/calls_cxx" ]; then
  grep -q "thrower()\|thrower() {" "$TMP/calls_cxx.calls.txt" || fail "--calls never saw thrower"
  pass "--calls followed calls_cxx through its throws"
fi

# the code is put back while the program goes on: check it mid-run (the
# program runs long enough; it is killed once checked)
check_restored() { # NAME ROUNDS [MODULE...]
  local name=$1 rounds=$2; shift 2
  start_waiting "$name" "$rounds"
  before=$(rings "$VPID")
  timeout -s INT 30 "$ASMSPY" --calls "$VPID" 50 >/dev/null 2>"$TMP/r.err" &
  local a=$!
  wait_patched "$VPID" "$before"
  kill -USR1 "$VPID"
  wait "$a" || true
  kill -0 "$VPID" 2>/dev/null || fail "$name is gone right after the capture: $(cat "$VOUT")"
  python3 "$CALLS_SRC/code_equals_elf.py" "$VPID" >"$TMP/eq.txt" || fail "$(cat "$TMP/eq.txt")"
  for m in "$@"; do
    if grep -q "$m" "/proc/$VPID/maps"; then
      python3 "$CALLS_SRC/code_equals_elf.py" "$VPID" "$m" >"$TMP/eq.txt" || fail "$(cat "$TMP/eq.txt")"
    fi
  done
  sleep 0.3
  kill -0 "$VPID" 2>/dev/null || fail "$name died after the capture: $(cat "$VOUT")"
  kill -9 "$VPID"
  pass "$name: every executable byte equals the file after asmspy left; it ran on"
}
check_restored calls_stress 100000 libc.so
[ -x "$CALLS_DIR/calls_cxx" ] && check_restored calls_cxx 100000000 libgcc_s libstdc++
exit 0
