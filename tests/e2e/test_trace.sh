#!/bin/bash
# --trace: per-invocation executed assembly of one function, checked against
# valgrind/callgrind's exact instruction count for that function; the three
# region forms; a region that never runs; bad input; the target survives.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

# oracle: callgrind's exclusive instruction count of work() per call
expect=$(callgrind_work_per_call)
if [ -z "$expect" ] && command -v valgrind >/dev/null; then fail "the callgrind oracle gave no count"; fi

start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --trace "$pid" work 2 >"$TMP/text" 2>"$TMP/err" || fail "--trace failed: $(cat "$TMP/err")"
grep -q "^tracing work @ 0x[0-9a-f]* ([0-9]* bytes) in pid $pid" "$TMP/text" || fail "no header: $(head -2 "$TMP/text")"
[ "$(grep -c '^sample #' "$TMP/text")" = 2 ] || fail "expected 2 samples: $(cat "$TMP/text")"
grep -qE '^ +5× +\+0x[0-9a-f]+ +->  helper  \[victim_loop\]$' "$TMP/text" || fail "helper not called 5x: $(grep -A3 'functions called' "$TMP/text")"
pass "2 samples, helper called 5x per work()"
"$ASMSPY" --trace "$pid" work 2 --json >"$TMP/t.ndjson" || fail "--trace --json failed"
"$ASMTRACE_CHECK" "$TMP/t.ndjson" >/dev/null || fail "--trace --json invalid: $("$ASMTRACE_CHECK" "$TMP/t.ndjson")"
if [ -n "$expect" ]; then
  assert_executed_per_call "$TMP/t.ndjson" "$expect"
  pass "executed instructions per call = callgrind's $expect"
fi
assert_runs "$pid"

# the region forms resolve to the same region
line=$("$ASMSPY" --syms "$pid" work | awk '$3 == "work"')
addr=$(echo "$line" | awk '{print $1}'); size=$(echo "$line" | awk '{print $2}')
mid=$(printf '0x%x' $((addr + 4)))
for spec in "$mid" "$(printf '0x%x' $((addr))):$size" "$(printf '0x%x' $((addr)))+$(printf '0x%x' "$size")"; do
  "$ASMSPY" --trace "$pid" "$spec" 1 --json >"$TMP/r.ndjson" 2>"$TMP/err" || fail "--trace $spec failed: $(cat "$TMP/err")"
  grep -q "\"start\":\"$(printf '0x%x' $((addr)))\",\"len\":$size" "$TMP/r.ndjson" || fail "$spec resolved elsewhere: $(grep region "$TMP/r.ndjson")"
  [ -z "$expect" ] || grep -q "\"executed\":$expect," "$TMP/r.ndjson" || fail "$spec: wrong count"
done
pass "sym, 0xADDR (covering symbol), 0xADDR:LEN and 0xADDR+LEN agree"

# a region that never runs is a fact, not an attach failure: said, and
# exit 1 (nothing captured); main of a running process cannot be entered
# again: refused at once, before any wait
rc=0; ASMTEST_DF_ENTRY_WAIT_MS=300 "$ASMSPY" --trace "$pid" abort 1 >"$TMP/nr" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "never-entered region exited $rc: $(cat "$TMP/err")"
grep -q "^abort not seen entering in pid $pid (waited 300 ms)" "$TMP/nr" || fail "no not-seen message: $(cat "$TMP/nr")"
grep -q "^asmspy: nothing captured: the region was not entered" "$TMP/err" || fail "no error line: $(cat "$TMP/err")"
rc=0; "$ASMSPY" --trace "$pid" main 1 >"$TMP/nr" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "--trace main exited $rc: $(cat "$TMP/err")"
grep -q "^asmspy: main will not be entered: pid $pid is already running it" "$TMP/err" || fail "main: $(cat "$TMP/err")"
! grep -q "not seen entering" "$TMP/nr" || fail "--trace main waited for an entry"
pass "a region never entered: '$(tail -1 "$TMP/err")', exit 1; main refused at once"
assert_runs "$pid"

expect_exit 2 "$ASMSPY" --trace "$pid" no_such_function 1
grep -q "no function named 'no_such_function'" "$TMP/err" || fail "bad symbol message: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --trace "$pid" 0x1000:0 1
expect_exit 2 "$ASMSPY" --trace "$pid" 0xzz 1
expect_exit 2 "$ASMSPY" --trace "$pid"
pass "bad symbol / bad range / missing region -> exit 2"
assert_runs "$pid"
