#!/bin/bash
# Call counts and nesting of one run of calls_workload (200 iterations),
# captured while it runs, three ways: entrypatch attached to the running
# process (--graph, --calls), the single-step backend attached the same way,
# and uftrace recording the -pg build launched. Every count of the
# program's own functions must be equal, and the call log of run() must
# nest exactly as uftrace replay shows it.
. "$(dirname "$0")/lib.sh"
require_entrypatch
N=200

# graph_counts JSONFILE: "name inv" lines of the graph record's nodes
graph_counts() {
  python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "graph":
        for n in r["nodes"]:
            if n.get("name") in ("run", "outer", "mid", "leaf", "rec"):
                print(n["name"], n["inv"])
PY
}

capture_graph() { # capture_graph BACKEND-ARGS... -> $TMP/graph.json
  start_waiting calls_workload $N
  before=$(rings "$VPID")
  "$ASMSPY" --graph "$VPID" -1 --json "$@" >"$TMP/graph.json" 2>"$TMP/graph.err" &
  local a=$!
  if [ "${1:-}" = "--backend=singlestep" ]; then sleep 1; else wait_patched "$VPID" "$before"; fi
  kill -USR1 "$VPID"
  wait "$a" || true
  wait "$VPID" || fail "the workload failed under $*: $(cat "$VOUT")"
  grep -q "^checksum" "$VOUT" || fail "the workload did not finish under $*"
}

capture_graph
graph_counts "$TMP/graph.json" | sort >"$TMP/ep.txt"
printf 'leaf %d\nmid %d\nouter %d\nrec %d\nrun 1\n' $((4 * N)) $((2 * N)) $N $((4 * N)) >"$TMP/want.txt"
diff -u "$TMP/want.txt" "$TMP/ep.txt" || fail "entrypatch graph counts differ from the program's own"
pass "entrypatch --graph on the running process: $(tr '\n' ' ' <"$TMP/ep.txt")"

capture_graph --backend=singlestep
graph_counts "$TMP/graph.json" | sort >"$TMP/ss.txt"
diff -u "$TMP/ep.txt" "$TMP/ss.txt" || fail "singlestep's counts differ from entrypatch's"
pass "singlestep --graph agrees"

# the call log of the same run
start_waiting calls_workload 3
before=$(rings "$VPID")
"$ASMSPY" --calls "$VPID" -1 >"$TMP/calls.txt" 2>"$TMP/calls.err" &
a=$!
wait_patched "$VPID" "$before"
kill -USR1 "$VPID"
wait "$a" || true
wait "$VPID" || fail "the workload failed under --calls"
# keep the function column of run()'s subtree
# (uftrace's own kernel-event lines, `/* linux:schedule (pre-empted) */` when
# the machine is loaded, are events, not calls: left out)
shape() { sed -n 's/^[^|]*| //p' "$1" | grep -v '^ */\* linux:' | awk '
  /^ *run\(\) \{/ { on = 1; match($0, /^ */); cut = RLENGTH }
  on { print substr($0, cut + 1) }
  on && /^ *\} \/\* run \*\// { exit }'; }
shape "$TMP/calls.txt" >"$TMP/ep_shape.txt"
[ -s "$TMP/ep_shape.txt" ] || { cat "$TMP/calls.txt"; fail "--calls printed no run() subtree"; }

command -v uftrace >/dev/null || skip "uftrace not installed (the counts matched singlestep's)"
( cd "$TMP" && uftrace record -d uft "$CALLS_DIR/calls_workload_pg" $N >/dev/null 2>&1 ) \
  || skip "uftrace record could not run here"
uftrace report -d "$TMP/uft" -f call 2>/dev/null | awk '$2 ~ /^(run|outer|mid|leaf|rec)$/ {print $2, $1}' \
  | sort >"$TMP/uft.txt"
diff -u "$TMP/ep.txt" "$TMP/uft.txt" || fail "uftrace's counts differ"
pass "uftrace record of the -pg build agrees: $(tr '\n' ' ' <"$TMP/uft.txt")"

( cd "$TMP" && uftrace record -d uft3 "$CALLS_DIR/calls_workload_pg" 3 >/dev/null 2>&1 )
uftrace replay -d "$TMP/uft3" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' >"$TMP/uft_replay.txt"
shape "$TMP/uft_replay.txt" >"$TMP/uft_shape.txt"
diff -u "$TMP/uft_shape.txt" "$TMP/ep_shape.txt" || fail "--calls nests differently from uftrace replay"
pass "--calls nesting of run() equals uftrace replay's ($(wc -l <"$TMP/ep_shape.txt") lines)"
