#!/bin/bash
# --statediff: per step only what changed. Oracle: df_store(a, a+3) writes
# x = 2a+3, y = a(a+3) and same = 7 (the value already there since its
# first call); the victim prints each round's values. The write of same is
# in the --mem log but not in the diff; x's diff goes from the previous
# round's printed x to this round's; the registers the step changed are
# there with the victim's values, unchanged ones (and rip) never.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
start_df_victim -1 2000 0
pid=$VICTIM_PID
# past the first round: same already holds 7 when the capture runs
df_store_line 1 >/dev/null

df_capture "$TMP/store.ndjson" "$pid" df_store --statediff --mem
a=$(df_first_arg "$TMP/store.ndjson")
line=$(df_store_line "$a")
prev=$(df_store_line "$(printf '%x' $((0x$a - 1)))")
python3 - "$TMP/store.ndjson" $line $prev <<'PY' || fail "--statediff vs '$line' / '$prev'"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
f, p = sys.argv[2:10], sys.argv[10:18]
a = int(f[1], 16)
(xa, xv), (ya, yv), (sa, sv) = [(int(f[i], 16), int(f[i + 1], 16)) for i in (2, 4, 6)]
prev_x = int(p[3], 16)
def writer(addr):
    return next(t for t in tr if any(m["dir"] == "write" and int(m["addr"], 16) == addr for m in t["mem"]))
s = writer(sa)
assert s["diff"]["mem"] == [], ("a write of the same value shown as a change", s)
x = writer(xa)
assert [(int(m["addr"], 16), int(m["before"], 16), int(m["after"], 16)) for m in x["diff"]["mem"]] == [(xa, prev_x, xv)], x["diff"]
regs = {(t["i"], r["reg"]): (int(r["before"], 16), int(r["after"], 16)) for t in tr for r in t["diff"]["regs"]}
assert all(b != af for b, af in regs.values()), "an unchanged register in a diff"
assert not any(reg == "rip" for _, reg in regs), "rip in a diff"
assert regs[(0, "rax")][1] == xv == 2 * a + 3, regs.get((0, "rax"))
imul = next(t for t in tr if t["disasm"].startswith("imul"))
assert ("rdi" in [r["reg"] for r in imul["diff"]["regs"]]), imul["diff"]
assert regs[(imul["i"], "rdi")] == (a, yv), regs[(imul["i"], "rdi")]
print("ok")
PY
"$ASMSPY" --dataflow "$pid" df_store --statediff >"$TMP/store.txt" 2>"$TMP/err" || fail "text: $(cat "$TMP/err")"
grep -q '^        diff: (nothing)$' "$TMP/store.txt" || fail "the same-value write's step shows a change: $(cat "$TMP/store.txt")"
grep -qE '^        diff: rax 0x[0-9a-f]+->0x[0-9a-f]+$' "$TMP/store.txt" || fail "no rax change line: $(cat "$TMP/store.txt")"
x_now=$(echo "$line" | cut -d' ' -f4)
x_before=$(echo "$prev" | cut -d' ' -f4)
pass "df_store(0x$a): same=7 rewritten is no change; x 0x$x_before -> 0x$x_now as printed; rax, rdi changes with the victim values"
assert_runs "$pid"
