#!/bin/bash
# A target that exits mid-trace ends the stream cleanly, with a message and a
# footer saying so; --launch traces from the first instruction.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

# --launch: the first instruction is the dynamic loader's entry point. The
# command shares stdout, so the recording goes to a file.
"$ASMSPY" --launch stream --record="$TMP/launch.asmtrace" -- "$VICTIM_DIR/victim_exit" 3 \
  >"$TMP/launch.txt" 2>"$TMP/err" || fail "--launch stream failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/launch.asmtrace" >/dev/null || fail "launch recording invalid"
first=$(grep -m1 '"type":"insn"' "$TMP/launch.asmtrace")
echo "$first" | grep -q '"module":"ld-linux-x86-64.so.2"' || fail "first instruction not in ld.so: $first"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
entry=$(readelf -h "$ld" | awk '/Entry point/ {print $4}')
first_bytes=$(echo "$first" | sed 's/.*"bytes":"\([0-9a-f]*\)".*/\1/')
want_bytes=$(od -An -tx1 -v -j $((entry)) -N $((${#first_bytes} / 2)) "$ld" | tr -d ' \n')
[ "$first_bytes" = "$want_bytes" ] || fail "first bytes $first_bytes != ld.so entry bytes $want_bytes"
pass "--launch starts at ld.so's ELF entry point ($entry): $(echo "$first" | sed 's/.*"disasm":"\([^"]*\)".*/\1/')"

# run the launched victim to completion: the end says target_exited
"$ASMSPY" --launch stream -1 --record="$TMP/all.asmtrace" -- "$VICTIM_DIR/victim_exit" 2 \
  >/dev/null 2>"$TMP/err" || fail "--launch stream -1 failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/all.asmtrace" >/dev/null || fail "run-to-exit recording invalid"
tail -1 "$TMP/all.asmtrace" | grep -q '"reason":"target_exited"' || fail "footer: $(tail -1 "$TMP/all.asmtrace")"
grep -q '"what":"exit"' "$TMP/all.asmtrace" || fail "no exit task event"
grep -q '"sym":"step_once"' "$TMP/all.asmtrace" || fail "victim's own step_once never streamed"
n=$(grep -c '"type":"insn"' "$TMP/all.asmtrace")
pass "launched victim streamed to its exit: $n instructions, footer target_exited"

# attach to a running victim that exits while traced (text mode)
start_victim victim_exit 200 300000
"$ASMSPY" --stream "$VICTIM_PID" -1 >"$TMP/text" 2>"$TMP/err" || fail "stream of exiting target failed: $(cat "$TMP/err")"
grep -q "target exited" "$TMP/err" || fail "no 'target exited' message: $(cat "$TMP/err")"
grep -q '^step_once+0x' "$TMP/text" || fail "never saw step_once"
pass "attached stream ends cleanly when the target exits: $(tail -1 "$TMP/err")"
