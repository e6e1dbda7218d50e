#!/bin/bash
# --follow (strace -f) end to end, issue 12:
#  1. --log / --stream / --tree: every line of a forked child carries its
#     [pid] prefix, down to its `exit_group(0) = ?`, `+++ exited with 0 +++`
#     and the last instruction it stepped (the host reports those with one
#     task followed: the child is already gone from its table);
#  2. --graph --follow: one row per process and function, each row saying
#     which process ([pid] in text, pid in every JSON node and edge), no two
#     rows alike; the recording is valid and replays to the live text;
#  3. --procs on a shell forking /bin/true as fast as it can (before the
#     single-stepping parts: it needs only the ptrace backend): every task is
#     listed once (a child whose stops, even its exit, beat its parent's fork
#     event used to get a second, never-ending entry; so did a zombie child
#     the final /proc walk still saw). Trials, bounded by count.
# The deterministic versions of the same event orders: tests/unit/test_follow_views.c.
. "$(dirname "$0")/lib.sh"
require_backend ptrace

mkdir -p "$TMP/forks"
start_victim victim_fork "$TMP/forks"
fpid=$VICTIM_PID

# prefixed REC TARGET: every event of a task other than TARGET whose human
# text is a line of that task starts with "[tid] ". Prints how many such
# lines it checked, per kind (exit lines counted apart).
prefixed() {
  python3 - "$1" "$2" <<'PY'
import json, sys
rec, target = sys.argv[1], int(sys.argv[2])
n = {"lines": 0, "exit_group": 0, "exited": 0, "last_step": 0}
bad = []
last = {}  # tid -> its last insn line
for line in open(rec):
    e = json.loads(line)
    t, tid, human = e.get("type"), e.get("tid"), e.get("human")
    if tid is None or human is None or tid == target:
        continue
    if t == "task" and human.startswith("# "):  # --stream: "# [tid] exited (0)", "# [tid] fork -> c"
        if e.get("what") == "exit" and tid in last:  # the step completed at its exit
            n["last_step"] += 1
            if not last[tid].startswith(f"[{tid}] "): bad.append(last[tid])
        continue
    if t == "task" and e.get("what") == "exit": n["exited"] += 1
    if t == "syscall" and e.get("name") == "exit_group": n["exit_group"] += 1
    if t == "insn": last[tid] = human
    n["lines"] += 1
    if not human.startswith(f"[{tid}] "): bad.append(human)
if bad:
    print("unprefixed lines of children: " + " | ".join(bad[:5]), file=sys.stderr)
    sys.exit(1)
print(" ".join(f"{k}={v}" for k, v in n.items()))
PY
}

# 1a. --log --follow: the child's exit lines keep its prefix
"$ASMSPY" --log "$fpid" 80 --follow --record="$TMP/log.asmtrace" >"$TMP/log.txt" 2>"$TMP/err" \
  || fail "--log --follow failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/log.asmtrace" >/dev/null || fail "--log --follow recording invalid"
got=$(prefixed "$TMP/log.asmtrace" "$fpid") || fail "--log --follow: a child's line lost its [pid]: $(grep -E 'exit' "$TMP/log.txt" | head -6)"
case "$got" in *exit_group=0*|*exited=0*) fail "--log --follow: no child exited in 80 lines ($got)";; esac
grep -E 'exit_group\(|\+\+\+ exited' "$TMP/log.txt" | grep -vqE '^\[[0-9]+\] ' \
  && fail "--log --follow: an exit line without [pid]: $(grep -E 'exit_group\(|\+\+\+ exited' "$TMP/log.txt" | head -4)"
pass "--log --follow: every child line prefixed, exit lines included ($got)"

# 3. --procs on a fast-forking shell: each task once
bash -c 'while :; do /bin/true; done' &
bpid=$!
VICTIM_PIDS="$VICTIM_PIDS $bpid"
TRIALS=${TRIALS:-40}
for i in $(seq 1 "$TRIALS"); do
  "$ASMSPY" --procs "$bpid" 2000 --json >"$TMP/p.$i.ndjson" 2>"$TMP/err" || fail "--procs trial $i failed: $(cat "$TMP/err")"
done
# one validator and one checker run over every trial (the trials are the cost)
"$ASMTRACE_CHECK" "$TMP"/p.*.ndjson >/dev/null || fail "--procs: an invalid recording"
python3 - "$TMP"/p.*.ndjson <<'PY' || fail "--procs listed a task twice"
import collections, json, sys
bad = 0
for path in sys.argv[1:]:
    rows = [json.loads(l) for l in open(path)]
    rows = [r for r in rows if r["type"] == "proc"]
    c = collections.Counter(r["tid"] for r in rows)
    d = [t for t, n in c.items() if n > 1]
    for r in rows:
        if r["tid"] in d:
            bad += 1
            print(path, {k: r[k] for k in ("tid", "tgid", "ppid", "comm", "inv", "alive", "origin", "traced")
                         if k in r}, file=sys.stderr)
    assert sum(r["origin"] == "fork" for r in rows) >= 1, f"{path}: no forked child seen"
sys.exit(1 if bad else 0)
PY
assert_runs "$bpid"
pass "--procs on a shell forking /bin/true: every task listed once in $TRIALS trials"

# the rest single-steps
# 1b. --stream --follow: a child's last step (its exit_group's syscall) keeps the prefix
require_backend singlestep
"$ASMSPY" --stream "$fpid" 12000 --follow --record="$TMP/stream.asmtrace" >"$TMP/stream.txt" 2>"$TMP/err" \
  || fail "--stream --follow failed: $(cat "$TMP/err")"
got=$(prefixed "$TMP/stream.asmtrace" "$fpid") || fail "--stream --follow: a child's step lost its [pid]"
case "$got" in *last_step=0*) fail "--stream --follow: no child exited in 12000 steps ($got)";; esac
grep -B1 -E '^# \[[0-9]+\] exited' "$TMP/stream.txt" | grep -vE '^# |^--$' | grep -vqE '^\[[0-9]+\] ' \
  && fail "--stream --follow: the step before a child's exit has no [pid]: $(grep -B1 -E '^# \[[0-9]+\] exited' "$TMP/stream.txt" | head -4)"
pass "--stream --follow: every child step prefixed, the last one included ($got)"

# 1c. --tree --follow: the child's call lines are prefixed
"$ASMSPY" --tree "$fpid" 150 --follow --record="$TMP/tree.asmtrace" >"$TMP/tree.txt" 2>"$TMP/err" \
  || fail "--tree --follow failed: $(cat "$TMP/err")"
got=$(prefixed "$TMP/tree.asmtrace" "$fpid") || fail "--tree --follow: a child's call lost its [pid]"
case "$got" in lines=0*) fail "--tree --follow: no child call in 150 lines";; esac
python3 - "$TMP/tree.asmtrace" "$fpid" <<'PY' || fail "--tree --follow: a call without its process"
import json, sys
calls = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "call"]
target = int(sys.argv[2])
assert all(isinstance(c.get("pid"), int) for c in calls), "a call without pid"
assert any(c["pid"] != target for c in calls), "no call of a child process"
assert all(c["pid"] == target for c in calls if c["tid"] == target), "the target's calls name another pid"
PY
pass "--tree --follow: every child call prefixed, each call's JSON names its process ($got)"
assert_runs "$fpid"

# 2. --graph --follow: rows per process, each naming it
"$ASMSPY" --graph "$fpid" 300 --follow --record="$TMP/g.asmtrace" >"$TMP/g.txt" 2>"$TMP/err" \
  || fail "--graph --follow failed: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/g.asmtrace" >/dev/null || fail "--graph --follow recording invalid"
npids=$(python3 - "$TMP/g.asmtrace" <<'PY'
import json, sys
g = [json.loads(l) for l in open(sys.argv[1])]
g = [e for e in g if e["type"] == "graph"]
assert len(g) == 1, "one graph event"
g = g[0]
assert all(isinstance(n.get("pid"), int) and n["pid"] > 0 for n in g["nodes"]), "every node has a pid"
assert all(isinstance(e.get("pid"), int) and e["pid"] > 0 for e in g["edges"]), "every edge has a pid"
keys = [(n["pid"], n["addr"]) for n in g["nodes"]]
assert len(keys) == len(set(keys)), "a (pid, addr) node twice"
byaddr = {(n["pid"], n["addr"]) for n in g["nodes"]}
for e in g["edges"]:
    assert (e["pid"], e["caller"]) in byaddr and (e["pid"], e["callee"]) in byaddr, f"edge {e} names no node of its process"
print(len({n["pid"] for n in g["nodes"]}))
PY
) || fail "--graph --follow JSON: $(tail -c 300 "$TMP/g.asmtrace")"
[ "$npids" -ge 2 ] || fail "--graph --follow: the graph spans $npids process(es); expected the children too"
head -n1 "$TMP/g.txt" | grep -qE "^call graph — [0-9]+ functions, sorted by invocations \(pid $fpid; $npids processes, rows by \[pid\]\)$" \
  || fail "--graph --follow title: $(head -n1 "$TMP/g.txt")"
rows=$(tail -n +2 "$TMP/g.txt")
[ -n "$rows" ] || fail "--graph --follow printed no rows"
echo "$rows" | grep -vqE '^\[[0-9]+\] \[(int|EXT|JIT|\?)\] ' && fail "--graph --follow: a row without its [pid]: $(echo "$rows" | grep -vE '^\[[0-9]+\] ' | head -3)"
dups=$(echo "$rows" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "--graph --follow: identical rows: $dups"
"$ASMSPY" --replay "$TMP/g.asmtrace" >"$TMP/g.replay" 2>"$TMP/err" || fail "--replay of the graph failed: $(cat "$TMP/err")"
cmp -s "$TMP/g.txt" "$TMP/g.replay" || fail "--replay differs from the live graph: $(diff "$TMP/g.txt" "$TMP/g.replay" | head -6)"
pass "--graph --follow: $npids processes, every row [pid]-prefixed, none alike; JSON pid per node/edge; replays identically"

# the validator checks the new member: a node's pid must be a positive integer
sed -E '0,/"pid":[0-9]+,"addr"/s//"pid":"x","addr"/' "$TMP/g.asmtrace" >"$TMP/bad.asmtrace"
cmp -s "$TMP/g.asmtrace" "$TMP/bad.asmtrace" && fail "could not make a bad graph recording"
set +e
"$ASMTRACE_CHECK" "$TMP/bad.asmtrace" >"$TMP/bad.out" 2>&1
rc=$?
set -e
[ "$rc" != 0 ] || fail "asmtrace-check accepted a graph node with \"pid\":\"x\""
grep -q 'graph.nodes\[\].pid' "$TMP/bad.out" || fail "asmtrace-check did not name graph.nodes[].pid: $(cat "$TMP/bad.out")"
pass "asmtrace-check rejects a graph node whose pid is not an integer"

# single process (no --follow): title and rows as before
"$ASMSPY" --graph "$fpid" 40 >"$TMP/g1.txt" 2>"$TMP/err" || fail "--graph failed: $(cat "$TMP/err")"
head -n1 "$TMP/g1.txt" | grep -qE "\(pid $fpid\)$" || fail "--graph title: $(head -n1 "$TMP/g1.txt")"
tail -n +2 "$TMP/g1.txt" | grep -qE '^\[[0-9]+\] ' && fail "--graph without --follow prefixed a row"
pass "--graph without --follow: no [pid] column"
assert_runs "$fpid"

