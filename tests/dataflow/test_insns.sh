#!/bin/bash
# --insns: each step's instruction bytes as executed. Oracle: objdump's
# bytes of the df_streams ELF file at the same addresses (module-relative);
# the text beside them is the step's disassembly. A --record of it replays
# (asmspy --replay) to the live text byte for byte with the target gone.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
command -v objdump >/dev/null || skip "objdump missing (the byte oracle); package: binutils"
objdump -d --insn-width=16 "$VICTIM_DIR/df_streams" >"$TMP/objdump.txt" || fail "objdump failed"
start_df_victim -1 2000 0
pid=$VICTIM_PID
base=$(df_module_base "$pid")

for fn in df_store df_loop df_callout; do
  df_capture "$TMP/$fn.ndjson" "$pid" "$fn" --insns
  python3 - "$TMP/$fn.ndjson" "$TMP/objdump.txt" "$base" <<'PY' || fail "--insns $fn vs objdump"
import json, re, sys
d = [json.loads(l) for l in open(sys.argv[1]) if '"type":"dataflow"' in l][0]
elf = {}
for line in open(sys.argv[2]):
    m = re.match(r"^ +([0-9a-f]+):\t((?:[0-9a-f]{2} )+)", line)
    if m:
        elf[int(m.group(1), 16)] = m.group(2).replace(" ", "")
base = int(sys.argv[3], 16)
n = 0
for t in d["trace"]:
    if t["kind"] == "callout":
        assert "bytes" not in t, t
        continue
    off = int(t["addr"], 16) - base
    assert t["bytes"] == elf[off], (hex(off), t["bytes"], elf.get(off))
    n += 1
print(n)
PY
done
"$ASMSPY" --dataflow "$pid" df_store --insns >"$TMP/store.txt" 2>"$TMP/err" || fail "text: $(cat "$TMP/err")"
grep -qE '^        insn: 48 c7 05 [0-9a-f ]+ 07 00 00 00  mov qword ptr \[rip \+ 0x[0-9a-f]+\], 7$' "$TMP/store.txt" \
  || fail "no insn line for the store of 7: $(cat "$TMP/store.txt")"
pass "df_store, df_loop, df_callout: every step's bytes = objdump's at that address; call-outs carry none"

# a self-contained recording: replayed with the target gone
"$ASMSPY" --dataflow "$pid" df_store --insns --record="$TMP/store.asmtrace" >"$TMP/live.txt" 2>"$TMP/err" \
  || fail "--record: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/store.asmtrace" >/dev/null || fail "recording invalid: $("$ASMTRACE_CHECK" "$TMP/store.asmtrace")"
grep -q '"bytes":"48' "$TMP/store.asmtrace" || fail "no bytes in the recording"
assert_runs "$pid"
kill -9 "$pid"
i=0; while [ -e "/proc/$pid" ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i + 1)); done
"$ASMSPY" --replay "$TMP/store.asmtrace" >"$TMP/replay.txt" 2>"$TMP/err" || fail "--replay: $(cat "$TMP/err")"
cmp -s "$TMP/live.txt" "$TMP/replay.txt" || fail "replay differs: $(diff "$TMP/live.txt" "$TMP/replay.txt")"
grep -c '^        insn:' "$TMP/replay.txt" | grep -qx 7 || fail "replay lacks the 7 insn lines"
pass "--replay of the --insns recording = the live text, target gone"
