#!/bin/bash
# --graph end to end on the singlestep backend: the call graph of victim_loop
# (main -> work -> helper x5, main -> usleep@plt) as text, JSON and DOT; the
# sort orders; usage errors; signal-verified edges on victim_signals; and the
# targets surviving.
. "$(dirname "$0")/lib.sh"
require_backend singlestep

start_victim victim_loop
pid=$VICTIM_PID

# 1. JSON: one graph event, a valid recording; helper is called 5x per work
"$ASMSPY" --graph "$pid" 200 --json >"$TMP/g.ndjson" 2>"$TMP/err" || fail "--graph --json exited $?: $(cat "$TMP/err")"
"$ASMTRACE_CHECK" "$TMP/g.ndjson" || fail "--graph --json is not a valid recording"
[ "$(grep -c '"type":"graph"' "$TMP/g.ndjson")" = 1 ] || fail "expected exactly one graph event"
python3 - "$TMP/g.ndjson" <<'PY' || fail "graph JSON content is wrong"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
g = [e for e in ev if e["type"] == "graph"][0]
nodes = {n["name"]: n for n in g["nodes"]}
by_addr = {n["addr"]: n for n in g["nodes"]}
for need in ("main", "work", "helper"):
    assert need in nodes, "no node %s in %s" % (need, sorted(nodes))
w, h = nodes["work"], nodes["helper"]
assert w["inv"] >= 5, "work called only %d times" % w["inv"]
# window edges: the first/last work may be cut mid-loop
assert abs(h["inv"] - 5 * w["inv"]) <= 5, "helper inv %d vs work inv %d" % (h["inv"], w["inv"])
for n in g["nodes"]:
    assert n["addr"].startswith("0x") and n["kind"] in ("internal", "external", "jit", "unknown"), n
    assert isinstance(n["inv"], int) and isinstance(n["calls"], int) and isinstance(n["fanout"], int), n
assert w["kind"] == "internal" and w["module"] == "victim_loop", w
plt = [n for n in g["nodes"] if n["name"] and n["name"].startswith("usleep@plt")]
assert plt and plt[0]["kind"] == "external", "usleep@plt missing or not external"
edges = {(by_addr[e["caller"]]["name"], by_addr[e["callee"]]["name"]): e["count"] for e in g["edges"]}
assert edges.get(("work", "helper")) == h["inv"], edges
assert ("main", "work") in edges and ("main", "usleep@plt") in edges, edges
# the counts agree with the edges: calls = sum of out-edges, fanout = distinct callees
for n in g["nodes"]:
    out = [e for e in g["edges"] if e["caller"] == n["addr"]]
    assert n["calls"] == sum(e["count"] for e in out) and n["fanout"] == len(out), n
    assert n["inv"] == sum(e["count"] for e in g["edges"] if e["callee"] == n["addr"]), n
assert sum(e["count"] for e in g["edges"]) == g["calls"] == 200, g["calls"]
PY
pass "--graph --json: valid, helper inv = 5 x work inv, edges agree with the counts"
assert_runs "$pid"

# 2. text: the seed's exact layout
"$ASMSPY" --graph "$pid" 120 >"$TMP/g.txt" 2>"$TMP/err" || fail "--graph exited $?: $(cat "$TMP/err")"
head -n1 "$TMP/g.txt" | grep -qE "^call graph — [0-9]+ functions, sorted by invocations \(pid $pid\)$" \
  || fail "bad title: $(head -n1 "$TMP/g.txt")"
grep -qE '^\[int\] helper {25}inv=[0-9]+ +calls=0 +fanout=0 +\[victim_loop\]$' "$TMP/g.txt" \
  || fail "no helper row: $(cat "$TMP/g.txt")"
grep -qE '^\[EXT\] usleep@plt ' "$TMP/g.txt" || fail "usleep@plt not tagged [EXT]: $(cat "$TMP/g.txt")"
[ "$(sed -n 2p "$TMP/g.txt" | awk '{print $2}')" = helper ] || fail "helper is not the most invoked: $(cat "$TMP/g.txt")"
tail -n +2 "$TMP/g.txt" | while IFS= read -r line; do
  [ "${line:37:4}" = "inv=" ] && [ "${line:49:6}" = "calls=" ] && [ "${line:63:7}" = "fanout=" ] \
    || fail "columns off: '$line'"
done
tail -n +2 "$TMP/g.txt" | sed -E 's/.* inv=([0-9]+) .*/\1/' | sort -c -n -r \
  || fail "not sorted by invocations: $(cat "$TMP/g.txt")"
pass "text table: title, [int]/[EXT] tags, columns, invocation order"

# 3. --sort=fanout: fan-out non-increasing, main (work + usleep@plt) first
"$ASMSPY" --graph "$pid" 120 --sort=fanout >"$TMP/f.txt" || fail "--sort=fanout failed"
head -n1 "$TMP/f.txt" | grep -q "sorted by fanout" || fail "--sort=fanout title: $(head -n1 "$TMP/f.txt")"
tail -n +2 "$TMP/f.txt" | sed -E 's/.* fanout=([0-9]+) .*/\1/' | sort -c -n -r \
  || fail "--sort=fanout not by fanout: $(cat "$TMP/f.txt")"
[ "$(sed -n 2p "$TMP/f.txt" | awk '{print $2}')" = main ] || fail "--sort=fanout: main not first: $(cat "$TMP/f.txt")"
pass "--sort=fanout orders by fan-out"
# --sort=functions-called: by reach (distinct functions called directly or
# through callees): main reaches work, helper and usleep@plt (reach 3 > its fanout 2)
"$ASMSPY" --graph "$pid" 120 --sort=functions-called >"$TMP/r.txt" || fail "--sort=functions-called failed"
head -n1 "$TMP/r.txt" | grep -q "sorted by functions-called" || fail "functions-called title: $(head -n1 "$TMP/r.txt")"
tail -n +2 "$TMP/r.txt" | sed -E 's/.* reach=([0-9]+) .*/\1/' | sort -c -n -r \
  || fail "--sort=functions-called not by reach: $(cat "$TMP/r.txt")"
grep -qE '^\[int\] main +inv=0 +calls=[0-9]+ +fanout=2 +reach=3 +\[victim_loop\]$' "$TMP/r.txt" \
  || fail "main's reach is not 3: $(cat "$TMP/r.txt")"
pass "--sort=functions-called orders by reach (callees' callees counted)"

# 4. --dot: a digraph that Graphviz renders
"$ASMSPY" --graph "$pid" 80 --dot >"$TMP/g.dot" || fail "--dot failed"
head -n1 "$TMP/g.dot" | grep -q '^digraph ' || fail "--dot output is not a digraph: $(head -3 "$TMP/g.dot")"
grep -qE '^  n[0-9]+ -> n[0-9]+ \[label="[0-9]+"\];$' "$TMP/g.dot" || fail "no count-labelled edge"
if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$TMP/g.dot" -o "$TMP/g.svg" || fail "dot -Tsvg rejected the digraph"
  grep -q '<svg' "$TMP/g.svg" || fail "dot produced no svg"
  pass "--dot renders with dot -Tsvg"
else
  echo "note: graphviz 'dot' not installed: --dot output checked textually only"
fi
# --dot with --record: the recording stays valid (the graph event still carries nodes/edges)
"$ASMSPY" --graph "$pid" 40 --dot --record="$TMP/d.asmtrace" >/dev/null || fail "--dot --record failed"
"$ASMTRACE_CHECK" "$TMP/d.asmtrace" >/dev/null || fail "--dot --record recording invalid"
grep -q '"format":"dot"' "$TMP/d.asmtrace" || fail "--dot recording lacks format:dot"
pass "--dot --record: the recording stays valid"

# 5. usage errors exit 2 and touch nothing
expect_exit 2 "$ASMSPY" --graph "$pid" --sort=bogus
grep -q "bogus" "$TMP/err" || fail "--sort=bogus message does not name the value"
expect_exit 2 "$ASMSPY" --graph "$pid" --frobnicate
assert_runs "$pid"
pass "usage errors exit 2"

# 6. signals: a SIGALRM handler's call never becomes an edge from the interrupted code
start_victim victim_signals
spid=$VICTIM_PID
"$ASMSPY" --graph "$spid" 300 --json >"$TMP/s.ndjson" || fail "--graph on victim_signals failed"
"$ASMTRACE_CHECK" "$TMP/s.ndjson" >/dev/null || fail "victim_signals graph invalid"
python3 - "$TMP/s.ndjson" <<'PY' || fail "signal handler edges are wrong"
import json, sys
g = [json.loads(l) for l in open(sys.argv[1])]
g = [e for e in g if e["type"] == "graph"][0]
name = {n["addr"]: n["name"] for n in g["nodes"]}
nodes = {n["name"]: n for n in g["nodes"]}
assert "in_handler" in nodes, "the handler's call never showed up: %s" % sorted(nodes)
for e in g["edges"]:
    caller, callee = name[e["caller"]], name[e["callee"]]
    assert callee != "on_alarm", "edge into the handler itself: %s -> on_alarm" % caller
    if callee == "in_handler":
        assert caller == "on_alarm", "in_handler attributed to %s" % caller
w, h = nodes["work"], nodes["helper"]
assert abs(h["inv"] - 5 * w["inv"]) <= 5, "helper %d vs work %d" % (h["inv"], w["inv"])
PY
assert_runs "$spid"
pass "victim_signals: no fabricated edge into the handler; in_handler only from on_alarm"
