#!/bin/bash
# --continuous: invocation after invocation, each its own complete record
# with its number and thread. Four victim threads call df_shared(x) at once
# and check each result against the formula computed inline (a corrupted
# register or stack slot exits the victim with "CHECKSUM MISMATCH"). Oracles:
# objdump's instruction count of the loop-free df_shared is each record's
# step count; ret = x*x + 3x + 1 of its own live-in rdi. Endings: the count
# reached, SIGTERM to asmspy, SIGKILL of asmspy — the target runs on after
# each, untraced, its checksum intact.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/df_lib.sh"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
command -v objdump >/dev/null || skip "objdump missing (the step-count oracle); package: binutils"
# loop-free: its executed instructions are its instructions
insns=$(objdump -d --no-show-raw-insn "$VICTIM_DIR/df_streams" |
  awk '/^[0-9a-f]+ <df_shared>:$/ {on = 1; next} on && /^$/ {exit} on && /:\t/ {n++} END {print n}')
[ "${insns:-0}" -gt 0 ] || fail "objdump found no df_shared"
objdump -d "$VICTIM_DIR/df_streams" | awk '/<df_shared>:$/ {on = 1; next} on && /^$/ {exit} on' | grep -qE '\sj[a-z]+\s' \
  && fail "df_shared has a branch: the objdump count is no oracle"
start_df_victim -1 2000 4
pid=$VICTIM_PID

check_records() { # FILE MIN_N [last may be truncated]
  python3 - "$1" "$2" "$insns" "${3:-}" <<'PY'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
df = [e for e in evs if e["type"] == "dataflow"]
n, insns, lenient = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "lenient"
assert len(df) >= n, "%d records, want %d" % (len(df), n)
assert [d["invocation"] for d in df] == list(range(1, len(df) + 1)), [d["invocation"] for d in df]
full = df[:-1] if lenient and df[-1]["truncated"] else df
for d in full:
    assert not d["truncated"] and d["steps"] == insns, (d["invocation"], d["steps"], insns)
    x = int(next(r for r in d["trace"][0]["reads"] if r["loc"] == "rdi")["value"], 16)
    assert d["ret"] == x * x + 3 * x + 1, (d["invocation"], x, d["ret"])
tids = {d["tid"] for d in df}
print(len(df), len(tids))
PY
}
victim_intact() {
  grep -q MISMATCH "$TMP/df_streams.err" && fail "the victim's checksum broke: $(cat "$TMP/df_streams.err")"
  assert_runs "$pid"
}

# 1. a count: exactly n invocations, then the session ends by itself
df_capture "$TMP/n.ndjson" "$pid" df_shared 12 --continuous
check_records "$TMP/n.ndjson" 12 >"$TMP/facts" 2>&1 || fail "count run: $(tail -2 "$TMP/facts")"
read -r got tids <"$TMP/facts"
[ "$got" = 12 ] || fail "12 asked, $got records"
[ "$tids" -ge 2 ] || fail "12 invocations all from one of 4 threads"
victim_intact
pass "12 invocations from $tids threads, each $insns steps (objdump) and ret = x*x+3x+1; victim intact"

# text: one header per invocation
"$ASMSPY" --dataflow "$pid" df_shared 3 --continuous >"$TMP/n.txt" 2>"$TMP/err" || fail "text: $(cat "$TMP/err")"
[ "$(grep -c '^data flow — df_shared @ ' "$TMP/n.txt")" = 3 ] || fail "3 text headers expected: $(cat "$TMP/n.txt")"
pass "text: a count of 3 prints 3 invocations"

# 2. and 3. no count: until SIGTERM / SIGKILL of asmspy
for sig in TERM KILL; do
  "$ASMSPY" --dataflow "$pid" df_shared --continuous --json >"$TMP/$sig.ndjson" 2>"$TMP/$sig.err" &
  spy=$!
  i=0
  while [ "$(grep -c '"type":"dataflow"' "$TMP/$sig.ndjson")" -lt 5 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
  [ $i -lt 1000 ] || fail "SIG$sig run: fewer than 5 invocations captured: $(cat "$TMP/$sig.err")"
  kill -"$sig" "$spy"
  set +e; wait "$spy"; rc=$?; set -e
  i=0
  while [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" != 0 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
  victim_intact
  if [ "$sig" = TERM ]; then
    [ "$rc" = 0 ] || fail "SIGTERM: asmspy exited $rc: $(cat "$TMP/$sig.err")"
    check_records "$TMP/$sig.ndjson" 5 lenient >"$TMP/facts" 2>&1 || fail "SIGTERM records: $(tail -2 "$TMP/facts")"
    read -r got tids <"$TMP/facts"
    pass "SIGTERM after $got invocations: exit 0, each record whole (the last may be cut: truncated), victim intact"
  else
    pass "SIGKILL of asmspy mid-capture: the victim runs on untraced, checksum intact"
  fi
done

# 4. no count, the target exits: the session ends with it (exit 0), every
# invocation captured on the way whole
start_df_victim 300 2000 0
"$ASMSPY" --dataflow "$VICTIM_PID" df_store --continuous --json >"$TMP/exit.ndjson" 2>"$TMP/err" \
  || fail "--continuous to the target's exit: $(cat "$TMP/err")"
python3 - "$TMP/exit.ndjson" <<'PY' || fail "--continuous to the target's exit"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
df = [e for e in evs if e["type"] == "dataflow"]
assert df and [d["invocation"] for d in df] == list(range(1, len(df) + 1))
assert all(not d["truncated"] and d["ret"] is not None for d in df), "a cut invocation"
end = evs[-1]
assert end["type"] == "end" and end["reason"] == "target_exited", end
PY
pass "no count: ends when the target exits (exit 0, reason target_exited), each invocation whole"
