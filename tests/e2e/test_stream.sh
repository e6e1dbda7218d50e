#!/bin/bash
# --stream end to end on the singlestep backend: the text and JSON outputs,
# objdump agreement, the recording round trip, and the target surviving.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

start_victim victim_spin
pid=$VICTIM_PID

# 1. human text: n lines, each `function+0xoff [module]  disasm`
"$ASMSPY" --stream "$pid" 50 >"$TMP/text" 2>"$TMP/err" || fail "--stream exited $?: $(cat "$TMP/err")"
n=$(wc -l <"$TMP/text")
[ "$n" = 50 ] || fail "expected 50 lines, got $n"
grep -qE '^spin_body\+0x[0-9a-f]+ +\[victim_spin\] +[a-z]' "$TMP/text" || fail "no spin_body line: $(head -3 "$TMP/text")"
pass "text stream has 50 lines in spin_body [victim_spin]"
assert_runs "$pid"
pass "target running and untraced after detach"

# 2. JSON: a valid recording; every instruction agrees with objdump
"$ASMSPY" --stream "$pid" 300 --json >"$TMP/s.ndjson" || fail "--stream --json failed"
"$ASMTRACE_CHECK" "$TMP/s.ndjson" || fail "JSON stream is not a valid recording"
[ "$(grep -c '"type":"insn"' "$TMP/s.ndjson")" = 300 ] || fail "expected 300 insn events"
python3 "$(dirname "$0")/stream_objdump.py" "$VICTIM_DIR/victim_spin" "$TMP/s.ndjson" || fail "objdump disagrees"
pass "300 insn events validate and agree with objdump"
assert_runs "$pid"

# 3. --record without --json: text on stdout AND a valid file
"$ASMSPY" --stream "$pid" 40 --record="$TMP/r.asmtrace" >"$TMP/text2" || fail "--record failed"
[ "$(wc -l <"$TMP/text2")" = 40 ] || fail "--record suppressed the text output"
"$ASMTRACE_CHECK" "$TMP/r.asmtrace" | grep -q 'events=40' || fail "recording invalid or wrong count: $("$ASMTRACE_CHECK" "$TMP/r.asmtrace")"
# 4. --json and --record together write the same lines
"$ASMSPY" --stream "$pid" 25 --json --record="$TMP/both.asmtrace" >"$TMP/both.ndjson"
cmp -s "$TMP/both.ndjson" "$TMP/both.asmtrace" || fail "--json and --record lines differ"
"$ASMTRACE_CHECK" "$TMP/both.asmtrace" >/dev/null || fail "combined recording invalid"
pass "--record alone keeps text; --json + --record are identical and valid"
grep -q '"reason":"n_reached"' "$TMP/both.asmtrace" || fail "footer reason is not n_reached"
assert_runs "$pid"
pass "target still running after 4 sessions"
