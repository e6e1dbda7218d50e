#!/bin/bash
# SIGKILL of asmspy at random points of 50 captures (attaching, patching,
# capturing, leaving) of one running, call-heavy program: the program must
# survive every time, and once asmspy's tracer has gone its code must equal
# the ELF file's (the supervisor's death makes the tracer leave through its
# ordinary restore). Also: SIGKILL of the tracer process itself — nothing
# can restore then, but the target must still run on (its agent drops the
# events nobody reads) — checked, and said.
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
  tracer=$(pgrep -P "$a" || true)
  kill -9 "$a" 2>/dev/null || true
  wait "$a" 2>/dev/null || true
  if [ -n "$tracer" ]; then wait_gone "$tracer" 1500 || fail "trial $i: the tracer never left"; fi
  kill -0 "$VPID" 2>/dev/null || fail "trial $i: the target died"
  st=$(awk '{print $3}' "/proc/$VPID/stat")
  [ "$st" != T ] && [ "$st" != t ] || fail "trial $i: the target was left stopped ($st)"
  python3 "$CALLS_SRC/code_equals_elf.py" "$VPID" >"$TMP/eq.txt" \
    || fail "trial $i (after $(cat "$TMP/k.err" | tr '\n' ' ')): $(cat "$TMP/eq.txt")"
done
pass "$TRIALS captures killed at random points: the target ran on, code equal to its ELF each time"

# the tracer itself SIGKILLed mid-capture: no restore is possible, the
# target must run on all the same
before=$(rings "$VPID")
"$ASMSPY" --calls "$VPID" -1 >/dev/null 2>"$TMP/k.err" &
a=$!
wait_patched "$VPID" "$before"
tracer=$(pgrep -P "$a" || true)
[ -n "$tracer" ] || fail "no tracer process under the supervisor"
kill -9 "$tracer"
wait "$a" 2>/dev/null || true
sleep 0.5
kill -0 "$VPID" 2>/dev/null || fail "the target died after its tracer was SIGKILLed"
st=$(awk '{print $3}' "/proc/$VPID/stat")
[ "$st" = R ] || [ "$st" = S ] || fail "the target is in state $st after its tracer was SIGKILLed"
pass "tracer SIGKILLed mid-capture: the target runs on (its patches stay: nothing is left to restore them)"
