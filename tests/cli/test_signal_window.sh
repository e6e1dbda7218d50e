#!/bin/bash
# A stop signal at ANY moment of a session ends it cleanly (issue 24, item 4).
# The supervisor (cli/supervise.c) forks the tracer child and then installs
# the handler that forwards SIGINT/SIGTERM to it; a signal landing between
# the two only raised the supervisor's own flag, and a --stream -1 session
# ran on forever (3/120 at 20-55 ms after start). The window is a few
# microseconds wide, so strace stretches it: every clone()/fork() of the
# supervisor returns 200 ms late, and the signal is sent to the supervisor
# alone as soon as its tracer child exists — inside that window, every time.
# After each session: the target alive, untraced, running, computing.
. "$(dirname "$0")/../e2e/lib.sh"
command -v strace >/dev/null || fail "strace is missing (scripts/install-deps.sh --dev installs it)"
require_backend singlestep
TRIALS=${TRIALS:-4}

start_victim victim_loop
pid=$VICTIM_PID

# the tracer child of supervisor $1 (comm asmspy-tracer), or nothing
tracer_child() {
  local c
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    [ "$(cat /proc/"$c"/comm 2>/dev/null)" = asmspy-tracer ] && { echo "$c"; return; }
  done
}
# sink's value moves while victim_loop runs (it computes work(i) into it)
progress_ok() {
  local t0 t1 i=0
  t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  while [ $i -lt 300 ]; do
    sleep 0.01
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ "$t1" != "$t0" ] && return 0
    i=$((i + 1))
  done
  return 1
}

lost=0
for trial in $(seq 1 "$TRIALS"); do
  sig=TERM
  [ $((trial % 2)) = 0 ] && sig=INT
  # strace traces the supervisor only (no -f): its tracer child is free to
  # ptrace the target; clone's delayed exit is the fork's return in the parent
  strace -qq -o /dev/null -e trace=clone,clone3,fork,vfork \
    -e inject=clone,clone3,fork,vfork:delay_exit=200000 \
    "$ASMSPY" --stream "$pid" -1 >"$TMP/out.$trial" 2>"$TMP/err.$trial" &
  st=$!
  sup=""
  i=0
  while [ -z "$sup" ] && [ $i -lt 500 ]; do
    sup=$(cat /proc/"$st"/task/*/children 2>/dev/null | awk '{print $1}')
    # strace's child is asmspy once it has exec'd
    [ -n "$sup" ] && [ "$(cat /proc/"$sup"/comm 2>/dev/null)" != asmspy ] && sup=""
    [ -z "$sup" ] && sleep 0.01
    i=$((i + 1))
  done
  [ -n "$sup" ] || fail "trial $trial: asmspy did not start under strace"
  child=""
  i=0
  while [ -z "$child" ] && [ $i -lt 1000 ]; do
    child=$(tracer_child "$sup")
    [ -z "$child" ] && sleep 0.005
    i=$((i + 1))
  done
  [ -n "$child" ] || fail "trial $trial: asmspy never forked its tracer child"
  kill -"$sig" "$sup"   # the supervisor alone (kill(1)), not the process group
  # the session must end on its own: bounded by a count of polls
  i=0
  while kill -0 "$sup" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.02; i=$((i + 1)); done
  if kill -0 "$sup" 2>/dev/null; then
    lost=$((lost + 1))
    echo "trial $trial: SIG$sig sent to supervisor $sup right after it forked $child was lost: still running 6 s later" >&2
    kill -"$sig" "$sup" 2>/dev/null || true   # the handler forwards it now
    i=0
    while kill -0 "$sup" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.02; i=$((i + 1)); done
    kill -KILL "$sup" 2>/dev/null || true
  fi
  wait "$st" 2>/dev/null || true
  # the target: alive, every thread untraced, running, computing
  [ -d "/proc/$pid" ] || fail "trial $trial: the target died ($(tail -2 "$TMP/err.$trial"))"
  for s in /proc/"$pid"/task/*/status; do
    tr=$(awk '/^TracerPid:/ {print $2}' "$s")
    [ "$tr" = 0 ] || fail "trial $trial: ${s%/status} still traced by $tr"
  done
  case "$(proc_state "$pid")" in R|S|D) ;; *) fail "trial $trial: target in state $(proc_state "$pid")";; esac
  progress_ok || fail "trial $trial: the target makes no progress after the session"
done
[ $lost = 0 ] || fail "$lost of $TRIALS stop signals sent between fork and the forwarding handler were lost"
pass "$TRIALS stop signals (SIGTERM/SIGINT) sent to the supervisor just after its fork each ended the session; target alive, untraced, computing"
