#!/bin/bash
# asmspy --export on real recordings (singlestep): a call tree and an
# instruction stream of victim_loop (work -> helper, usleep@plt), and its
# call graph, each exported as perfetto, folded and dot. The Perfetto JSON
# obeys the trace-event rules (check_export.py perfetto), the folded weights
# of helper add up to the recording's calls into helper (counted
# independently), per-thread balance on victim_threads, and `dot -Tsvg` accepts the DOT (when graphviz is here).
. "$(dirname "$0")/../e2e/lib.sh"
CHECK="$(dirname "$0")/check_export.py"
require_backend singlestep
command -v python3 >/dev/null || skip "python3 missing"

start_victim victim_loop
pid=$VICTIM_PID
"$ASMSPY" --tree "$pid" 60 --record="$TMP/tree.asmtrace" >/dev/null 2>"$TMP/err" || fail "--tree: $(cat "$TMP/err")"
"$ASMSPY" --stream "$pid" 4000 --record="$TMP/stream.asmtrace" >/dev/null 2>"$TMP/err" || fail "--stream: $(cat "$TMP/err")"
"$ASMSPY" --graph "$pid" 100 --record="$TMP/graph.asmtrace" >/dev/null 2>"$TMP/err" || fail "--graph: $(cat "$TMP/err")"
assert_runs "$pid"

have_dot=0
command -v dot >/dev/null && have_dot=1
for src in tree stream; do
  rec="$TMP/$src.asmtrace"
  "$ASMSPY" --export=perfetto "$rec" >"$TMP/$src.json" 2>"$TMP/err" || fail "$src perfetto exited $?: $(cat "$TMP/err")"
  r=$(python3 "$CHECK" perfetto "$TMP/$src.json") || fail "$src perfetto: $r"
  grep -q '"time_base":"seq"' "$TMP/$src.json" || fail "$src perfetto: no time base in otherData"
  "$ASMSPY" --export=folded "$rec" >"$TMP/$src.folded" 2>"$TMP/err" || fail "$src folded exited $?: $(cat "$TMP/err")"
  grep -q 'weight = number of calls' "$TMP/err" || fail "$src folded: no weight note: $(cat "$TMP/err")"
  f=$(python3 "$CHECK" folded "$TMP/$src.folded" "$rec" helper) || fail "$src folded: $f"
  grep -qE '(^|;)work;helper [0-9]+$' "$TMP/$src.folded" || fail "$src folded: no work;helper stack: $(head "$TMP/$src.folded")"
  # --format= and --output= spell the same thing
  "$ASMSPY" --export "$rec" --format=dot --output="$TMP/$src.dot" 2>"$TMP/err" || fail "$src dot exited $?: $(cat "$TMP/err")"
  grep -qE '^digraph calls \{$' "$TMP/$src.dot" || fail "$src dot: no digraph"
  grep -qE '^  n[0-9]+ -> n[0-9]+ \[label="[0-9]+"\];$' "$TMP/$src.dot" || fail "$src dot: no edge"
  if [ $have_dot = 1 ]; then
    dot -Tsvg "$TMP/$src.dot" >"$TMP/$src.svg" 2>"$TMP/err" || fail "$src: dot -Tsvg rejected it: $(cat "$TMP/err")"
  fi
  pass "$src: perfetto ($r), folded ($f, = the recording's calls), dot$([ $have_dot = 1 ] && echo ' (dot -Tsvg accepts it)')"
done
[ $have_dot = 1 ] || echo "note: graphviz missing; dot -Tsvg not run"

# the call graph: counts, no timeline
rec="$TMP/graph.asmtrace"
"$ASMSPY" --export=folded "$rec" >"$TMP/g.folded" 2>"$TMP/err" || fail "graph folded exited $?: $(cat "$TMP/err")"
grep -qE '^work;helper [0-9]+$' "$TMP/g.folded" || fail "graph folded: $(cat "$TMP/g.folded")"
grep -vqE '^[^ ;]+;[^ ;]+ [0-9]+$' "$TMP/g.folded" && fail "graph folded is one level deep: $(cat "$TMP/g.folded")"
"$ASMSPY" --export=dot "$rec" >"$TMP/g.dot" 2>"$TMP/err" || fail "graph dot exited $?"
[ $have_dot = 0 ] || dot -Tsvg "$TMP/g.dot" >/dev/null 2>"$TMP/err" || fail "graph: dot -Tsvg: $(cat "$TMP/err")"
expect_exit 1 "$ASMSPY" --export=perfetto "$rec"
grep -q 'counts, not a timeline' "$TMP/err" || fail "graph perfetto: $(cat "$TMP/err")"
pass "graph: folded one level deep, dot; perfetto refused (exit 1)"

# threads: B/E balanced per tid on a multi-threaded target
start_victim victim_threads
"$ASMSPY" --tree "$VICTIM_PID" 120 --record="$TMP/threads.asmtrace" >/dev/null 2>"$TMP/err" || fail "--tree threads: $(cat "$TMP/err")"
assert_runs "$VICTIM_PID"
"$ASMSPY" --export=perfetto "$TMP/threads.asmtrace" >"$TMP/threads.json" 2>"$TMP/err" || fail "threads perfetto exited $?: $(cat "$TMP/err")"
r=$(python3 "$CHECK" perfetto "$TMP/threads.json") || fail "threads perfetto: $r"
want=$(grep -o '"tid":[0-9-]*' "$TMP/threads.asmtrace" | sort -u | wc -l)
case "$r" in *" threads=$want "*) ;; *) fail "threads perfetto: $r, the recording has $want tids";; esac
pass "victim_threads: $r"

# stdin
"$ASMSPY" --export=folded - <"$TMP/tree.asmtrace" >"$TMP/stdin.folded" 2>/dev/null || fail "stdin export failed"
cmp -s "$TMP/stdin.folded" "$TMP/tree.folded" || fail "stdin gave another folded output"
pass "'-' reads stdin"
