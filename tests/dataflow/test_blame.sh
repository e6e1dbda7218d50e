#!/bin/bash
# --blame: the backward slice of each result. Oracles from the victim's
# source and output: df_blend(a, b, c) = a*3 + b depends on rdi and rsi and
# not on rdx (passed, unused); df_store's x = a + b depends on rdi, rsi, and
# its `same = 7` on no live-in at all; the mem results are exactly the three
# addresses the victim prints, with its values; nothing on the dead stack.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
start_df_victim -1 2000 0
pid=$VICTIM_PID

df_capture "$TMP/blend.ndjson" "$pid" df_blend --blame
python3 - "$TMP/blend.ndjson" <<'PY' || fail "df_blend's blame"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
b = [e for e in evs if e["type"] == "blame"]
assert len(b) == 1 and b[0]["result"] == "ret", b
b = b[0]
assert int(b["value"], 16) == 7 * 3 + 5, b
ins = {i["loc"]: int(i["value"], 16) for i in b["live_in"]}
assert ins == {"rdi": 7, "rsi": 5}, ins
d = [e for e in evs if e["type"] == "dataflow"][0]
assert b["slice"] == [i for i, t in enumerate(d["trace"]) if t["disasm"] != "ret"], b["slice"]
PY
pass "df_blend(7, 5, 99): ret 26 blames rdi=7 and rsi=5, not rdx"

df_capture "$TMP/store.ndjson" "$pid" df_store --blame
a=$(df_first_arg "$TMP/store.ndjson")
line=$(df_store_line "$a")
python3 - "$TMP/store.ndjson" $line <<'PY' || fail "df_store's blame vs '$line'"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
f = sys.argv[2:]
a = int(f[1], 16)
x, y, same = [(int(f[i], 16), int(f[i + 1], 16)) for i in (2, 4, 6)]
bl = {e["loc"]: e for e in evs if e["type"] == "blame"}
assert set(bl) == {"rax", "[%#x]" % x[0], "[%#x]" % y[0], "[%#x]" % same[0]}, sorted(bl)
for addr, val in (x, y, same):
    assert int(bl["[%#x]" % addr]["value"], 16) == val, (addr, bl["[%#x]" % addr])
def ins(e): return {i["loc"]: int(i["value"], 16) for i in e["live_in"]}
assert ins(bl["[%#x]" % x[0]]) == {"rdi": a, "rsi": a + 3}, bl["[%#x]" % x[0]]
assert ins(bl["[%#x]" % same[0]]) == {}, bl["[%#x]" % same[0]]
assert len(bl["[%#x]" % same[0]]["slice"]) == 1
assert int(bl["rax"]["value"], 16) == x[1] ^ y[1]
PY
"$ASMSPY" --dataflow "$pid" df_store --blame >"$TMP/store.txt" 2>"$TMP/err" || fail "text: $(cat "$TMP/err")"
grep -qE '^blame ret rax=0x[0-9a-f]+ <- #[0-9]+   slice \([0-9]+ steps\):( #[0-9]+)+   live-in: rdi=0x[0-9a-f]+ rsi=0x[0-9a-f]+$' "$TMP/store.txt" \
  || fail "no blame text section: $(cat "$TMP/store.txt")"
pass "df_store($a): ret and the three printed writes are the results; x blames rdi, rsi; same=7 blames nothing"

# a function with a stack frame: its saved registers on the dead stack are no result
df_capture "$TMP/callout.ndjson" "$pid" df_callout --blame
python3 - "$TMP/callout.ndjson" <<'PY' || fail "df_callout's blame"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
bl = [e for e in evs if e["type"] == "blame"]
assert [e["result"] for e in bl] == ["ret"], [(e["result"], e["loc"]) for e in bl]
d = [e for e in evs if e["type"] == "dataflow"][0]
co = next(t["i"] for t in d["trace"] if t["kind"] == "callout")
assert co in bl[0]["slice"], bl[0]
assert "rdi" in {i["loc"] for i in bl[0]["live_in"]}
PY
pass "df_callout: only ret is a result (push rbp and the return slot are dead stack); it blames the call-out and rdi"
assert_runs "$pid"
