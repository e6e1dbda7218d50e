#!/bin/bash
# A call log recorded with --record (real timestamps) exported three ways:
# Perfetto / Chrome trace-event JSON validated against the format (ph, ts,
# pid, tid, name on every event; B/E balanced and nested per thread; time
# never going back per thread), folded stacks checked line by line (and
# rendered by flamegraph.pl when it is installed), DOT rendered by graphviz.
. "$(dirname "$0")/lib.sh"
require_entrypatch
start_waiting calls_workload 3
before=$(rings "$VPID")
"$ASMSPY" --calls "$VPID" -1 --record="$TMP/c.asmtrace" >/dev/null 2>"$TMP/c.err" &
a=$!
wait_patched "$VPID" "$before"
kill -USR1 "$VPID"
wait "$a" || true
wait "$VPID" || fail "the workload failed"

"$ASMSPY" --export=perfetto "$TMP/c.asmtrace" --output="$TMP/t.json" || fail "perfetto export failed"
python3 - "$TMP/t.json" <<'PY' || fail "the trace-event JSON is not valid"
import json, sys
d = json.load(open(sys.argv[1]))
evs = d["traceEvents"]
assert evs, "no events"
stacks, last = {}, {}
meta = [e for e in evs if e.get("ph") == "M"]
assert any(e["name"] == "process_name" for e in meta), "no process_name metadata"
assert any(e["name"] == "thread_name" for e in meta), "no thread_name metadata"
first_be = min(i for i, e in enumerate(evs) if e.get("ph") != "M")
assert all(e.get("ph") != "M" for e in evs[first_be:]), "metadata after the B/E events"
evs = evs[first_be:]
for e in evs:
    for k in ("ph", "ts", "pid", "tid", "name"):
        assert k in e, "event without %s: %r" % (k, e)
    assert e["ph"] in ("B", "E"), e
    assert isinstance(e["ts"], (int, float)), e
    key = (e["pid"], e["tid"])
    assert e["ts"] >= last.get(key, 0), "time goes back on %r: %r" % (key, e)
    last[key] = e["ts"]
    st = stacks.setdefault(key, [])
    if e["ph"] == "B":
        st.append(e["name"])
    else:
        assert st and st[-1] == e["name"], "E %s does not close %r" % (e["name"], st[-1:])
        st.pop()
assert all(not s for s in stacks.values()), "unbalanced: %r" % stacks
assert d["otherData"]["time_base"] == "ns", d["otherData"]
names = {e["name"] for e in evs}
assert {"run", "outer", "mid", "leaf", "rec"} <= names, names
print("trace-event JSON: %d events, balanced and nested" % len(evs))
PY
pass "perfetto: valid trace-event JSON with real time"

"$ASMSPY" --export=folded "$TMP/c.asmtrace" --output="$TMP/f.txt" 2>/dev/null || fail "folded export failed"
# a timed call log folds by self time (ns); test_export_timed.py checks the
# weights against the self times; here: every stack the program makes is there
grep -q "^run;outer;mid;leaf [1-9][0-9]*$" "$TMP/f.txt" || { cat "$TMP/f.txt"; fail "no run;outer;mid;leaf line"; }
grep -q "^run;outer;rec;rec;rec;rec [1-9][0-9]*$" "$TMP/f.txt" || { cat "$TMP/f.txt"; fail "recursion not folded"; }
awk 'NF != 2 || $2 !~ /^[0-9]+$/ {bad=1} END {exit bad}' "$TMP/f.txt" || fail "a folded line is not 'stack weight'"
pass "folded: $(wc -l <"$TMP/f.txt") stacks, weighted by self time"
if command -v flamegraph.pl >/dev/null || command -v flamegraph >/dev/null; then
  fg=$(command -v flamegraph.pl || command -v flamegraph)
  "$fg" "$TMP/f.txt" >"$TMP/f.svg" || fail "flamegraph.pl refused the folded stacks"
  grep -q "<svg" "$TMP/f.svg" || fail "flamegraph.pl wrote no SVG"
  pass "flamegraph.pl renders it"
fi
"$ASMSPY" --export=dot "$TMP/c.asmtrace" --output="$TMP/g.dot" || fail "dot export failed"
mid=$(sed -n 's/^ *\(n[0-9]*\) \[label="mid\\n.*/\1/p' "$TMP/g.dot")
leaf=$(sed -n 's/^ *\(n[0-9]*\) \[label="leaf\\n.*/\1/p' "$TMP/g.dot")
grep -q "^ *$mid -> $leaf \[label=\"12\"\]" "$TMP/g.dot" || { cat "$TMP/g.dot"; fail "no mid -> leaf edge x12"; }
if command -v dot >/dev/null; then dot -Tsvg "$TMP/g.dot" >/dev/null || fail "graphviz refused the DOT"; fi
pass "dot: mid -> leaf x12 and the rest; graphviz renders it"
