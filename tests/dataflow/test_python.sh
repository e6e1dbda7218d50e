#!/bin/bash
# A real interpreter: CPython running a loop whose ints come from
# PyLong_FromLong (range iteration); --dataflow on that libpython function
# with --mem --statediff --continuous 3 captures three whole invocations,
# and the interpreter runs on with its own arithmetic check intact (it
# exits 3 on a wrong sum).
. "$(dirname "$0")/../e2e/lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing"
py=$(command -v python3)
"$py" -c '
import os, sys, time
print(os.getpid(), flush=True)
want = sum(i * 7 for i in range(1000, 2000))
while True:
    if sum(i * 7 for i in range(1000, 2000)) != want:
        print("SUM MISMATCH", file=sys.stderr); sys.exit(3)
    time.sleep(0.001)
' >"$TMP/py.out" 2>"$TMP/py.err" &
ppid=$!
VICTIM_PIDS="$VICTIM_PIDS $ppid"
i=0; while [ ! -s "$TMP/py.out" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
[ "$(head -1 "$TMP/py.out")" = "$ppid" ] || fail "python did not start: $(cat "$TMP/py.err")"
"$ASMSPY" --syms "$ppid" PyLong_FromLong >"$TMP/syms" 2>&1
grep -q 'PyLong_FromLong' "$TMP/syms" || skip "this python3 ($py) exports no PyLong_FromLong symbol: $(head -2 "$TMP/syms")"

"$ASMSPY" --dataflow "$ppid" PyLong_FromLong 3 --mem --statediff --continuous --json >"$TMP/py.ndjson" 2>"$TMP/err" \
  || fail "--dataflow on python failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/py.ndjson" >/dev/null || fail "invalid: $("$ASMTRACE_CHECK" "$TMP/py.ndjson")"
python3 - "$TMP/py.ndjson" >"$TMP/facts" <<'PY' || fail "python records: $(cat "$TMP/facts")"
import json, sys
df = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l]
assert [d["invocation"] for d in df] == [1, 2, 3], [d["invocation"] for d in df]
for d in df:
    assert not d["truncated"] and d["steps"] > 0, d["steps"]
    insns = [t for t in d["trace"] if t["kind"] == "insn"]
    assert all("mem" in t and "diff" in t for t in insns)
    # the result is a PyObject*: some step's diff made rax that pointer
    assert any(r["reg"] == "rax" and int(r["after"], 16) == d["ret"] & (2**64 - 1)
               for t in d["trace"] for r in t["diff"]["regs"]), "ret never appears as a rax change"
print(" ".join(str(d["steps"]) for d in df))
PY
grep -q MISMATCH "$TMP/py.err" && fail "the interpreter's sum broke"
assert_runs "$ppid"
pass "PyLong_FromLong x3 in CPython ($(cat "$TMP/facts") steps): mem + statediff recorded, interpreter runs on, sum intact"
