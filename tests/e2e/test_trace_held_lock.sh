#!/bin/bash
# --trace --tid never freezes the target by holding a thread that owns what
# the sampled thread waits for (issue 24). victim_lockstep's four workers
# call lock_fn, whose callee take_lock() returns holding a mutex they all
# take. While the sampled thread is run natively over its call to
# take_lock(), a breakpoint sits at lock_fn's return-from-take_lock address:
# any other worker returning there holds the mutex. The backend used to keep
# such a thread stopped until the sample ended, while the sampled thread
# waited for that very mutex in the kernel: every thread in futex wait or
# ptrace_stop until Ctrl-C (here before the fix: 20 of 20 sessions hung).
#
# Each of SESSIONS sessions runs `--trace <pid> lock_fn 3 --tid=<worker>`
# and must end on its own with its 3 samples (each executing every one of
# lock_fn's instructions exactly once: it has no loop, so executed ==
# distinct — an instruction reported twice would break that), a valid
# recording, and the target alive, untraced in every thread, every thread
# making progress, its checksum intact (it exits 3 when it breaks). The
# timeout only turns a hang into a failure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../survival/proc_lib.sh"
require_backend singlestep

SESSIONS=${SESSIONS:-20}
SESSION_TIMEOUT=${SESSION_TIMEOUT:-20}

start_victim victim_lockstep
pid=$VICTIM_PID
# a worker (the main thread never calls lock_fn)
worker() { ls "/proc/$pid/task" | sort -n | sed -n 2p; }
tid=$(worker)

fails=0 hangs=0
bad() { fails=$((fails + 1)); echo "session $i: $*" >&2; }
for i in $(seq 1 "$SESSIONS"); do
  out="$TMP/s.$i.json"
  set +e
  timeout -k 5 -s INT "$SESSION_TIMEOUT" "$ASMSPY" --trace "$pid" lock_fn 3 --tid="$tid" --json \
    >"$out" 2>"$TMP/s.$i.err"
  rc=$?
  set -e
  view=$(threads_view "$pid")
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    hangs=$((hangs + 1))
    bad "hung: asmspy still running after ${SESSION_TIMEOUT}s (threads tid:state:tracer: $view)"
  elif [ "$rc" != 0 ]; then
    bad "asmspy exit $rc: $(tail -n2 "$TMP/s.$i.err" | tr '\n' ' ')"
  else
    n=$(grep -c '"type":"sample"' "$out" || true)
    [ "$n" = 3 ] || bad "$n samples, want 3"
    chk=$("$ASMTRACE_CHECK" "$out" 2>&1) || bad "invalid output: $chk"
    twice=$(grep '"type":"sample"' "$out" | grep -oE '"distinct":[0-9]+,"executed":[0-9]+' |
      awk -F'[:,]' '$2 != $4' | head -n1)
    [ -z "$twice" ] || bad "an instruction counted twice in a sample of lock_fn (no loop): $twice"
  fi
  # the detach happens before asmspy exits: no thread may still be traced
  if [ "$(state_of "$pid")" = gone ] || [ "$(state_of "$pid")" = Z ]; then
    wait "$pid" 2>/dev/null && st=0 || st=$?
    fail "session $i: the target died (status $st: $(cat "$TMP/victim_lockstep.err"))"
  fi
  if t=$(any_traced "$view"); then bad "thread $t still traced after the session"; fi
  if t=$(any_state "$view" Tt); then bad "thread $t stopped after the session ($view)"; fi
  if ! p=$(progress "$pid" all); then bad "target frozen after the session: $p"; fi
  # a worker that exited would be a bug of the victim; re-pick one anyway
  [ -d "/proc/$pid/task/$tid" ] || tid=$(worker)
done
kill -0 "$pid" 2>/dev/null || fail "the target died: $(cat "$TMP/victim_lockstep.err")"
echo "sessions: $SESSIONS, failed: $fails (hung: $hangs)"
[ "$fails" = 0 ] || fail "$fails of $SESSIONS --trace --tid sessions on victim_lockstep failed ($hangs hung)"
pass "$SESSIONS sessions of --trace lock_fn 3 --tid on victim_lockstep: all ended with 3 samples, the target alive, untraced and progressing"
