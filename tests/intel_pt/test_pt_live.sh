#!/bin/bash
# intel_pt live: --stream through the Intel PT PMU on running victims, with
# no ptrace at all. Skips (77) with the probe's reason where intel_pt is not
# usable (no PMU in this VM); the decode path is covered offline by
# pt_decode / pt_capture in any case.
. "$(dirname "$0")/../e2e/lib.sh"
require_backend intel_pt

# 1. the canonical victim: 200 instructions, its own functions, no decode errors
start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --stream "$pid" 200 --backend=intel_pt >"$TMP/text" 2>"$TMP/err" ||
  fail "--stream --backend=intel_pt exited $?: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/text")" = 200 ] || fail "expected 200 lines, got $(wc -l <"$TMP/text"): $(head -3 "$TMP/text")"
grep -qE '\[victim_loop\] +[a-z]' "$TMP/text" || fail "no victim_loop instruction: $(head -5 "$TMP/text")"
! grep -q "decode error" "$TMP/err" || fail "decode errors: $(grep "decode error" "$TMP/err" | head -3)"
pass "200 lines of victim_loop through intel_pt"
assert_runs "$pid"
pass "target running and never traced (TracerPid 0)"

# 2. JSON: a valid recording whose every instruction agrees with objdump
"$ASMSPY" --stream "$pid" 2000 --backend=intel_pt --json >"$TMP/s.ndjson" 2>"$TMP/err" ||
  fail "--json failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/s.ndjson" || fail "JSON stream is not a valid recording"
[ "$(grep -c '"type":"insn"' "$TMP/s.ndjson")" = 2000 ] || fail "expected 2000 insn events"
grep -q '"sym":"helper"' "$TMP/s.ndjson" || fail "helper() never decoded in 2000 instructions"
python3 "$(dirname "$0")/../e2e/stream_objdump.py" "$VICTIM_DIR/victim_loop" "$TMP/s.ndjson" ||
  fail "objdump disagrees with the decoded stream"
pass "2000 insn events validate and agree with objdump"
assert_runs "$pid"

# 3. threads: one PT event per thread, lines prefixed [tid]
start_victim victim_threads
"$ASMSPY" --stream "$VICTIM_PID" 3000 --backend=intel_pt >"$TMP/thr" 2>"$TMP/err" ||
  fail "threads: $(cat "$TMP/err")"
tids=$(grep -oE '^\[[0-9]+\]' "$TMP/thr" | sort -u | wc -l)
[ "$tids" -ge 1 ] || fail "no [tid] prefix with 4 threads: $(head -3 "$TMP/thr")"
grep -q 'worker_body' "$TMP/thr" || fail "no worker_body instruction"
pass "victim_threads: $tids threads seen in 3000 instructions"
assert_runs "$VICTIM_PID"

# 4. --launch: tracing starts at the exec (enable_on_exec): ld.so's entry first,
#    and the stream ends when the target exits
"$ASMSPY" --launch stream -1 --backend=intel_pt --record="$TMP/all.asmtrace" -- \
  "$VICTIM_DIR/victim_exit" 2 >/dev/null 2>"$TMP/err" || fail "--launch: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/all.asmtrace" >/dev/null || fail "launch recording invalid"
grep -m1 '"type":"insn"' "$TMP/all.asmtrace" | grep -q '"module":"ld-linux-x86-64.so.2"' ||
  fail "first instruction not in ld.so: $(grep -m1 '"type":"insn"' "$TMP/all.asmtrace")"
grep -q '"sym":"step_once"' "$TMP/all.asmtrace" || fail "victim's step_once never decoded"
tail -1 "$TMP/all.asmtrace" | grep -q '"reason":"target_exited"' || fail "footer: $(tail -1 "$TMP/all.asmtrace")"
pass "--launch: from ld.so's entry to the exit, $(grep -c '"type":"insn"' "$TMP/all.asmtrace") instructions"

# 5. the call views follow control flow alone on PT (no sp): helper is
#    called more often than work, and nests under it
start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --graph "$pid" 60 --backend=intel_pt --json >"$TMP/g.ndjson" 2>"$TMP/err" ||
  fail "--graph --backend=intel_pt: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/g.ndjson" >/dev/null || fail "--graph recording invalid"
python3 - "$TMP/g.ndjson" <<'PY' || fail "--graph on intel_pt: helper inv not above work's"
import json, sys
g = [json.loads(l) for l in open(sys.argv[1]) if '"type":"graph"' in l][-1]
inv = {n["name"]: n["inv"] for n in g["nodes"]}
sys.exit(0 if inv.get("helper", 0) > inv.get("work", 0) > 0 else 1)
PY
"$ASMSPY" --tree "$pid" 12 --backend=intel_pt >"$TMP/tree" 2>"$TMP/err" || fail "--tree: $(cat "$TMP/err")"
grep -qE '^-> work \[victim_loop\]' "$TMP/tree" && grep -qE '^  -> helper \[victim_loop\]' "$TMP/tree" ||
  fail "--tree on intel_pt: helper not under work: $(cat "$TMP/tree")"
pass "--graph / --tree on intel_pt: calls followed by control flow"

# 6. --trace on PT: invocations cut from control flow, callgrind's count,
#    the return value unknown (no registers)
expect=$(callgrind_work_per_call)
"$ASMSPY" --trace "$pid" work 2 --backend=intel_pt --json >"$TMP/t.ndjson" 2>"$TMP/err" ||
  fail "--trace --backend=intel_pt: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/t.ndjson" >/dev/null || fail "--trace recording invalid"
[ "$(grep -c '"type":"sample"' "$TMP/t.ndjson")" = 2 ] || fail "--trace: not 2 samples"
grep '"type":"sample"' "$TMP/t.ndjson" | grep -q '"ret":null' || fail "--trace: ret should be null on PT"
[ -z "$expect" ] || assert_executed_per_call "$TMP/t.ndjson" "$expect"
pass "--trace on intel_pt: 2 invocations of work${expect:+, $expect instructions each = callgrind}"
assert_runs "$pid"
