#!/bin/bash
# --steps: the register file each step saw. Oracles:
#   - gdb's `info registers` at a breakpoint on df_blend (same binary, same
#     arguments 7, 5, 99): rdi/rsi/rdx, cs/ss and rip's offset in the module
#     equal step 0's; every register gdb names is in the step's regs;
#   - the victim's printed thread pointer (pthread_self) is fs_base;
#   - rip of each step is its address; the ABI's entry alignment (rsp % 16 = 8);
#   - the number of instruction steps of df_loop(10) is callgrind's count.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
command -v gdb >/dev/null || skip "gdb missing (the register oracle); package: gdb"

# oracle 1: gdb at df_blend's first instruction
gdb -nx -batch -ex 'break df_blend' -ex run -ex 'info registers' \
  --args "$VICTIM_DIR/df_streams" 1 0 >"$TMP/gdb.txt" 2>&1 || fail "gdb failed: $(tail -5 "$TMP/gdb.txt")"
grep -qE '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <df_blend>' "$TMP/gdb.txt" || fail "gdb did not stop at df_blend: $(cat "$TMP/gdb.txt")"
gdb_base=$(gdb -nx -batch -ex 'break df_blend' -ex run -ex 'info proc mappings' \
  --args "$VICTIM_DIR/df_streams" 1 0 2>/dev/null | awk '/df_streams$/ {print $1; exit}')
[ -n "$gdb_base" ] || fail "gdb gave no mapping of df_streams"

start_df_victim -1 2000 0
pid=$VICTIM_PID
tp=$(awk '$1 == "tp" {print $2; exit}' "$DF_OUT")
base=$(df_module_base "$pid")
df_capture "$TMP/blend.ndjson" "$pid" df_blend --steps
python3 - "$TMP/blend.ndjson" "$TMP/gdb.txt" "$gdb_base" "$base" "$tp" <<'PY' || fail "--steps vs gdb"
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]
gdb = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 3 and f[1].startswith("0x"):  # "name 0xhex natural"
        gdb[f[0]] = int(f[1], 16)
gdb_base, base, tp = int(sys.argv[3], 16), int(sys.argv[4], 16), int(sys.argv[5], 16)
step0 = {k: int(v, 16) for k, v in d["trace"][0]["regs"].items()}
named = {"eflags": "rflags"}
missing = [g for g in gdb if named.get(g, g) not in step0 and not g.startswith("k")]  # k0-k7: AVX-512 masks
assert not missing, "gdb names registers --steps lacks: %s" % missing
for r in ("rdi", "rsi", "rdx", "cs", "ss"):
    assert step0[r] == gdb[r], (r, hex(step0[r]), hex(gdb[r]))
assert step0["rdi"] == 7 and step0["rsi"] == 5 and step0["rdx"] == 99, step0
assert step0["rip"] - base == gdb["rip"] - gdb_base, (hex(step0["rip"] - base), hex(gdb["rip"] - gdb_base))
assert step0["fs_base"] == tp, ("fs_base", hex(step0["fs_base"]), hex(tp))
assert step0["rsp"] % 16 == 8, hex(step0["rsp"])
for t in d["trace"]:
    assert int(t["regs"]["rip"], 16) == int(t["addr"], 16), t
print("gdb-checked:", ", ".join("%s=%#x" % (r, step0[r]) for r in ("rdi", "rsi", "rdx", "cs", "ss")))
PY
pass "step 0 of df_blend = gdb's info registers (args, selectors, rip offset); fs_base = the victim's thread pointer"

# consecutive steps agree: a register written by step i holds that value at step i+1
python3 - "$TMP/blend.ndjson" <<'PY' || fail "--steps inconsistent with the writes"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]["trace"]
for a, b in zip(tr, tr[1:]):
    for w in a["writes"]:
        if not w["loc"].startswith("[") and w["value"] is not None and w["loc"] != "rip":
            assert int(b["regs"][w["loc"]], 16) == int(w["value"], 16), (a, b)
PY
pass "each step's regs carry the previous step's register writes"

# oracle 2: callgrind's instruction count of df_loop(10) per call
expect=$(callgrind_per_call df_streams df_loop 5 5 0)
df_capture "$TMP/loop.ndjson" "$pid" df_loop --steps
steps=$(python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if "\"type\":\"dataflow\"" in l][0]
assert all("regs" in t for t in d["trace"])
print(len([t for t in d["trace"] if t["kind"] == "insn"]))' "$TMP/loop.ndjson")
if [ -n "$expect" ]; then
  [ "$steps" = "$expect" ] || fail "df_loop: $steps steps with --steps, callgrind counts $expect"
  pass "df_loop(10): $steps steps = callgrind's count, each with its register file"
else
  skip "valgrind missing: no callgrind count to compare df_loop's $steps steps with (package: valgrind)"
fi
assert_runs "$pid"
