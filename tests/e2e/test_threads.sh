#!/bin/bash
# Whole-process following: every thread is seized and lines carry [tid];
# --tid follows exactly one thread without a prefix.
. "$(dirname "$0")/lib.sh"
require_backend singlestep
start_victim victim_threads
pid=$VICTIM_PID
i=0; while [ "$(ls /proc/$pid/task | wc -l)" -lt 4 ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done

"$ASMSPY" --stream "$pid" 3000 >"$TMP/all" 2>"$TMP/err" || fail "stream failed: $(cat "$TMP/err")"
tids=$(grep -oE '^\[[0-9]+\]' "$TMP/all" | sort -u | wc -l)
[ "$tids" -ge 2 ] || fail "expected lines from >= 2 threads, saw $tids"
[ "$(grep -vcE '^\[[0-9]+\] ' "$TMP/all")" = 0 ] || fail "a line lacks the [tid] prefix"
pass "3000 steps over $tids threads, every line prefixed"
assert_runs "$pid"

worker=$(ls "/proc/$pid/task" | grep -v "^$pid\$" | head -1)
"$ASMSPY" --stream "$pid" 200 --tid="$worker" --json >"$TMP/one.ndjson" || fail "--tid stream failed"
"$ASMTRACE_CHECK" "$TMP/one.ndjson" >/dev/null || fail "--tid recording invalid"
others=$(grep '"type":"insn"' "$TMP/one.ndjson" | grep -vc "\"tid\":$worker," || true)
[ "$others" = 0 ] || fail "--tid=$worker saw $others instructions of other threads"
"$ASMSPY" --stream "$pid" 20 --tid="$worker" >"$TMP/one.txt"
grep -qE '^\[' "$TMP/one.txt" && fail "--tid output carries a [tid] prefix"
pass "--tid=$worker follows only that thread, no prefix"
assert_runs "$pid"
expect_exit 1 "$ASMSPY" --stream "$pid" 5 --tid=1
pass "--tid of a thread outside the process -> exit 1"
