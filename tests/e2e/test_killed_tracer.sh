#!/bin/bash
# A SIGKILLed asmspy leaves its target running: the session runs in a
# supervised child that detaches (two-phase) when the supervisor dies.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

kill_midway() { # kill_midway MODE PID: start an unbounded session, SIGKILL asmspy
  local mode=$1 pid=$2
  # one file per session: the previous session's tracer child flushes its
  # buffered text when it exits, after it has detached (TracerPid 0), and
  # would write into a reused file at its old offset
  KILL_SEQ=$(( ${KILL_SEQ:-0} + 1 ))
  local out="$TMP/out.$mode.$KILL_SEQ"
  : >"$out" # exists before the loop reads it (the background redirect may not yet)
  "$ASMSPY" --"$mode" "$pid" -1 >>"$out" 2>&1 &
  local spy=$!
  local i=0
  while [ "$(wc -l <"$out")" -lt 200 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
  [ "$(wc -l <"$out")" -ge 200 ] || fail "--$mode produced no output before the kill: $(head -c 300 "$out")"
  kill -9 "$spy"
  wait "$spy" 2>/dev/null || true
  # the tracer child detaches on its own; wait (bounded) for TracerPid 0
  i=0
  while [ "$(awk '/^TracerPid:/ {print $2}' /proc/$pid/status 2>/dev/null)" != 0 ] && [ $i -lt 500 ]; do
    sleep 0.01; i=$((i + 1))
  done
  assert_runs "$pid"
}

start_victim victim_spin
kill_midway stream "$VICTIM_PID"
pass "SIGKILL of asmspy mid --stream: target survives, untraced"
kill_midway stream "$VICTIM_PID"
pass "and again (second session on the same target)"

start_victim victim_threads
kill_midway stream "$VICTIM_PID"
pass "multi-threaded target survives SIGKILL mid --stream"

start_victim victim_loop 100
kill_midway log "$VICTIM_PID"
pass "SIGKILL of asmspy mid --log: target survives"
