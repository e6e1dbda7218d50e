#!/bin/bash
# --tree end to end on the singlestep backend: the live call tree of
# victim_loop (nesting, filters, JSON, DOT, usage errors), victim_longjmp
# (a longjmp over six frames must not make the depth drift) and
# victim_signals (a SIGALRM handler's calls appear, the interrupted frames
# stay intact), and the targets surviving.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

# check_nesting FILE PARENT CHILD: every `-> CHILD` line after the first
# `-> PARENT` line is indented exactly one level (2 spaces) deeper than the
# preceding `-> PARENT` line, and every PARENT line has the same indentation.
# Prints the number of PARENT lines.
check_nesting() {
  awk -v p="$2" -v c="$3" '
    { match($0, /^ */); ind = RLENGTH; name = $0; sub(/^ *-> /, "", name); sub(/ .*/, "", name) }
    name == p { if (pind != "" && ind != pind) { print "parent " p " at indent " ind " after " pind; bad = 1 }
                pind = ind; np++ }
    name == c && pind != "" { if (ind != pind + 2) { print "line " NR ": " c " at indent " ind ", " p " at " pind; bad = 1 } }
    END { if (bad) exit 1; print np + 0 }' "$1"
}

start_victim victim_loop
pid=$VICTIM_PID

# 1. text: n lines of `-> name [module]`, helper one level under work
"$ASMSPY" --tree "$pid" 40 >"$TMP/t.txt" 2>"$TMP/err" || fail "--tree exited $?: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/t.txt")" = 40 ] || fail "expected 40 lines, got $(wc -l <"$TMP/t.txt")"
grep -vqE '^( {2})*-> [^ ]+ \[[^]]+\]$' "$TMP/t.txt" && fail "malformed line: $(grep -vE '^( {2})*-> [^ ]+ \[[^]]+\]$' "$TMP/t.txt" | head -3)"
grep -qE '^-> work \[victim_loop\]$' "$TMP/t.txt" || fail "no top-level work line: $(cat "$TMP/t.txt")"
grep -qE '^  -> helper \[victim_loop\]$' "$TMP/t.txt" || fail "no helper under work: $(cat "$TMP/t.txt")"
grep -qE '^-> usleep@plt \[victim_loop\]$' "$TMP/t.txt" || fail "no usleep@plt line"
nw=$(check_nesting "$TMP/t.txt" work helper) || fail "helper not nested under work: $nw"
[ "$nw" -ge 3 ] || fail "only $nw work lines in 40"
pass "40 lines; helper always one level under work ($nw work calls), usleep@plt at the top"
assert_runs "$pid"

# 2. filters: --focus re-bases, --depth cuts, --module keeps only matching callees
"$ASMSPY" --tree "$pid" 18 --focus=work >"$TMP/f.txt" || fail "--focus failed"
[ "$(wc -l <"$TMP/f.txt")" = 18 ] || fail "--focus: n does not count the surviving lines"
grep -vqE '^(-> work|  -> helper) \[victim_loop\]$' "$TMP/f.txt" && fail "--focus=work printed: $(grep -vE '^(-> work|  -> helper) ' "$TMP/f.txt" | head -3)"
"$ASMSPY" --tree "$pid" 6 --focus=work --depth=1 >"$TMP/fd.txt" || fail "--focus --depth failed"
[ "$(grep -c '^-> work \[victim_loop\]$' "$TMP/fd.txt")" = 6 ] || fail "--focus=work --depth=1: $(cat "$TMP/fd.txt")"
"$ASMSPY" --tree "$pid" 12 --module=libc >"$TMP/m.txt" || fail "--module failed"
[ "$(wc -l <"$TMP/m.txt")" = 12 ] || fail "--module: expected 12 lines"
grep -vq '\[libc[^]]*\]$' "$TMP/m.txt" && fail "--module=libc printed: $(grep -v '\[libc' "$TMP/m.txt" | head -3)"
# the true depth survives the filter: libc is only reached through usleep@plt
grep -q '^-> ' "$TMP/m.txt" && fail "--module=libc: a libc callee at depth 0: $(cat "$TMP/m.txt")"
# focus first, then module: the libc calls made under usleep@plt, re-based under it
"$ASMSPY" --tree "$pid" 8 --focus=usleep --module=libc >"$TMP/fm.txt" || fail "--focus --module failed"
grep -vqE '^  (  )*-> [^ ]+ \[libc[^]]*\]$' "$TMP/fm.txt" && fail "--focus=usleep --module=libc: $(cat "$TMP/fm.txt")"
grep -qE '^  -> [^ ]+ \[libc' "$TMP/fm.txt" || fail "--focus=usleep --module=libc: nothing at depth 1: $(cat "$TMP/fm.txt")"
pass "--focus (re-based), --depth, --module and their composition"

# 3. usage errors exit 2
expect_exit 2 "$ASMSPY" --tree "$pid" --depth=0
expect_exit 2 "$ASMSPY" --tree "$pid" --depth=abc
expect_exit 2 "$ASMSPY" --tree "$pid" --focus=
expect_exit 2 "$ASMSPY" --tree "$pid" --frobnicate
pass "--depth=0, --depth=abc, empty --focus, unknown option: exit 2"

# 4. --json: one call event per printed line, a valid recording
"$ASMSPY" --tree "$pid" 30 --json >"$TMP/t.ndjson" || fail "--tree --json failed"
"$ASMTRACE_CHECK" "$TMP/t.ndjson" || fail "--tree --json is not a valid recording"
[ "$(grep -c '"type":"call"' "$TMP/t.ndjson")" = 30 ] || fail "expected 30 call events"
python3 - "$TMP/t.ndjson" <<'PY' || fail "call events are wrong"
import json, sys
calls = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "call"]
for c in calls:
    assert isinstance(c["tid"], int) and isinstance(c["depth"], int) and c["depth"] >= 0, c
    assert c["addr"].startswith("0x") and c["kind"] in ("internal", "external", "jit", "unknown"), c
work = [c for c in calls if c["name"] == "work"]
helper = [c for c in calls if c["name"] == "helper"]
assert work and helper, "no work/helper calls"
assert {c["depth"] for c in work} == {0} and {c["depth"] for c in helper} == {1}, (work, helper)
assert all(c["module"] == "victim_loop" and c["kind"] == "internal" for c in work + helper)
PY
pass "--tree --json: 30 valid call events, work at depth 0, helper at 1"

# 5. --dot: the printed tree as a digraph
"$ASMSPY" --tree "$pid" 20 --dot >"$TMP/t.dot" || fail "--tree --dot failed"
head -n1 "$TMP/t.dot" | grep -q '^digraph ' || fail "--tree --dot is not a digraph"
[ "$(grep -cE '^  c[0-9]+ \[label=' "$TMP/t.dot")" = 20 ] || fail "--tree --dot: expected 20 nodes"
grep -qE '^  c[0-9]+ -> c[0-9]+;$' "$TMP/t.dot" || fail "--tree --dot: no parent->child edge"
if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$TMP/t.dot" -o "$TMP/t.svg" || fail "dot -Tsvg rejected the tree digraph"
  pass "--tree --dot renders with dot -Tsvg"
else
  echo "note: graphviz 'dot' not installed: --tree --dot checked textually only"
fi
assert_runs "$pid"

# 6. longjmp: depth returns to the top after jumping over six frames, no drift
start_victim victim_longjmp
lpid=$VICTIM_PID
"$ASMSPY" --tree "$lpid" 150 >"$TMP/l.txt" || fail "--tree on victim_longjmp failed"
ncycle=$(check_nesting "$TMP/l.txt" cycle leaf) || fail "leaf not one level under cycle: $ncycle"
[ "$ncycle" -ge 5 ] || fail "only $ncycle cycle() calls seen: $(cat "$TMP/l.txt")"
grep -qE '^ {10}-> descend \[victim_longjmp\]$' "$TMP/l.txt" || fail "descend never reached depth 5"
# every top-level line is cycle or usleep@plt: nothing leaked to depth 0, nothing drifted
grep -E '^-> ' "$TMP/l.txt" | grep -vqE '^-> (cycle|usleep@plt) ' && fail "unexpected top-level line: $(grep -E '^-> ' "$TMP/l.txt" | sort -u)"
[ "$(grep -c '^-> cycle \[victim_longjmp\]$' "$TMP/l.txt")" = "$ncycle" ] || fail "cycle lines drifted off depth 0"
assert_runs "$lpid"
pass "victim_longjmp: $ncycle cycle() calls all at depth 0, leaf() at 1 after each longjmp"

# 7. signals: in_handler appears; work/helper depths are not disturbed
# SIGALRM every 10 ms of wall time: frequent, yet work() still runs between
# handlers when stepping is slow (a loaded or sanitizer host)
start_victim victim_signals 10000
spid=$VICTIM_PID
"$ASMSPY" --tree "$spid" 150 >"$TMP/s.txt" || fail "--tree on victim_signals failed"
grep -qE '^ *-> in_handler \[victim_signals\]$' "$TMP/s.txt" || fail "in_handler never appeared: $(cat "$TMP/s.txt")"
grep -q 'on_alarm' "$TMP/s.txt" && fail "the handler entry was taken for a call"
nw=$(check_nesting "$TMP/s.txt" work helper) || fail "victim_signals: $nw"
[ "$(grep -c '^-> work \[victim_signals\]$' "$TMP/s.txt")" = "$nw" ] || fail "work drifted off depth 0"
[ "$nw" -ge 3 ] || fail "only $nw work calls"
assert_runs "$spid"
pass "victim_signals: in_handler shown ($(grep -c in_handler "$TMP/s.txt")x), work at 0 and helper at 1 throughout"
