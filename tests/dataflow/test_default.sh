#!/bin/bash
# --dataflow without the opt-in flags writes none of their members or lines
# (each stream is opt-in); each flag adds exactly its member; a count
# without --continuous and a flag given a value are usage errors (exit 2).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
start_df_victim -1 2000 0
pid=$VICTIM_PID

df_capture "$TMP/plain.ndjson" "$pid" df_store
"$ASMSPY" --dataflow "$pid" df_store >"$TMP/plain.txt" 2>"$TMP/err" || fail "text run failed: $(cat "$TMP/err")"
grep -qE '^ +(regs|mem|diff|insn):' "$TMP/plain.txt" && fail "a stream line without its flag: $(cat "$TMP/plain.txt")"
grep -q '^blame' "$TMP/plain.txt" && fail "a blame line without --blame"
python3 - "$TMP/plain.ndjson" <<'PY' || fail "default JSON carries a stream member"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
assert not [e for e in evs if e["type"] == "blame"], "blame records"
d = [e for e in evs if e["type"] == "dataflow"][0]
assert "invocation" not in d, d.keys()
for t in d["trace"]:
    assert set(t) == {"i", "kind", "off", "addr", "disasm", "reads", "writes"} - ({"callee"} if 0 else set()) | ({"callee"} if t["kind"] == "callout" else set()), t.keys()
PY
pass "no flag: no stream member, line or record"

for flag in steps mem statediff insns; do
  df_capture "$TMP/$flag.ndjson" "$pid" df_store "--$flag"
  python3 - "$TMP/$flag.ndjson" "$flag" <<'PY' || fail "--$flag: wrong members"
import json, sys
member = {"steps": "regs", "mem": "mem", "statediff": "diff", "insns": "bytes"}[sys.argv[2]]
others = {"regs", "mem", "diff", "bytes"} - {member}
d = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]
assert all(member in t for t in d["trace"] if t["kind"] == "insn"), member
assert not any(o in t for t in d["trace"] for o in others), others
PY
done
pass "--steps/--mem/--statediff/--insns each add their own member only"

expect_exit 2 "$ASMSPY" --dataflow "$pid" df_store 3
grep -q "no count" "$TMP/err" || fail "count without --continuous: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --dataflow "$pid" df_store --steps=1
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "--steps=1: not one line: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --dataflow "$pid" df_store --continuous 0
pass "a count without --continuous, --steps=1, a zero count -> exit 2"
assert_runs "$pid"
