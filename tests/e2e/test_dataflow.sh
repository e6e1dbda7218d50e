#!/bin/bash
# --dataflow: the value trace + def-use of ONE invocation of work() in
# victim_loop. Its step count must equal --trace's executed count and
# callgrind's exact instruction count; the argument register is live-in; the
# value a call-out returns (rax) is defined by the call-out; --max bounds the
# steps and says "truncated"; bad input is exit 2; a region never entered is a
# fact (exit 0); the target survives.
. "$(dirname "$0")/lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"

# oracle: callgrind's exclusive instruction count of work() per call
expect=$(callgrind_work_per_call)
if [ -z "$expect" ] && command -v valgrind >/dev/null; then fail "the callgrind oracle gave no count"; fi

start_victim victim_loop
pid=$VICTIM_PID

# text: the header, one line per step
"$ASMSPY" --dataflow "$pid" work >"$TMP/text" 2>"$TMP/err" || fail "--dataflow failed: $(cat "$TMP/err")"
grep -qE "^data flow — work @ 0x[0-9a-f]+ of pid $pid   ret=-?[0-9]+   [0-9]+ steps, [0-9]+ records" "$TMP/text" \
  || fail "no header: $(head -3 "$TMP/text")"
grep -qE '^#[0-9]+ +\+0x[0-9a-f]+ +callout helper ' "$TMP/text" || fail "no callout step: $(cat "$TMP/text")"
grep -qE '^#[0-9]+ +\+0x[0-9a-f]+ +mov rbx, rdi +r: rdi=0x[0-9a-f]+\(in\)' "$TMP/text" \
  || fail "rdi not shown live-in: $(grep rdi "$TMP/text" | head -3)"
pass "text: '$(grep '^data flow' "$TMP/text")'"

# JSON: a valid recording with one dataflow event
"$ASMSPY" --dataflow "$pid" work --json >"$TMP/df.ndjson" 2>"$TMP/err" || fail "--dataflow --json failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/df.ndjson" >/dev/null || fail "--dataflow --json invalid: $("$ASMTRACE_CHECK" "$TMP/df.ndjson")"
python3 - "$TMP/df.ndjson" >"$TMP/facts" <<'EOF' || fail "JSON facts: $(cat "$TMP/facts")"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
df = [e for e in evs if e.get("type") == "dataflow"]
assert len(df) == 1, "expected one dataflow event, got %d" % len(df)
d = df[0]
assert d["name"] == "work" and d["truncated"] is False, d["name"]
tr = d["trace"]
insns = [t for t in tr if t["kind"] == "insn"]
calls = [t for t in tr if t["kind"] == "callout"]
assert len(insns) == d["steps"], "steps %d but %d insn entries" % (d["steps"], len(insns))
assert len(calls) == 5, "expected 5 call-outs to helper, got %d" % len(calls)
assert all(t["disasm"] == "callout helper" for t in calls), [t["disasm"] for t in calls]
assert d["records"] == sum(len(t["reads"]) + len(t["writes"]) for t in tr), "records"
assert [t["i"] for t in tr] == list(range(len(tr))), "indexes"
# the argument register: its first read is live-in (defined by the caller)
first_rdi = next(r for t in tr for r in t["reads"] if r["loc"] == "rdi")
assert first_rdi["live_in"] is True and first_rdi["def"] is None, first_rdi
# every read's def points back at an earlier step that wrote that location
for t in tr:
    for r in t["reads"]:
        if r["def"] is None:
            continue
        assert r["def"] < t["i"], (t, r)
        if not r["loc"].startswith("["):
            assert any(w["loc"] == r["loc"] for w in tr[r["def"]]["writes"]), (t, r)
# rax read right after each call-out: defined by the call-out, its value = what it wrote
after = 0
for c in calls:
    nxt = tr[c["i"] + 1]
    rax = [r for r in nxt["reads"] if r["loc"] == "rax"]
    assert rax and rax[0]["def"] == c["i"], ("rax after callout", nxt)
    wrax = [w for w in c["writes"] if w["loc"] == "rax"][0]
    assert wrax["value"] == rax[0]["value"], (wrax, rax)
    after += 1
# the return value: the last rax written
ret_w = [w for t in tr for w in t["writes"] if w["loc"] == "rax"][-1]
assert int(ret_w["value"], 16) == d["ret"], (ret_w, d["ret"])
print(d["steps"], after)
EOF
read -r steps after <"$TMP/facts"
pass "JSON valid: $steps steps; rdi live-in; rax after each of $after call-outs defined by the call-out"

"$ASMSPY" --trace "$pid" work 1 --json >"$TMP/t.ndjson" 2>"$TMP/err" || fail "--trace failed: $(cat "$TMP/err")"
executed=$(grep '"type":"sample"' "$TMP/t.ndjson" | grep -oE '"executed":[0-9]+' | cut -d: -f2)
[ "$steps" = "$executed" ] || fail "--dataflow took $steps steps, --trace executed $executed"
pass "steps = --trace's executed count ($executed)"
if [ -n "$expect" ]; then
  [ "$steps" = "$expect" ] || fail "--dataflow took $steps steps, callgrind counts $expect"
  pass "steps = callgrind's $expect"
fi
assert_runs "$pid"

# --max: exactly n steps, truncated
"$ASMSPY" --dataflow "$pid" work --max=10 --json >"$TMP/m.ndjson" 2>"$TMP/err" || fail "--max=10 failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/m.ndjson" >/dev/null || fail "--max=10 invalid: $("$ASMTRACE_CHECK" "$TMP/m.ndjson")"
grep '"type":"dataflow"' "$TMP/m.ndjson" | grep -q '"steps":10,' || fail "--max=10: $(grep -oE '"steps":[0-9]+' "$TMP/m.ndjson")"
grep '"type":"dataflow"' "$TMP/m.ndjson" | grep -q '"truncated":true' || fail "--max=10 not truncated"
pass "--max=10: 10 steps, truncated"
assert_runs "$pid"

# a region that never runs is a fact, not an attach failure: said, and
# exit 1 (nothing captured); main of a running process cannot be entered
# again: refused at once, before any wait
rc=0; ASMTEST_DF_ENTRY_WAIT_MS=300 "$ASMSPY" --dataflow "$pid" abort >"$TMP/nr" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "never-entered region exited $rc: $(cat "$TMP/err")"
grep -q "^abort not seen entering in pid $pid (waited 300 ms)" "$TMP/nr" || fail "no not-seen message: $(cat "$TMP/nr")"
grep -q "^asmspy: nothing captured: the region was not entered" "$TMP/err" || fail "no error line: $(cat "$TMP/err")"
rc=0; "$ASMSPY" --dataflow "$pid" main >"$TMP/nr" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "--dataflow main exited $rc: $(cat "$TMP/err")"
grep -q "^asmspy: main will not be entered: pid $pid is already running it" "$TMP/err" || fail "main: $(cat "$TMP/err")"
! grep -q "not seen entering" "$TMP/nr" || fail "--dataflow main waited for an entry"
pass "a region never entered: '$(tail -1 "$TMP/err")', exit 1; main refused at once"
assert_runs "$pid"

expect_exit 2 "$ASMSPY" --dataflow "$pid" work --max=0
expect_exit 2 "$ASMSPY" --dataflow "$pid" work --max=x
expect_exit 2 "$ASMSPY" --dataflow "$pid" no_such_function
grep -q "no function named 'no_such_function'" "$TMP/err" || fail "bad symbol message: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --dataflow "$pid"
expect_exit 2 "$ASMSPY" --dataflow "$pid" work 3
pass "--max=0 / bad --max / bad symbol / missing region / a count -> exit 2"
assert_runs "$pid"
