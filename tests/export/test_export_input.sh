#!/bin/bash
# asmspy --export on hand-written recordings (no target, no backend): the
# usage errors (exit 2), unusable input (exit 1, one clear line: missing
# file, empty file, a garbage line, no calls), a truncated recording (the
# events read are exported, with a warning), hostile names (no raw control
# byte reaches the output; folded lines keep their shape; the DOT escapes
# quotes), absurd depths and thread ids, and the nesting rules derived from
# depth order (call records) and from call / ret (executed instructions).
. "$(dirname "$0")/../e2e/lib.sh"
CHECK="$(dirname "$0")/check_export.py"
command -v python3 >/dev/null || skip "python3 missing"

HDR='{"type":"header","format":"asmtrace","format_version":1,"tool":"asmspy","tool_version":"0.1.0","mode":"x","pid":5,"backend":null,"host":{"kernel":"k","arch":"x86_64"},"start_time":"2026-12-03T00:00:00Z"}'
end() { echo "{\"type\":\"end\",\"events\":$1,\"lost\":0,\"reason\":\"n_reached\",\"status\":0}"; }
call() { echo "{\"type\":\"call\",\"seq\":$1,\"tid\":$2,\"depth\":$3,\"name\":$4,\"module\":\"m\"}"; }
insn() { echo "{\"type\":\"insn\",\"seq\":$1,\"tid\":$2,\"ip\":\"0x$1\",\"sym\":$3,\"off\":0,\"module\":\"m\",\"bytes\":\"90\",\"disasm\":\"$4\"}"; }

# a small call tree on two threads: main -> a -> b, a; thread 7: c
{ echo "$HDR"; call 1 5 0 '"main"'; call 2 5 1 '"a"'; call 3 7 0 '"c"'; call 4 5 2 '"b"';
  call 5 5 1 '"a"'; call 6 5 0 '"main"'; end 6; } >"$TMP/ok.asmtrace"

# 1. usage: exit 2
expect_exit 2 "$ASMSPY" --export "$TMP/ok.asmtrace"
grep -q 'needs a format' "$TMP/err" || fail "no format: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --export=svg "$TMP/ok.asmtrace"
expect_exit 2 "$ASMSPY" --export=dot
expect_exit 2 "$ASMSPY" --export=dot "$TMP/ok.asmtrace" "$TMP/ok.asmtrace"
expect_exit 2 "$ASMSPY" --export=dot --format=folded "$TMP/ok.asmtrace"
expect_exit 2 "$ASMSPY" --export=dot --frobnicate "$TMP/ok.asmtrace"
pass "usage errors exit 2"

# 2. the small tree: nesting from depth order, per thread
"$ASMSPY" --export=folded "$TMP/ok.asmtrace" >"$TMP/ok.folded" 2>/dev/null || fail "folded exited $?"
printf 'c 1\nmain 2\nmain;a 2\nmain;a;b 1\n' >"$TMP/want"
LC_ALL=C sort "$TMP/ok.folded" | cmp -s "$TMP/want" - || fail "folded: $(cat "$TMP/ok.folded")"
"$ASMSPY" --export=perfetto "$TMP/ok.asmtrace" >"$TMP/ok.json" || fail "perfetto exited $?"
r=$(python3 "$CHECK" perfetto "$TMP/ok.json") || fail "perfetto: $r"
[ "$r" = "events=18 threads=2 max_depth=3" ] || fail "perfetto: $r"
"$ASMSPY" --export=dot "$TMP/ok.asmtrace" >"$TMP/ok.dot" || fail "dot exited $?"
grep -q 'label="main\\n2 calls"' "$TMP/ok.dot" || fail "dot: $(cat "$TMP/ok.dot")"
[ "$(grep -c -- ' -> ' "$TMP/ok.dot")" = 2 ] || fail "dot: expected main->a, a->b: $(cat "$TMP/ok.dot")"
pass "call records: folded, perfetto (balanced on 2 threads), dot"

# 3. executed instructions: call pushes the next instruction's function, ret pops
{ echo "$HDR"; insn 1 5 '"main"' 'mov eax, 1'; insn 2 5 '"main"' 'call 0x10'; insn 3 5 '"f"' 'push rbp';
  insn 4 5 '"f"' 'bnd call 0x20'; insn 5 5 '"g"' 'ret'; insn 6 5 '"f"' 'ret';
  insn 7 5 '"main"' 'call 0x10'; insn 8 5 '"f"' 'ret'; insn 9 5 '"main"' 'ret'; insn 10 5 null 'nop';
  end 10; } >"$TMP/insn.asmtrace"
"$ASMSPY" --export=folded "$TMP/insn.asmtrace" >"$TMP/insn.folded" 2>/dev/null || fail "insn folded exited $?"
printf 'main;f 2\nmain;f;g 1\n' >"$TMP/want"
cmp -s "$TMP/want" "$TMP/insn.folded" || fail "insn folded: $(cat "$TMP/insn.folded")"
f=$(python3 "$CHECK" folded "$TMP/insn.folded" "$TMP/insn.asmtrace" f) || fail "$f"
"$ASMSPY" --export=perfetto "$TMP/insn.asmtrace" >"$TMP/insn.json" || fail "insn perfetto exited $?"
r=$(python3 "$CHECK" perfetto "$TMP/insn.json") || fail "insn perfetto: $r"
pass "executed instructions: call/ret nesting ($r)"

# 4. unusable input: exit 1, one line naming the problem
expect_exit 1 "$ASMSPY" --export=dot "$TMP/missing.asmtrace"
grep -q 'cannot open' "$TMP/err" || fail "missing: $(cat "$TMP/err")"
: >"$TMP/empty.asmtrace"
expect_exit 1 "$ASMSPY" --export=dot "$TMP/empty.asmtrace"
{ echo "$HDR"; end 0; } >"$TMP/none.asmtrace"
expect_exit 1 "$ASMSPY" --export=folded "$TMP/none.asmtrace"
grep -q 'no calls to export' "$TMP/err" || fail "no calls: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "no calls: more than one line: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "no calls: wrote output: $(cat "$TMP/out")"
{ head -3 "$TMP/ok.asmtrace"; echo 'garbage{{'; tail -n +4 "$TMP/ok.asmtrace"; } >"$TMP/garbage.asmtrace"
for fmt in perfetto folded dot; do
  expect_exit 1 "$ASMSPY" --export=$fmt "$TMP/garbage.asmtrace"
  grep -q 'invalid recording at line 4' "$TMP/err" || fail "garbage: $(cat "$TMP/err")"
  [ -s "$TMP/out" ] && fail "garbage: $fmt wrote output"
done
head -c 300 /dev/urandom >"$TMP/random.asmtrace"
expect_exit 1 "$ASMSPY" --export=perfetto "$TMP/random.asmtrace"
pass "missing, empty, no calls, garbage line, random bytes: exit 1, nothing written"

# 5. truncated (cut mid-line, no footer): the events read are exported, with a warning
head -c "$(( $(head -4 "$TMP/ok.asmtrace" | wc -c) + 20 ))" "$TMP/ok.asmtrace" >"$TMP/cut.asmtrace"
"$ASMSPY" --export=perfetto "$TMP/cut.asmtrace" >"$TMP/cut.json" 2>"$TMP/err" || fail "truncated exited $?"
grep -q '^# recording truncated' "$TMP/err" || fail "truncated: no warning: $(cat "$TMP/err")"
r=$(python3 "$CHECK" perfetto "$TMP/cut.json") || fail "truncated perfetto: $r"
pass "truncated: exported what was read ($r), with a warning"

# 6. hostile names, depths and thread ids
{ echo "$HDR"; call 1 5 0 '"e\u001b]0;x\u0007 \u009b2J;\"q\\\\"'; call 2 5 9223372036854775807 '"deep"';
  call 3 -9223372036854775808 0 null; call 4 5 3 '"three"'; call 5 5 1 '"\ud83d\ude00"'; end 5; } >"$TMP/h.asmtrace"
for fmt in perfetto folded dot; do
  "$ASMSPY" --export=$fmt "$TMP/h.asmtrace" >"$TMP/h.$fmt" 2>"$TMP/err" || fail "hostile $fmt exited $?: $(cat "$TMP/err")"
  LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/h.$fmt" && fail "hostile $fmt: a raw control byte in the output"
  LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$TMP/h.$fmt" && fail "hostile $fmt: a raw C1 control in the output"
done
r=$(python3 "$CHECK" perfetto "$TMP/h.perfetto") || fail "hostile perfetto: $r"
grep -vqE '^[^ ]+( [0-9]+)$' "$TMP/h.folded" && fail "hostile folded: $(cat "$TMP/h.folded")"
if command -v dot >/dev/null; then
  dot -Tsvg "$TMP/h.dot" >/dev/null 2>"$TMP/err" || fail "hostile dot: dot -Tsvg: $(cat "$TMP/err")"
fi
{ echo "$HDR"; call 1 5 -3 '"neg"'; end 1; } >"$TMP/neg.asmtrace"
expect_exit 1 "$ASMSPY" --export=folded "$TMP/neg.asmtrace"
grep -q 'depth must be' "$TMP/err" || fail "negative depth: $(cat "$TMP/err")"
pass "hostile names, depths, tids: escaped, well-formed ($r); a negative depth is invalid (exit 1)"

# 7. generated from the command table: --help, the man page, completion
"$ASMSPY" --help | grep -qE '^  --export +=<perfetto\|folded\|dot> <f.asmtrace\|->' || fail "--help lists no --export"
"$ASMSPY" --man | grep -q '^\\fB\\-\\-export\\fR\\fI=<perfetto|folded|dot>' || fail "the man page has no --export"
[ "$("$ASMSPY" --complete 1 asmspy --export= | tr '\n' ' ')" = "--export=perfetto --export=folded --export=dot " ] ||
  fail "completion of --export=: $("$ASMSPY" --complete 1 asmspy --export=)"
"$ASMSPY" --complete 2 asmspy --export --format= | grep -qx -- '--format=folded' || fail "completion of --format="
pass "--help, man page and completion know --export"
