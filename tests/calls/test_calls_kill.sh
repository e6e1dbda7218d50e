#!/bin/bash
# SIGKILL of asmspy at random points of 50 captures (attaching, patching,
# capturing, leaving) of one running, call-heavy program: the program must
# survive every time, and once asmspy's tracer has gone its code must equal
# the ELF file's (the supervisor's death makes the tracer leave through its
# ordinary restore). Also: SIGKILL of the tracer process itself — its
# supervisor restores the bytes from the undo journal they share.
. "$(dirname "$0")/lib.sh"
require_entrypatch
start_waiting calls_workload 9000000000000000000 # runs until killed
kill -USR1 "$VPID"
TRIALS=${CALLS_KILL_TRIALS:-50}
for i in $(seq 1 "$TRIALS"); do
  before=$(rings "$VPID")
  "$ASMSPY" --calls "$VPID" -1 >/dev/null 2>"$TMP/k.err" &
  a=$!
  # 0-400 ms: from the attach through the capture
  sleep "0.$(printf '%03d' $((RANDOM % 400)))"
  kill -9 "$a" 2>/dev/null || true
  wait "$a" 2>/dev/null || true
  # the tracer (the supervisor's child, same command line) may have been
  # forked a moment before the kill: wait for every one of them to leave
  j=0
  while pgrep -f "asmspy --calls $VPID " >/dev/null; do
    sleep 0.02; j=$((j + 1))
    [ $j -lt 1500 ] || fail "trial $i: the tracer never left"
  done
  kill -0 "$VPID" 2>/dev/null || fail "trial $i: the target died"
  st=$(awk '{print $3}' "/proc/$VPID/stat")
  [ "$st" != T ] && [ "$st" != t ] || fail "trial $i: the target was left stopped ($st)"
  python3 "$CALLS_SRC/code_equals_elf.py" "$VPID" >"$TMP/eq.txt" \
    || fail "trial $i (after $(cat "$TMP/k.err" | tr '\n' ' ')): $(cat "$TMP/eq.txt")"
done
pass "$TRIALS captures killed at random points: the target ran on, code equal to its ELF each time"

# the tracer process itself SIGKILLed mid-capture (it cannot leave): its
# supervisor puts the patched bytes back from the undo journal they share
before=$(rings "$VPID")
"$ASMSPY" --calls "$VPID" -1 >/dev/null 2>"$TMP/k.err" &
a=$!
wait_patched "$VPID" "$before"
tracer=$(pgrep -P "$a" || true)
[ -n "$tracer" ] || fail "no tracer process under the supervisor"
kill -9 "$tracer"
wait "$a" 2>/dev/null || true
kill -0 "$VPID" 2>/dev/null || fail "the target died after its tracer was SIGKILLed"
st=$(awk '{print $3}' "/proc/$VPID/stat")
[ "$st" = R ] || [ "$st" = S ] || fail "the target is in state $st after its tracer was SIGKILLed"
grep -q "put back [0-9]* patched place" "$TMP/k.err" || fail "the supervisor did not say it restored: $(cat "$TMP/k.err")"
python3 "$CALLS_SRC/code_equals_elf.py" "$VPID" >"$TMP/eq.txt" || fail "after the tracer's SIGKILL: $(cat "$TMP/eq.txt")"
sleep 0.3
kill -0 "$VPID" 2>/dev/null || fail "the target died after the supervisor restored it"
pass "tracer SIGKILLed mid-capture: the supervisor put every patched byte back, the target runs on"
