#!/bin/bash
# --procs: the process/thread topology. One node and every thread with live
# counts; children forked during the session nested under their parent;
# --json is the flat task list (valid recording, right tgid per task); --dot
# renders; --count picks the backend (syscalls: ptrace, calls: singlestep);
# a bad --count is a usage error; the target survives every session.
# (Checks parse in bash, not in a subprocess per field: process creation is
# slow in VMs and the fork test looks at dozens of rows.)
. "$(dirname "$0")/lib.sh"
require_backend ptrace

# field NAME LINE: the value of member NAME (number, bool or string) of one
# flat JSON line, into $F.
field() {
  local re="\"$1\":(\"[^\"]*\"|[^,}]*)"
  F=
  if [[ $2 =~ $re ]]; then F=${BASH_REMATCH[1]}; F=${F#\"}; F=${F%\"}; fi
}

# ---------------------------------------------------------------- threads --
start_victim victim_threads
pid=$VICTIM_PID
i=0; while [ "$(ls /proc/$pid/task | wc -l)" -lt 4 ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done
tasks=$(ls "/proc/$pid/task")
"$ASMSPY" --procs "$pid" 200 >"$TMP/threads" 2>"$TMP/err" || fail "--procs failed: $(cat "$TMP/err")"
text=$(cat "$TMP/threads")
[[ $text =~ ^"process tree — 1 process, 4 tasks, inv counts syscalls" ]] || fail "title: $text"
[ "$(grep -cE '^node [0-9]+ ' "$TMP/threads")" = 1 ] || fail "expected exactly one process node: $text"
grep -qE "^node $pid \[victim_threads\]  inv=200$" "$TMP/threads" \
  || fail "node line: want 'node $pid [victim_threads]  inv=200': $text"
ntid=0 sum=0 busy=0
re_tid='^(├─|└─) tid ([0-9]+) \(victim_threads\)  inv=([0-9]+)$'
seen=" "
while IFS= read -r l; do
  [[ $l =~ $re_tid ]] || continue
  ntid=$((ntid + 1)); sum=$((sum + BASH_REMATCH[3])); seen="$seen${BASH_REMATCH[2]} "
  [ "${BASH_REMATCH[3]}" -gt 0 ] && busy=$((busy + 1))
done <<<"$text"
[ "$ntid" = 4 ] || fail "expected 4 tid lines with inv counts, saw $ntid: $text"
for t in $tasks; do
  case "$seen" in *" $t "*) ;; *) fail "thread $t missing from the tree: $text";; esac
done
[ "$sum" = 200 ] || fail "thread counts sum to $sum, not the 200 counted"
[ "$busy" -ge 2 ] || fail "expected syscalls counted on >= 2 threads: $text"
pass "victim_threads: one node, 4 tids, counts on $busy threads summing to 200"
assert_runs "$pid"

"$ASMSPY" --procs "$pid" 100 --json >"$TMP/threads.ndjson" 2>"$TMP/err" || fail "--procs --json failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/threads.ndjson" >/dev/null || fail "--procs --json recording invalid: $("$ASMTRACE_CHECK" "$TMP/threads.ndjson")"
head -1 "$TMP/threads.ndjson" | grep -q '"backend":"ptrace"' || fail "--count=syscalls (default) did not pick the ptrace backend"
ppid=$(awk '/^PPid:/ {print $2}' "/proc/$pid/status")
nrows=0 sum=0 listed=" "
while IFS= read -r line; do
  case "$line" in *'"type":"proc"'*) ;; *) continue;; esac
  nrows=$((nrows + 1))
  field tid "$line"; t=$F; listed="$listed$t "
  field tgid "$line"; [ "$F" = "$pid" ] || fail "task $t: tgid $F, want $pid"
  want_leader=false; [ "$t" = "$pid" ] && want_leader=true
  field leader "$line"; [ "$F" = $want_leader ] || fail "task $t: leader $F"
  field count "$line"; [ "$F" = syscalls ] || fail "task $t: count $F"
  field ppid "$line"; [ "$F" = "$ppid" ] || fail "task $t: ppid $F, want $ppid"
  field inv "$line"; sum=$((sum + F))
done <"$TMP/threads.ndjson"
[ "$nrows" = 4 ] || fail "expected 4 proc rows, got $nrows: $(cat "$TMP/threads.ndjson")"
for t in $tasks; do
  case "$listed" in *" $t "*) ;; *) fail "task $t not listed: $(cat "$TMP/threads.ndjson")";; esac
done
[ "$sum" = 100 ] || fail "--json inv sums to $sum, not 100"
pass "--json: valid recording, every task listed with tgid $pid, inv sums to n"
assert_runs "$pid"

# -------------------------------------------------------------------- dot --
"$ASMSPY" --procs "$pid" 50 --dot >"$TMP/threads.dot" 2>"$TMP/err" || fail "--dot failed: $(cat "$TMP/err")"
head -1 "$TMP/threads.dot" | grep -q '^digraph procs {$' || fail "--dot: not a digraph"
tail -1 "$TMP/threads.dot" | grep -q '^}$' || fail "--dot: unterminated digraph"
grep -qE "^  \"p$pid\" \[shape=box, style=solid" "$TMP/threads.dot" || fail "no process box: $(cat "$TMP/threads.dot")"
[ "$(grep -cE '\[shape=ellipse, style=dashed' "$TMP/threads.dot")" = 4 ] || fail "expected 4 dashed thread ellipses"
[ "$(grep -cE "\"p$pid\" -> \"t[0-9]+\" \[style=dashed\]" "$TMP/threads.dot")" = 4 ] || fail "expected 4 dashed thread edges"
if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$TMP/threads.dot" >"$TMP/threads.svg" 2>"$TMP/dot.err" || fail "dot -Tsvg rejected it: $(cat "$TMP/dot.err")"
  grep -q '<svg' "$TMP/threads.svg" || fail "dot produced no svg"
  pass "--dot renders with dot -Tsvg: a box, 4 dashed thread ellipses"
else
  echo "SKIP (part): graphviz 'dot' is not installed: --dot checked as text only, not rendered"
fi
assert_runs "$pid"

# ------------------------------------------------------------------- usage --
expect_exit 2 "$ASMSPY" --procs "$pid" 10 --count=bogus
grep -q -- "--count" "$TMP/err" || fail "--count=bogus: message does not name --count: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --procs "$pid" 10 --json --dot
expect_exit 2 "$ASMSPY" --procs "$pid" 10 --frobnicate
pass "--count=bogus, --json --dot, an unknown option -> exit 2"
assert_runs "$pid"

# ------------------------------------------------------------------ forks --
mkdir -p "$TMP/forks"
start_victim victim_fork "$TMP/forks"
fpid=$VICTIM_PID
"$ASMSPY" --procs "$fpid" 300 --record="$TMP/fork.asmtrace" >"$TMP/fork" 2>"$TMP/err" \
  || fail "--procs on victim_fork failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/fork.asmtrace" >/dev/null || fail "fork recording invalid: $("$ASMTRACE_CHECK" "$TMP/fork.asmtrace")"
text=$(cat "$TMP/fork")
grep -qE "^node $fpid \[victim_fork\]" "$TMP/fork" || fail "no root node: $text"
# children born during the session: fork rows, traced, counted, parented to
# the victim, drawn as "├─ node <c> [victim_fork]  inv=N" over "│  └─ tid <c> (...)"
nborn=0 nested=0 counted=0
while IFS= read -r line; do
  case "$line" in *'"type":"proc"'*'"origin":"fork"'*) ;; *) continue;; esac
  nborn=$((nborn + 1))
  field tid "$line"; c=$F
  field tgid "$line"; [ "$F" = "$c" ] || fail "forked child $c: tgid $F"
  field ppid "$line"; [ "$F" = "$fpid" ] || fail "forked child $c: ppid $F, want $fpid"
  field traced "$line"; [ "$F" = true ] || fail "forked child $c not traced"
  field inv "$line"; [ "$F" -gt 0 ] && counted=$((counted + 1))
  re_node="(├─|└─) node $c \\[victim_fork\\]  inv=[0-9]+[^"$'\n'"]*"$'\n'"(│  |   )└─ tid $c \\(victim_fork\\)  inv=[0-9]+"
  [[ $text =~ $re_node ]] && nested=$((nested + 1))
done <"$TMP/fork.asmtrace"
[ "$nborn" -ge 1 ] || fail "no child forked during the session was reported: $text"
[ "$nested" -ge 1 ] || fail "no forked child drawn as a nested node: $text"
[ "$counted" -ge 1 ] || fail "no forked child had its syscalls counted"
pass "victim_fork: $nborn children forked live, $nested drawn nested, $counted with counts"
assert_runs "$fpid"

# --json on the forking target: every task's tgid is its own (single-threaded children)
"$ASMSPY" --procs "$fpid" 200 --json >"$TMP/fork.ndjson" 2>"$TMP/err" || fail "--json on victim_fork failed"
"$ASMTRACE_CHECK" "$TMP/fork.ndjson" >/dev/null || fail "--json on victim_fork invalid"
nrows=0 kids=0
while IFS= read -r line; do
  case "$line" in *'"type":"proc"'*) ;; *) continue;; esac
  nrows=$((nrows + 1))
  field tid "$line"; t=$F
  field tgid "$line"; [ "$F" = "$t" ] || fail "victim_fork task $t has tgid $F: $line"
  field ppid "$line"; [ "$F" = "$fpid" ] && kids=$((kids + 1))
done <"$TMP/fork.ndjson"
[ "$kids" -ge 1 ] || fail "no child of $fpid listed: $(cat "$TMP/fork.ndjson")"
pass "--json on victim_fork: all $nrows tasks listed with their own tgid, $kids children of $fpid"
assert_runs "$fpid"
"$ASMSPY" --procs "$fpid" 200 --dot >"$TMP/fork.dot" || fail "--dot on victim_fork failed"
grep -qE "\"p$fpid\" -> \"p[0-9]+\" \[style=solid\]" "$TMP/fork.dot" || fail "no solid parent->child process edge"
if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$TMP/fork.dot" >/dev/null 2>"$TMP/dot.err" || fail "dot -Tsvg rejected the fork graph: $(cat "$TMP/dot.err")"
  pass "--dot on victim_fork: solid process edges, renders"
fi
assert_runs "$fpid"

# ------------------------------------------------------------ count=calls --
require_backend singlestep
start_victim victim_loop
lpid=$VICTIM_PID
"$ASMSPY" --procs "$lpid" 60 --count=calls --json >"$TMP/calls.ndjson" 2>"$TMP/err" \
  || fail "--count=calls failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/calls.ndjson" >/dev/null || fail "--count=calls recording invalid"
head -1 "$TMP/calls.ndjson" | grep -q '"backend":"singlestep"' \
  || fail "--count=calls did not pick the singlestep backend: $(head -1 "$TMP/calls.ndjson")"
line=$(grep '"type":"proc"' "$TMP/calls.ndjson")
field count "$line"; [ "$F" = calls ] || fail "count member: $F"
field inv "$line"; [ "$F" = 60 ] || fail "victim_loop: inv=$F, want the 60 calls counted"
"$ASMSPY" --procs "$lpid" 40 --count=calls >"$TMP/calls" 2>"$TMP/err" || fail "--count=calls text failed"
grep -qE "^node $lpid \[victim_loop\]  inv=40$" "$TMP/calls" || fail "calls tree: $(cat "$TMP/calls")"
grep -qE '^process tree — .* inv counts calls' "$TMP/calls" || fail "calls title: $(head -1 "$TMP/calls")"
pass "--count=calls: singlestep backend, inv counts calls"
assert_runs "$lpid"
# the calls counted are exactly the stream's call instructions: the same
# deterministic run (--launch: exec to exit) through both modes
# (--record, not --json: a launched command shares asmspy's stdout; the
# static build keeps exec-to-exit at ~35k steps)
"$ASMSPY" --launch procs -1 --count=calls --record="$TMP/lcalls.ndjson" -- "$VICTIM_DIR/victim_loop_static" 0 3 \
  >/dev/null 2>"$TMP/err" || fail "--launch procs --count=calls failed: $(cat "$TMP/err")"
"$ASMSPY" --launch stream -1 --record="$TMP/lstream.ndjson" -- "$VICTIM_DIR/victim_loop_static" 0 3 >/dev/null 2>"$TMP/err" \
  || fail "--launch stream failed: $(cat "$TMP/err")"
field inv "$(grep '"type":"proc"' "$TMP/lcalls.ndjson")"
ncall=$(grep -cE '"disasm":"(bnd |notrack )*call' "$TMP/lstream.ndjson" || true)
[ "$ncall" -ge 1 ] || fail "the launched victim_loop's stream shows no call instruction"
[ "$F" = "$ncall" ] || fail "--count=calls counted $F calls; the stream of the same run has $ncall"
pass "--count=calls counts exactly the stream's $ncall call instructions (launched victim_loop_static)"
# an explicit backend that cannot count the chosen thing is a SKIP, not wrong numbers
"$ASMSPY" --procs "$lpid" 10 --count=calls --backend=ptrace >"$TMP/skip" 2>&1 || fail "SKIP must exit 0"
grep -q '^# SKIP ptrace' "$TMP/skip" || fail "--count=calls --backend=ptrace: $(cat "$TMP/skip")"
pass "--count=calls --backend=ptrace -> # SKIP"
assert_runs "$lpid"
