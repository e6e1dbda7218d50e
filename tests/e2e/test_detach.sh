#!/bin/bash
# Detach leaves every thread healthy:
#  - workers blocked in a long syscall with a single-step armed when the
#    session ends (the step's SIGTRAP is queued until the syscall returns:
#    the two-phase detach must drain it, or the worker dies when it wakes);
#  - Ctrl-C (SIGINT) ends a session cleanly: exit 0, a valid recording whose
#    footer says "interrupted", the target running;
#  - the entry/exit toggle fallback (no PTRACE_GET_SYSCALL_INFO) still pairs.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

start_victim victim_threads 600000
pid=$VICTIM_PID
i=0; while [ "$(ls /proc/$pid/task | wc -l)" -lt 4 ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done
"$ASMSPY" --stream "$pid" 4000 >"$TMP/s.txt" 2>"$TMP/err" || fail "stream failed: $(cat "$TMP/err")"
blocked=$(grep -c 'syscall$' "$TMP/s.txt" || true)
[ "$blocked" -ge 1 ] || fail "no thread stepped into a syscall"
# the workers' 600 ms sleeps end after the detach: any undrained step trap fires then
sleep 1.3
assert_runs "$pid"
[ "$(ls /proc/$pid/task | wc -l)" = 4 ] || fail "a thread died after detach: $(ls /proc/$pid/task | wc -l) left"
pass "threads blocked in syscalls with armed steps survive detach (traps drained)"

"$ASMSPY" --stream "$pid" -1 --record="$TMP/int.asmtrace" >/dev/null 2>"$TMP/err" &
spy=$!
i=0; while [ ! -s "$TMP/int.asmtrace" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
sleep 0.2
kill -INT "$spy"
set +e; wait "$spy"; rc=$?; set -e
[ "$rc" = 0 ] || fail "SIGINT'ed session exited $rc: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/int.asmtrace" >/dev/null || fail "interrupted recording invalid: $("$ASMTRACE_CHECK" "$TMP/int.asmtrace")"
tail -1 "$TMP/int.asmtrace" | grep -q '"reason":"interrupted"' || fail "footer: $(tail -1 "$TMP/int.asmtrace")"
assert_runs "$pid"
pass "SIGINT: exit 0, valid recording ending 'interrupted', target running"

require_backend ptrace
mkdir -p "$TMP/w"
ASMSPY_NO_SYSCALL_INFO=1 "$ASMSPY" --launch log -1 --json -- "$VICTIM_DIR/victim_syscalls" "$TMP/w" /dev/null \
  >"$TMP/toggle.ndjson" 2>/dev/null || fail "toggle-fallback log failed"
if command -v strace >/dev/null; then
  strace -qq -o "$TMP/strace.txt" "$VICTIM_DIR/victim_syscalls" "$TMP/w" /dev/null
  python3 "$(dirname "$0")/log_vs_strace.py" "$TMP/strace.txt" "$TMP/toggle.ndjson" || fail "toggle fallback disagrees with strace"
fi
start_victim victim_loop
ASMSPY_NO_SYSCALL_INFO=1 "$ASMSPY" --log "$VICTIM_PID" 8 >"$TMP/t.txt" || fail "toggle attach failed"
grep -q '^clock_nanosleep(CLOCK_REALTIME' "$TMP/t.txt" || fail "toggle attach mis-paired: $(cat "$TMP/t.txt")"
pass "entry/exit toggle fallback pairs like PTRACE_GET_SYSCALL_INFO (launch and mid-syscall attach)"
