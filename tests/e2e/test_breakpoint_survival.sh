#!/bin/bash
# The target always survives the modes that plant a breakpoint (issue 12):
# regressions for what killed or froze targets before the seam named every
# trap of asmspy's in every wait.
#   - --trace / --dataflow on a target whose 4 threads race into the traced
#     function: before, a second thread's int3 stop was handed back as a
#     SIGTRAP and the target died (27 of 30 sessions);
#   - --tid pinned to a thread while others keep arriving: before, a step-past
#     consumed another thread's stop (frozen in 't') and the wait never ended;
#   - a breakpoint on a function that runs inside the target's own SIGTRAP
#     handler: refused with the reason, the handler stays installed (before,
#     the kernel reset it to SIG_DFL and the target's next int3 killed it);
#   - a target stopped with SIGSTOP stays stopped through a session, and a
#     SIGSTOP sent during --log stops it (it was swallowed before);
#   - --procs on a shell loop that forks fast ends and releases it (before,
#     the detach waited forever for a child that had already exited);
#   - a target killed while traced ends the session as target_killed.
# Bounded by counts (trials), each asmspy run under a generous timeout
# whose expiry is a hang failure.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

# all_untraced PID: every thread of PID has TracerPid 0.
all_untraced() {
  local s tp
  for s in /proc/"$1"/task/*/status; do
    tp=$(awk '/^TracerPid:/ {print $2}' "$s" 2>/dev/null || echo 0)
    [ "${tp:-0}" = 0 ] || fail "pid $1: $(dirname "$s") still traced by $tp"
  done
}

# survived PID WHAT: alive (not a zombie), untraced, not stopped.
survived() {
  local st
  st=$(proc_state "$1")
  case "$st" in
    R|S|D) ;;
    *) fail "$2: target $1 is '$st' afterwards (expected running)";;
  esac
  all_untraced "$1"
}

run() { # run SECONDS CMD...: a hang (timeout) is a failure
  local secs=$1; shift
  set +e
  timeout -s KILL "$secs" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  set -e
  [ $rc = 137 ] && fail "hang: '$*' did not end in ${secs}s"
  return 0
}

# --------------------------------------------------- threads racing in --
start_victim victim_threads
vt=$VICTIM_PID
for i in 1 2 3 4 5 6 7 8 9 10; do
  run 60 "$ASMSPY" --trace "$vt" worker_body 1
  grep -q '^sample #1 ' "$TMP/out" || fail "trial $i: no sample: $(cat "$TMP/out" "$TMP/err")"
  survived "$vt" "--trace trial $i"
done
for i in 1 2 3; do
  run 60 "$ASMSPY" --dataflow "$vt" worker_body
  grep -q '^data flow — worker_body' "$TMP/out" || fail "dataflow trial $i: $(cat "$TMP/out" "$TMP/err")"
  survived "$vt" "--dataflow trial $i"
done
pass "4 threads racing into worker_body: 10 --trace and 3 --dataflow sessions, target alive and untraced"

# ---------------------------------------------------------- --tid pinned --
worker=$(ls /proc/"$vt"/task | grep -vx "$vt" | head -1)
run 60 "$ASMSPY" --trace "$vt" worker_body 2 --tid="$worker"
[ "$(grep -c '^sample #' "$TMP/out")" = 2 ] || fail "--tid=$worker: want 2 samples: $(cat "$TMP/out" "$TMP/err")"
survived "$vt" "--tid=$worker"
# a thread that never enters: the one deadline ends it (others' arrivals do not extend it)
start_victim victim_loop
vl=$VICTIM_PID
ASMTEST_DF_ENTRY_WAIT_MS=1500 run 60 "$ASMSPY" --trace "$vt" no_such_entry_never 1 --tid="$worker" || true
ASMTEST_DF_ENTRY_WAIT_MS=1500 run 60 "$ASMSPY" --trace "$vl" helper 1 --tid=999999 || true
survived "$vt" "--tid, never entered"
survived "$vl" "--tid of no thread"
pass "--tid: 2 samples of the pinned worker while 3 other threads keep arriving; bounded when it never enters"

# ---------------------------------------- inside the target's SIGTRAP handler --
start_victim victim_selftrap
vs=$VICTIM_PID
run 60 "$ASMSPY" --trace "$vs" on_trap 1
grep -q "inside the target's own SIGTRAP handler" "$TMP/err" \
  || fail "on_trap: no refusal naming the SIGTRAP handler: $(cat "$TMP/out" "$TMP/err")"
survived "$vs" "--trace on_trap"
caught=$(awk '/^SigCgt:/ {print $2}' /proc/"$vs"/status)
(( (0x$caught >> 4) & 1 )) || fail "the target's SIGTRAP handler was not put back (SigCgt $caught)"
n0=$(grep -c traps= "$TMP/victim_selftrap.err" || true)
i=0
while [ "$(grep -c traps= "$TMP/victim_selftrap.err" || true)" -le "$n0" ] && [ $i -lt 500 ]; do
  sleep 0.01; i=$((i + 1))
done
survived "$vs" "after its own int3s"
pass "on_trap inside the SIGTRAP handler: refused with the reason, handler still installed, target still trapping"

# --------------------------------------------------------------- SIGSTOP --
kill -STOP "$vl"
ASMTEST_DF_ENTRY_WAIT_MS=800 run 60 "$ASMSPY" --trace "$vl" work 1
[ "$(proc_state "$vl")" = T ] || fail "a SIGSTOPped target is '$(proc_state "$vl")' after --trace (want T)"
all_untraced "$vl"
run 60 timeout -s INT 1 "$ASMSPY" --log "$vl" 5
[ "$(proc_state "$vl")" = T ] || fail "a SIGSTOPped target is '$(proc_state "$vl")' after --log (want T)"
all_untraced "$vl"
kill -CONT "$vl"
survived "$vl" "SIGCONT after the sessions"
pass "a SIGSTOPped target stays stopped through --trace and --log; SIGCONT resumes it"

# (text on a file is block-buffered until asmspy exits: progress is read
# from the kernel's count of the target's timeslices, /proc/<pid>/schedstat)
slices() { awk '{print $3}' /proc/"$vl"/schedstat; }
"$ASMSPY" --log "$vl" -1 >"$TMP/live.log" 2>&1 &
lp=$!
i=0; while [ "$(awk '/^TracerPid:/ {print $2}' /proc/"$vl"/status)" = 0 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
kill -STOP "$vl"
i=0; while [ "$(proc_state "$vl")" != t ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
[ "$(proc_state "$vl")" = t ] || fail "SIGSTOP during --log: target is '$(proc_state "$vl")', want t (stopped, traced)"
sleep 0.1
n1=$(slices); sleep 0.3; n2=$(slices)
[ "$n1" = "$n2" ] || fail "the target kept running after SIGSTOP while traced ($n1 -> $n2 timeslices)"
kill -CONT "$vl"
i=0; while [ "$(slices)" = "$n2" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
[ "$(slices)" != "$n2" ] || fail "SIGCONT did not resume the traced target"
kill -INT "$lp"; wait "$lp" || true
grep -q -- '--- SIGSTOP ---' "$TMP/live.log" || fail "--log did not show the SIGSTOP: $(tail -5 "$TMP/live.log")"
survived "$vl" "--log through SIGSTOP/SIGCONT"
pass "SIGSTOP during --log stops the target (no syscalls until SIGCONT), SIGCONT resumes it"

# ------------------------------------------------------ a shell that forks --
bash -c 'while :; do /bin/true; done' &
sh_pid=$!
VICTIM_PIDS="$VICTIM_PIDS $sh_pid"
sleep 0.2
for i in 1 2 3; do
  run 60 "$ASMSPY" --procs "$sh_pid" 100
  survived "$sh_pid" "--procs on a forking shell, trial $i"
  run 60 "$ASMSPY" --log "$sh_pid" 100 --follow
  survived "$sh_pid" "--log --follow on a forking shell, trial $i"
done
pass "a shell forking /bin/true: --procs and --log --follow end and release it (3 trials each)"

# ------------------------------------------------- killed while traced --
run 60 "$ASMSPY" --launch log -1 --record="$TMP/killed.asmtrace" -- /bin/sh -c 'kill -SEGV $$'
tail -1 "$TMP/killed.asmtrace" | grep -q '"reason":"target_killed"' \
  || fail "footer of a target killed while traced: $(tail -1 "$TMP/killed.asmtrace")"
grep -q 'KILLED by SIGSEGV (Segmentation fault, signal 11)' "$TMP/killed.asmtrace" || fail "no note naming the signal"
"$ASMTRACE_CHECK" "$TMP/killed.asmtrace" >/dev/null || fail "recording invalid: $("$ASMTRACE_CHECK" "$TMP/killed.asmtrace")"
pass "a target killed by SIGSEGV while traced: note names the signal, footer target_killed"
