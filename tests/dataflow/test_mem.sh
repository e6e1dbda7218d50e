#!/bin/bash
# --mem: every memory access of each step. Oracle: df_store prints the
# addresses of the three fields it wrote and their values; each is a W
# record of exactly that address and value. The implicit accesses: ret reads
# its return slot at rsp; df_callout's call writes the return address (the
# address of the instruction after the call) and the call-out reads it back.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
start_df_victim -1 2000 0
pid=$VICTIM_PID

df_capture "$TMP/store.ndjson" "$pid" df_store --mem
a=$(df_first_arg "$TMP/store.ndjson")
line=$(df_store_line "$a")
python3 - "$TMP/store.ndjson" $line <<'PY' || fail "--mem vs the victim's line '$line'"
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]
f = sys.argv[2:]  # store a &x x &y y &same same
want = [(int(f[i], 16), int(f[i + 1], 16)) for i in (2, 4, 6)]
writes = [(int(m["addr"], 16), int(m["value"], 16), m["size"]) for t in d["trace"] for m in t["mem"] if m["dir"] == "write"]
for addr, val in want:
    assert (addr, val, 8) in writes, ("missing W", hex(addr), hex(val), writes)
assert len(writes) == 3, writes
ret = d["trace"][-1]
assert ret["disasm"] == "ret", ret
rsp = int([r for r in ret["reads"] if r["loc"] == "rsp"][0]["value"], 16)
assert [(int(m["addr"], 16), m["dir"], m["size"]) for m in ret["mem"]] == [(rsp, "read", 8)], ret["mem"]
print("W", ", ".join("%#x=%#x" % w for w in want))
PY
"$ASMSPY" --dataflow "$pid" df_store --mem >"$TMP/store.txt" 2>"$TMP/err" || fail "text: $(cat "$TMP/err")"
grep -qE '^        mem: W \[0x[0-9a-f]+\]:8=0x7$' "$TMP/store.txt" || fail "no text mem line for same=7: $(cat "$TMP/store.txt")"
pass "df_store($a): the victim's three writes are W records with its addresses and values; ret reads [rsp]"

df_capture "$TMP/callout.ndjson" "$pid" df_callout --mem
python3 - "$TMP/callout.ndjson" <<'PY' || fail "--mem: the call's implicit slot"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
k = next(i for i, t in enumerate(tr) if t["kind"] == "callout")
call, co, after = tr[k - 1], tr[k], tr[k + 1]
assert call["disasm"].startswith("call"), call
rsp = int([r for r in call["reads"] if r["loc"] == "rsp"][0]["value"], 16)
ret_addr = int(after["addr"], 16)
assert [(int(m["addr"], 16), m["dir"], int(m["value"], 16)) for m in call["mem"]] == [(rsp - 8, "write", ret_addr)], call["mem"]
assert [(int(m["addr"], 16), m["dir"], int(m["value"], 16)) for m in co["mem"]] == [(rsp - 8, "read", ret_addr)], co["mem"]
PY
pass "df_callout: call writes [rsp-8] = the return address; the call-out reads that slot"
assert_runs "$pid"
