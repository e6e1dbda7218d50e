#!/bin/bash
# A target that executes int3 itself keeps receiving its own SIGTRAPs while
# single-stepped (told apart from our step traps by si_code) and survives.
# Its SIGTRAP handler runs with SIGTRAP blocked, so asmspy runs that handler
# at native speed (syscall to syscall) instead of stepping it: a step trap
# there would make the kernel reset the target's handler to SIG_DFL.
. "$(dirname "$0")/lib.sh"
require_backend singlestep
start_victim victim_selftrap
pid=$VICTIM_PID
traps_now() { grep -o 'traps=[0-9]*' "$TMP/victim_selftrap.err" | tail -1 | cut -d= -f2; }
"$ASMSPY" --stream "$pid" 4000 >"$TMP/text" 2>"$TMP/err" || fail "stream failed: $(cat "$TMP/err")"
n_int3=$(grep -c 'int3$' "$TMP/text" || true)
[ "$n_int3" -ge 2 ] || fail "stepped only $n_int3 int3 instructions"
pass "stepped over $n_int3 of the target's own int3 instructions"
before=$(traps_now)
i=0
while [ "$(traps_now)" = "$before" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
after=$(traps_now)
[ "$after" != "$before" ] || fail "the target's trap handler stopped counting after detach ($before)"
assert_runs "$pid"
pass "self-breakpointing target alive and still handling its traps ($before -> $after)"
# traced again, with traps arriving during the session, it still survives
"$ASMSPY" --stream "$pid" 3000 >/dev/null 2>&1 || fail "second stream failed"
assert_runs "$pid"
pass "survives a second session"
