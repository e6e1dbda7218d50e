#!/bin/bash
# The seed's headless block, flag by flag (the --dataflow stream flags
# --steps --mem --blame --statediff --insns --fpregs --continuous are the
# dataflow suite's): every flag and positional is run on a victim and checked
# for its exit status AND for content that only that flag produces. The
# table "Flag by flag" in docs/cli-reference.md lists the same flags with
# this file's verdicts.
. "$(dirname "$0")/../e2e/lib.sh"

. "$(dirname "$0")/run_lib.sh" # run WANT ARGS..., has FILE ERE WHAT
# lines FILE: its number of lines.
lines() { grep -c '' "$1" || true; }
# json_check: $TMP/o is a valid recording.
json_check() { "$ASMTRACE_CHECK" "$TMP/o" >/dev/null || fail "$1: not a valid recording"; }

start_victim victim_loop
L=$VICTIM_PID
start_victim victim_watch
W=$VICTIM_PID

# ---- --list [active|scan] -------------------------------------------------
run 0 --list
has "$TMP/o" "^ +$L +[a-z0-9_]+ +[0-9]+ [RSD] +victim_loop" "--list"
run 0 --list active
has "$TMP/o" "^ +PID +USER +THR S +COMM +CPU%" "--list active (CPU% column)"
run 0 --list scan
has "$TMP/o" "^ +PID +USER +THR S +COMM +STR" "--list scan (string-richness column)"
run 2 --list bogus
pass "--list, --list active, --list scan (and an unknown sort: exit 2)"

# ---- --syms <pid> [filter] --------------------------------------------------
run 0 --syms "$L"
has "$TMP/o" "^0x[0-9a-f]{16} +[0-9]+  helper +\[victim_loop\]$" "--syms (helper)"
has "$TMP/o" "\[libc\.so\.6\]$" "--syms (shared libraries too)"
run 0 --syms "$L" work
has "$TMP/o" "^0x[0-9a-f]{16} +[0-9]+  work +\[victim_loop\]$" "--syms filter"
[ "$(grep -vc work "$TMP/o" || true)" = 0 ] || fail "--syms filter kept rows without 'work'"
work_addr=$(awk '$3 == "work" {print $1}' "$TMP/o")
work_len=$(awk '$3 == "work" {print $2}' "$TMP/o")
run 0 --syms "$L" 64
[ "$(lines "$TMP/o")" -gt 0 ] && [ "$(grep -vc 64 "$TMP/o" || true)" = 0 ] \
  || fail "--syms <pid> 64: a numeric filter is a filter: $(head -3 "$TMP/o")"
pass "--syms, --syms <filter> (a numeric one too)"

# ---- --info <pid> [--json] [--record=<f>] -----------------------------------
run 0 --info "$L"
has "$TMP/o" "^pid $L  victim_loop  \[native\]" "--info"
has "$TMP/o" "^  modes +log ok .*trace ok" "--info modes"
[ "$(awk '/^TracerPid:/ {print $2}' /proc/$L/status)" = 0 ] || fail "--info attached"
run 0 --info "$L" --json
json_check "--info --json"
has "$TMP/o" "\"type\":\"procinfo\".*\"pid\":$L" "--info --json"
run 0 --info "$L" --record="$TMP/i.asmtrace"
has "$TMP/o" "^pid $L " "--info --record still prints the text"
"$ASMTRACE_CHECK" "$TMP/i.asmtrace" >/dev/null || fail "--info --record: invalid recording"
grep -q '"type":"procinfo"' "$TMP/i.asmtrace" || fail "--info --record: no procinfo event"
pass "--info, --json, --record=<f>"

# ---- --log <pid> [n] [--follow] ---------------------------------------------
run 0 --log "$L" 3
[ "$(lines "$TMP/o")" = 3 ] || fail "--log 3 printed $(lines "$TMP/o") lines"
has "$TMP/o" "^clock_nanosleep\(CLOCK_REALTIME, 0, \{tv_sec=0, tv_nsec=2000000\}" "--log decodes"
run 0 --log "$L"
[ "$(lines "$TMP/o")" = 20 ] || fail "--log default printed $(lines "$TMP/o") lines, want 20"
start_victim victim_fork "$TMP"
F=$VICTIM_PID
run 0 --log "$F" 80 --follow
grep -E '^\[[0-9]+\] ' "$TMP/o" | grep -vq "^\[$F\] " || fail "--log --follow: no child's [pid] line"
pass "--log n, default 20, --follow (a child's [pid] lines)"

# ---- --trace <pid> <sym|0xADDR[:LEN]> [n] [--tid=<t>] -----------------------
run 0 --trace "$L" work 1
has "$TMP/o" "^tracing work @ 0x[0-9a-f]+ \($work_len bytes\) in pid $L$" "--trace sym"
[ "$(grep -c '^sample #' "$TMP/o")" = 1 ] || fail "--trace n=1 gave $(grep -c '^sample #' "$TMP/o") samples"
has "$TMP/o" "^ +5× +\+0x[0-9a-f]+ +->  helper  \[victim_loop\]$" "--trace functions called"
run 0 --trace "$L" work
[ "$(grep -c '^sample #' "$TMP/o")" = 3 ] || fail "--trace default gave $(grep -c '^sample #' "$TMP/o") samples, want 3"
run 0 --trace "$L" "$work_addr:$work_len" 1
has "$TMP/o" "^tracing work @ 0x[0-9a-f]+ \($work_len bytes\)" "--trace 0xADDR:LEN"
run 0 --trace "$L" "$work_addr" 1
has "$TMP/o" "^tracing work @ .*\($work_len bytes\)" "--trace 0xADDR (the symbol's extent)"
run 0 --trace "$L" work 1 --tid="$L"
has "$TMP/o" "^sample #1 " "--trace --tid"
pass "--trace sym, 0xADDR, 0xADDR:LEN, n (default 3), --tid"

# ---- --dataflow <pid> <sym|0xADDR[:LEN]|--auto> [--json] [--tid] [--max] [--module] [--sampler] [--window]
run 0 --dataflow "$L" work
has "$TMP/o" "^data flow — work @ 0x[0-9a-f]+ of pid $L +ret=[0-9]+ +[0-9]+ steps" "--dataflow"
run 0 --dataflow "$L" "$work_addr:$work_len" --json --tid="$L" --max=5
json_check "--dataflow --json"
python3 - "$TMP/o" "$L" <<'PY' || fail "--dataflow --json --tid --max: wrong content"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
d = [e for e in ev if e["type"] == "dataflow"]
assert len(d) == 1, d
d = d[0]
assert d["tid"] == int(sys.argv[2]), d["tid"]
assert d["steps"] == 5 and d["truncated"] is True, (d["steps"], d.get("truncated"))
PY
start_victim victim_auto # spins (a CPU) until killed after --sample below
AU=$VICTIM_PID
run 0 --dataflow "$AU" --auto --sampler=sw --window=300 --module=victim_auto
has "$TMP/o" "^--auto\[sw-clock\]: [a-z_]+ \[victim_auto\] — [0-9]+ residency samples .* in 300 ms\)" "--auto --sampler=sw --window"
grep -q "^data flow — \|not seen ENTERING\|was not seen entering" "$TMP/o" || fail "--auto traced nothing: $(cat "$TMP/o")"
run 0 --dataflow "$AU" --auto --sampler=ibs --window=300
grep -qE "^# SKIP|^--auto: " "$TMP/o" || fail "--sampler=ibs: neither a pick nor a SKIP: $(cat "$TMP/o" "$TMP/e")"
run 2 --dataflow "$AU" --auto --sampler=nosuch
run 2 --dataflow "$AU" --auto --tid="$AU"
pass "--dataflow sym/0xADDR:LEN, --json, --tid, --max, --auto --module --sampler=sw|ibs --window"

# ---- --stream <pid> [n] [--tid=<t>] [--follow] -------------------------------
run 0 --stream "$L" 6
[ "$(lines "$TMP/o")" = 6 ] || fail "--stream 6 printed $(lines "$TMP/o") lines"
has "$TMP/o" "^[a-z_0-9.@]+\+0x[0-9a-f]+ +\[[^]]+\] +[a-z]" "--stream line layout"
run 0 --stream "$L"
[ "$(lines "$TMP/o")" = 20 ] || fail "--stream default printed $(lines "$TMP/o") lines, want 20"
start_victim victim_threads
T=$VICTIM_PID
tid=$(ls /proc/$T/task | grep -v "^$T$" | head -1)
run 0 --stream "$T" 10 --tid="$tid"
grep -q '^\[' "$TMP/o" && fail "--stream --tid kept a [tid] prefix: $(head -3 "$TMP/o")"
[ "$(lines "$TMP/o")" = 10 ] || fail "--stream --tid printed $(lines "$TMP/o") lines"
run 0 --stream "$F" 12000 --follow
grep -E '^\[[0-9]+\] ' "$TMP/o" | grep -vq "^\[$F\] " || fail "--stream --follow: no child's [pid] step"
run 2 --stream "$L" 5 --follow --tid="$L"
pass "--stream n, default 20, --tid (no prefix), --follow, --follow+--tid refused"

# ---- --graph <pid> [n] [--sort=...] [--json|--dot] [--tid] [--follow] --------
run 0 --graph "$L" 60
has "$TMP/o" "^call graph — [0-9]+ functions, sorted by invocations \(pid $L\)$" "--graph"
run 0 --graph "$L" --json
json_check "--graph --json"
grep -q '"type":"graph".*"calls":200,' "$TMP/o" || fail "--graph default n is not 200 calls"
for s in invocations fanout functions-called; do
  run 0 --graph "$L" 60 --sort=$s --json
  python3 - "$TMP/o" "$s" <<'PY' || fail "--graph --sort=$s: rows not in its order"
import json, sys
g = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "graph"][0]
sort = sys.argv[2]
assert g["sort"] == sort, g["sort"]
nodes = [n for n in g["nodes"] if n.get("traced", True)]  # not traced: no counts to sort
succ = {}
for e in g["edges"]:
    succ.setdefault(e["caller"], set()).add(e["callee"])
def reach(a):
    seen, todo = set(), list(succ.get(a, ()))
    while todo:
        v = todo.pop()
        if v not in seen:
            seen.add(v)
            todo += succ.get(v, ())
    return len(seen)
key = {"invocations": lambda n: n["inv"], "fanout": lambda n: n["fanout"],
       "functions-called": lambda n: n["reach"]}[sort]
if sort == "functions-called":
    for n in nodes:
        assert n["reach"] == reach(n["addr"]), (n["name"], n["reach"], reach(n["addr"]))
    main = [n for n in nodes if n["name"] == "main"][0]
    assert main["fanout"] == 2 and main["reach"] == 3, main  # work, usleep@plt; + helper via work
else:
    assert all("reach" not in n for n in nodes), "reach outside functions-called"
keys = [key(n) for n in nodes]
assert keys == sorted(keys, reverse=True), keys
PY
done
run 0 --graph "$L" 60 --dot
has "$TMP/o" "^digraph asmspy_callgraph \{$" "--graph --dot"
has "$TMP/o" "^  n[0-9]+ -> n[0-9]+ \[label=\"[0-9]+\"\];$" "--graph --dot edges"
run 0 --graph "$L" 30 --tid="$L"
has "$TMP/o" "^\[int\] work " "--graph --tid"
run 0 --graph "$F" 300 --follow
has "$TMP/o" "processes, rows by \[pid\]\)$" "--graph --follow"
run 2 --graph "$L" --sort=bogus
pass "--graph n (default 200), --sort=invocations|fanout|functions-called, --json, --dot, --tid, --follow"

# ---- --tree <pid> [n] [--depth] [--focus] [--module] [--json|--dot] [--tid] [--follow]
run 0 --tree "$L" 6
[ "$(lines "$TMP/o")" = 6 ] || fail "--tree 6 printed $(lines "$TMP/o") lines"
has "$TMP/o" "^  -> helper \[victim_loop\]$" "--tree nesting"
run 0 --tree "$L"
[ "$(lines "$TMP/o")" = 40 ] || fail "--tree default printed $(lines "$TMP/o") lines, want 40"
run 0 --tree "$L" 8 --depth=1
grep -q '^ ' "$TMP/o" && fail "--tree --depth=1 printed a nested line: $(cat "$TMP/o")"
[ "$(lines "$TMP/o")" = 8 ] || fail "--tree --depth=1 printed $(lines "$TMP/o") lines"
run 0 --tree "$L" 6 --focus=work
grep -vqE '^(-> work|  -> helper) \[victim_loop\]$' "$TMP/o" && fail "--tree --focus=work: $(cat "$TMP/o")"
has "$TMP/o" "^-> work \[victim_loop\]$" "--focus re-bases work to depth 0"
run 0 --tree "$L" 4 --module=libc
grep -q 'libc' "$TMP/o" || fail "--tree --module=libc shows no call into libc: $(cat "$TMP/o")"
[ "$(lines "$TMP/o")" = 4 ] || fail "--tree --module printed $(lines "$TMP/o") lines"
run 0 --tree "$L" 4 --json
json_check "--tree --json"
[ "$(grep -c '"type":"call"' "$TMP/o")" = 4 ] || fail "--tree --json: want 4 call events"
run 0 --tree "$L" 4 --dot
has "$TMP/o" "^digraph asmspy_calltree \{$" "--tree --dot"
run 0 --tree "$L" 4 --tid="$L"
has "$TMP/o" "^-> " "--tree --tid"
run 0 --tree "$F" 150 --follow
grep -E '^\[[0-9]+\] ' "$TMP/o" | grep -vq "^\[$F\] " || fail "--tree --follow: no child's [pid] call"
run 2 --tree "$L" --depth=0
pass "--tree n (default 40), --depth, --focus, --module, --json, --dot, --tid, --follow; --depth=0 refused"

# ---- --procs <pid> [n] [--count=syscalls|calls] [--json|--dot] ----------------
run 0 --procs "$T" 20
has "$TMP/o" "^process tree — 1 process, [0-9]+ tasks, inv counts syscalls \(pid $T, 20 counted\)$" "--procs"
has "$TMP/o" "^[├└]─ tid [0-9]+ " "--procs threads"
run 0 --procs "$L" 10 --count=calls
has "$TMP/o" "inv counts calls \(pid $L, 10 counted\)$" "--procs --count=calls"
run 0 --procs "$T" 10 --count=syscalls --json
json_check "--procs --json"
[ "$(grep -c '"type":"proc".*"count":"syscalls"' "$TMP/o")" -ge 2 ] || fail "--procs --json: want a proc event per task"
run 0 --procs "$L" 10 --dot
has "$TMP/o" "^digraph procs \{$" "--procs --dot"
run 2 --procs "$L" --count=bogus
pass "--procs n, --count=syscalls|calls, --json, --dot"

# ---- --sample <pid> [ms] [--json] --------------------------------------------
run 0 --sample "$AU" 200
# no --sampler: the first usable rung of the ladder (IBS edges on AMD; here
# the software clock's call edges), or a SKIP when no rung works
grep -qE "^# SKIP |^statistical hot edges \(AMD IBS-Op|^statistical (call edges|residency) \(" "$TMP/o" ||
  fail "--sample: neither a rung's table nor a SKIP: $(cat "$TMP/o")"
run 0 --sample "$AU" 200 --json
json_check "--sample --json"
grep -qE '"level":"skip"|"type":"(edge|call_edge|site)"' "$TMP/o" || fail "--sample --json: neither a SKIP note nor rows"
run 0 --sample "$AU" 300 --sampler=sw
has "$TMP/o" "^statistical (call edges|residency) \(software task-clock" "--sample --sampler=sw"
has "$TMP/o" "\[victim_auto\]" "--sample --sampler=sw names the victim's code"
run 2 --sample "$AU" 0
grep -q "window" "$TMP/e" || fail "--sample 0: the refusal does not say window: $(cat "$TMP/e")"
pass "--sample ms (the first usable rung), --json, --sampler=sw; ms=0 refused as a window"
assert_runs "$AU"
kill -9 "$AU" # the spinner's CPU back for the rest

# ---- --watch <pid> <sym|sym+off|0xADDR> [n] [--rw] [--len] [--json] ------------
run 0 --watch "$W" counter 3
has "$TMP/o" "^watching counter @ 0x[0-9a-f]+ \(4 bytes, writes\) in pid $W$" "--watch sym"
python3 - "$TMP/o" <<'PY' || fail "--watch counter: each hit is the previous value + 1"
import re, sys
hits = [l for l in open(sys.argv[1]) if re.search(r"\d+ -> \d+$", l)]
assert len(hits) == 3, hits
for l in hits:
    a, b = map(int, re.search(r"(\d+) -> (\d+)$", l).groups())
    assert b == a + 1 and "bump_counter" in l, l
PY
caddr=$(sed -n 's/^watching counter @ \(0x[0-9a-f]*\) .*/\1/p' "$TMP/o")
run 0 --watch "$W" "$caddr" 2
has "$TMP/o" "^watching $caddr @ $caddr " "--watch 0xADDR"
has "$TMP/o" "^\[[0-9]+\] bump_counter\+0x[0-9a-f]+ " "--watch 0xADDR hits"
run 0 --watch "$W" pair+4 2 --len=4
has "$TMP/o" "^watching pair\+4 @ 0x[0-9a-f]+ \(4 bytes, writes\)" "--watch sym+off --len=4"
has "$TMP/o" "^\[[0-9]+\] worker\+0x[0-9a-f]+ " "--watch pair+4: worker writes it"
run 0 --watch "$W" counter 4 --rw --json
json_check "--watch --rw --json"
grep -q '"type":"watchpoint".*"access":"rw"' "$TMP/o" || fail "--watch --rw: access is not rw"
[ "$(grep -c '"type":"watch",' "$TMP/o")" = 4 ] || fail "--watch --json: want 4 watch events"
run 2 --watch "$W" counter --len=3
pass "--watch sym, 0xADDR, sym+off, n, --rw, --len, --json"

# ---- --launch <mode> -- <cmd> [args...]: log|stream|graph|tree|procs|sample ----
run 0 --launch log -1 -- "$VICTIM_DIR/victim_exit" 20
has "$TMP/o" "^execve\(|^brk\(" "--launch log from the first syscall"
has "$TMP/o" "^\+\+\+ exited with 0 \+\+\+$" "--launch log -1 to the end"
run 0 --launch stream 5 -- "$VICTIM_DIR/victim_exit" 20
# ld.so's entry (_start: mov rdi, rsp), the program's first instruction after
# exec (the victim's own "<pid>" line shares stdout: the first stepped line)
grep -m1 '\[' "$TMP/o" | grep -qE "\[ld-linux[^]]*\] +mov rdi, rsp$" \
  || fail "--launch stream does not start at ld.so's entry: $(head -n2 "$TMP/o")"
run 0 --launch graph -1 -- "$VICTIM_DIR/victim_exit" 20
has "$TMP/o" "^\[int\] step_once +inv=20 " "--launch graph: every call of step_once"
run 0 --launch tree -1 -- "$VICTIM_DIR/victim_exit" 20
[ "$(grep -c '^  -> step_once \[victim_exit\]$' "$TMP/o")" = 20 ] || fail "--launch tree: want 20 step_once lines"
run 0 --launch procs -1 -- "$VICTIM_DIR/victim_exit" 20
has "$TMP/o" "^node [0-9]+ \[victim_exit\] +inv=[0-9]+ +exited 0$" "--launch procs"
# a bounded run (500 rounds, ~1 s): --launch waits for the command's end
run 0 --launch sample 200 -- "$VICTIM_DIR/victim_loop" 2000 500
grep -qE "^# SKIP |^statistical (hot edges|call edges|residency)" "$TMP/o" || fail "--launch sample: $(cat "$TMP/o")"
pass "--launch log|stream|graph|tree|procs|sample"

# ---- malformed arguments: exit 2, one line --------------------------------------
for bad in 12abc 0 -3; do
  run 2 --log "$bad"
  [ "$(lines "$TMP/e")" = 1 ] || fail "--log $bad: want one line"
done
run 2 --bogus
grep -q "unknown option '--bogus'" "$TMP/e" || fail "--bogus: $(cat "$TMP/e")"
pass "malformed pids, unknown option: exit 2, one line"

for p in "$L" "$W" "$F" "$T"; do assert_runs "$p"; done
pass "every victim still runs, untraced"
