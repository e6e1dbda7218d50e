#!/bin/bash
# --fpregs: vector/x87 operands get values and def-use; with --steps the
# whole FP/vector register file. Oracles: the victim's printed result bits
# of df_sse(i, 0.25) = i*1.5 + 0.25; its source constants (0.25 in xmm1,
# 3.0L as x87 operand); the AVX sum of squares computed here from the
# entry value; gdb's xmm1 and mxcsr at a breakpoint on df_sse.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
command -v gdb >/dev/null || skip "gdb missing (the register oracle); package: gdb"
gdb -nx -batch -ex 'break df_sse' -ex run -ex 'p/x $xmm1.v2_int64[0]' -ex 'p/x $mxcsr' \
  --args "$VICTIM_DIR/df_streams" 1 0 >"$TMP/gdb.txt" 2>&1 || fail "gdb failed: $(tail -5 "$TMP/gdb.txt")"
gdb_xmm1=$(awk '/^\$1 = / {print $3}' "$TMP/gdb.txt")
gdb_mxcsr=$(awk '/^\$2 = / {print $3}' "$TMP/gdb.txt")
[ -n "$gdb_xmm1" ] && [ -n "$gdb_mxcsr" ] || fail "gdb gave no xmm1/mxcsr: $(cat "$TMP/gdb.txt")"
start_df_victim -1 2000 0
pid=$VICTIM_PID

df_capture "$TMP/sse.ndjson" "$pid" df_sse --fpregs --steps
python3 - "$TMP/sse.ndjson" "$DF_OUT" "$gdb_xmm1" "$gdb_mxcsr" <<'PY' || fail "df_sse --fpregs"
import json, struct, sys, time
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
def f64(h): return struct.unpack("<d", struct.pack("<Q", int(h, 16) & (2**64 - 1)))[0]
reads0 = {r["loc"]: r for r in tr[0]["reads"]}
x = f64(reads0["xmm0"]["value"])
assert x == int(x) and reads0["xmm0"]["live_in"], reads0["xmm0"]
add = next(t for t in tr if t["disasm"].startswith("addsd"))
r = {r["loc"]: r for r in add["reads"]}
assert r["xmm0"]["def"] == 0, r["xmm0"]                       # def-use: the mulsd
assert int(r["xmm1"]["value"], 16) == int(sys.argv[3], 16), (r["xmm1"], sys.argv[3])  # gdb: 0.25
out = [w for w in add["writes"] if w["loc"] == "xmm0"][0]
bits = int(out["value"], 16) & (2**64 - 1)
line = None
for _ in range(200):
    line = next((l.split() for l in open(sys.argv[2]) if l.startswith("vec %x " % int(x))), None)
    if line: break
    time.sleep(0.02)
assert line, "the victim printed no vec line for %d" % x
assert bits == int(line[2], 16), (hex(bits), line)
fp = tr[0]["fpregs"]
assert int(fp["mxcsr"], 16) == int(sys.argv[4], 16), (fp["mxcsr"], sys.argv[4])
assert f64(fp["vec"][0]) == x and int(fp["vec"][1], 16) & (2**64 - 1) == int(sys.argv[3], 16), fp["vec"][:2]
print(int(x))
PY
pass "df_sse: xmm0/xmm1 read with values (xmm1 = gdb's), addsd's xmm0 defined by mulsd, the result = the victim's printed bits; --steps fpregs mxcsr = gdb's"

df_capture "$TMP/avx.ndjson" "$pid" df_avx --fpregs
python3 - "$TMP/avx.ndjson" <<'PY' || fail "df_avx --fpregs"
import json, struct, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
def f64(v): return struct.unpack("<d", struct.pack("<Q", v & (2**64 - 1)))[0]
x = f64(int(next(r for r in tr[0]["reads"] if r["loc"] == "xmm0")["value"], 16))
ymm = [r for t in tr for r in t["reads"] if r["loc"].startswith("ymm")]
assert ymm and all(r["size"] == 32 and r["value"] for r in ymm), ymm
assert all(r["def"] is not None for r in ymm), "a ymm read with no def inside the function"
last = [w for t in tr for w in t["writes"] if w["loc"] == "xmm0"][-1]
got = f64(int(last["value"], 16))
want = sum((x + k) ** 2 for k in range(4))
assert got == want, (got, want)
print(x)
PY
pass "df_avx: 32-byte ymm values, each defined inside the function; the result = the sum of squares of the entry value"

df_capture "$TMP/x87.ndjson" "$pid" df_x87 --fpregs --steps
python3 - "$TMP/x87.ndjson" <<'PY' || fail "df_x87 --fpregs"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
def f80(h):
    v = int(h, 16); mant = v & (2**64 - 1); exp = (v >> 64) & 0x7fff; sign = -1 if v >> 79 else 1
    return 0.0 if not mant else sign * mant / 2.0**63 * 2.0 ** (exp - 16383)
flds = [i for i, t in enumerate(tr) if t["disasm"].startswith("fld")]
assert len(flds) == 2, [t["disasm"] for t in tr]
after = tr[flds[1] + 1]["fpregs"]   # the state after both loads
a, b = f80(after["st"][1]), f80(after["st"][0])
assert b == 3.0 and a == int(a), (a, b)
st1 = [r for t in tr for r in t["reads"] if r["loc"] == "st(1)"]
assert st1 and f80(st1[0]["value"]) == a and st1[0]["size"] == 10, st1
assert st1[0]["def"] == flds[0], ("st(1) is not defined by the first fld", st1[0])
for i in flds:   # each fld writes st(0) with the 10 bytes it read
    mem = [r for r in tr[i]["reads"] if r["loc"].startswith("[")][0]
    st0 = [w for w in tr[i]["writes"] if w["loc"] == "st(0)"]
    assert st0 and int(st0[0]["value"], 16) == int(mem["value"], 16), (tr[i], st0)
PY
pass "df_x87: each fld writes st(0) with the bytes it loaded; after both st(0) = 3.0L (the source constant), st(1) = the integer argument; fmulp reads st(1), defined by the first fld"

# --statediff --fpregs: the FP registers each step changed
df_capture "$TMP/sdiff.ndjson" "$pid" df_sse --fpregs --statediff
python3 - "$TMP/sdiff.ndjson" <<'PY' || fail "df_sse --statediff --fpregs"
import json, struct, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
def f64(v): return struct.unpack("<d", struct.pack("<Q", v & (2**64 - 1)))[0]
x = f64(int(next(r for r in tr[0]["reads"] if r["loc"] == "xmm0")["value"], 16))
fp0 = tr[0]["diff"]["fp"]
assert len(fp0) == 1 and fp0[0]["reg"] in ("xmm0", "ymm0", "zmm0"), fp0
assert f64(int(fp0[0]["before"], 16)) == x and f64(int(fp0[0]["after"], 16)) == x * 1.5, fp0
assert tr[1]["diff"]["fp"] and f64(int(tr[1]["diff"]["fp"][0]["after"], 16)) == x * 1.5 + 0.25
PY
df_capture "$TMP/x87diff.ndjson" "$pid" df_x87 --fpregs --statediff
python3 - "$TMP/x87diff.ndjson" <<'PY' || fail "df_x87 --statediff --fpregs"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
flds = [t for t in tr if t["disasm"].startswith("fld")]
for t in flds:   # a load into a free register: before "empty", after the bytes loaded
    st0 = [c for c in t["diff"]["fp"] if c["reg"] == "st(0)"]
    mem = [r for r in t["reads"] if r["loc"].startswith("[")][0]
    assert st0 and st0[0]["before"] == "empty" and int(st0[0]["after"], 16) == int(mem["value"], 16), t["diff"]
assert not any(c for t in tr if t["disasm"].startswith(("push", "pop", "mov")) for c in t["diff"]["fp"])
PY
pass "--statediff --fpregs: mulsd/addsd change xmm0 from x to 1.5x to 1.5x+0.25; each fld fills an empty st(0) with its bytes; gpr-only steps change no FP register"

df_capture "$TMP/plain.ndjson" "$pid" df_sse
grep -q '"loc":"xmm' "$TMP/plain.ndjson" && fail "xmm operands without --fpregs"
pass "without --fpregs: no vector operands (the default output is unchanged)"
assert_runs "$pid"
