#!/bin/bash
# Stopping a region session (--trace) at an arbitrary moment never kills the
# target. The race: a thread hits the entry int3 just as the session is
# stopped, before the tracer collects that stop; the backend restores the
# original byte and detaches, and the pending SIGTRAP (rip one byte past
# the restored instruction) used to be delivered: "Trace/breakpoint trap".
# The seam now rewinds rip onto the restored instruction and swallows the
# trap (host/ptrace_seam.c rewind_our_breakpoint). Without that fix this
# killed the victim in ~1 of 12 trials here; the test runs TRIALS of them.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

TRIALS=${TRIALS:-20}
for i in $(seq 1 "$TRIALS"); do
  start_victim victim_loop
  pid=$VICTIM_PID
  "$ASMSPY" --trace "$pid" work -1 >"$TMP/t.$i.txt" 2>"$TMP/t.$i.err" &
  tracer=$!
  # spread the stop over the first ~0.5 s: some stops land mid-sample, some
  # while the entry breakpoint is armed
  sleep "0.$((RANDOM % 5 + 1))$((RANDOM % 10))"
  kill -INT "$tracer" 2>/dev/null || true
  wait "$tracer" || fail "trial $i: asmspy exited $? ($(cat "$TMP/t.$i.err"))"
  sleep 0.05
  kill -0 "$pid" 2>/dev/null || fail "trial $i: the victim died after the stop ($(cat "$TMP/victim_loop.err"))"
  assert_runs "$pid"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
pass "$TRIALS stops of --trace at arbitrary moments: the victim survived every one"
