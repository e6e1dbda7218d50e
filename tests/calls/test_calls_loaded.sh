#!/bin/bash
# Exact counts on a busy machine: two CPU hogs beside the target, which
# makes 2.2 M calls (calls_workload 200000: leaf 800000, mid 400000, outer
# 200000, rec 800000, run 1) while asmspy --graph reads them. A full ring
# makes the target wait for the reader (backpressure): every count is the
# program's own and nothing is lost. Then the same with ASMSPY_CALLS_LOSSY=1:
# whatever it drops is counted, and counted + logged = the program's calls.
. "$(dirname "$0")/lib.sh"
require_entrypatch
N=${CALLS_LOADED_N:-200000}

hog() { while :; do :; done; }
hog & PIDS="$PIDS $!"
hog & PIDS="$PIDS $!"

graph_counts() {
  python3 - "$1" <<'PY'
import json, sys
lost = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "graph":
        for n in r["nodes"]:
            if n.get("name") in ("run", "outer", "mid", "leaf", "rec"):
                print(n["name"], n["inv"])
    if r.get("type") == "end":
        lost = r.get("lost", 0)
print("lost", lost)
PY
}

run_loaded() { # run_loaded OUT [env...]
  local out=$1; shift
  start_waiting calls_workload $N
  local before; before=$(rings "$VPID")
  env "$@" "$ASMSPY" --graph "$VPID" -1 --json >"$out" 2>"$out.err" &
  local a=$!
  wait_patched "$VPID" "$before"
  kill -USR1 "$VPID"
  wait "$a" || true
  wait "$VPID" || fail "the workload failed under load: $(cat "$VOUT")"
  [ "$(checksum_of "$VOUT")" != "" ] || fail "the workload did not finish"
}

run_loaded "$TMP/g.json"
graph_counts "$TMP/g.json" | sort >"$TMP/got.txt"
printf 'leaf %d\nlost 0\nmid %d\nouter %d\nrec %d\nrun 1\n' $((4 * N)) $((2 * N)) $N $((4 * N)) \
  >"$TMP/want.txt"
diff -u "$TMP/want.txt" "$TMP/got.txt" || fail "under load: counts differ or records were lost"
pass "2 CPU hogs beside it: $(tr '\n' ' ' <"$TMP/got.txt")"

run_loaded "$TMP/l.json" ASMSPY_CALLS_LOSSY=1
graph_counts "$TMP/l.json" >"$TMP/lossy.txt"
lost=$(awk '$1 == "lost" {print $2}' "$TMP/lossy.txt")
sum=$(awk '$1 != "lost" {s += $2} END {print s}' "$TMP/lossy.txt")
# each call is 2 records (entry, exit); an entry lost loses its count
[ "$sum" -le $((11 * N + 1)) ] || fail "lossy: more calls than the program made ($sum)"
[ $((sum + lost)) -ge $((11 * N + 1)) ] || fail "lossy: $sum calls logged + $lost lost < $((11 * N + 1))"
pass "ASMSPY_CALLS_LOSSY=1: $sum calls logged, $lost records counted lost"

# A signal storm into a full ring: a 20 kHz SIGALRM whose handler calls the
# function the main loop calls. The handler lands while the main line waits
# for the reader (its records pass the head the main line had read: it must
# look again, not wait for ever) or stands between its claim and its
# record's publication (the handler must not wait for the record the reader
# waits for). The program finishes (at the reader's pace at worst), every
# call is counted, none lost.
S=${CALLS_SIGSTORM_N:-3000000}
start_waiting calls_sigstorm $S
before=$(rings "$VPID")
"$ASMSPY" --graph "$VPID" -1 --json >"$TMP/s.json" 2>"$TMP/s.json.err" &
a=$!
wait_patched "$VPID" "$before"
kill -USR1 "$VPID"
i=0
while kill -0 "$VPID" 2>/dev/null && ! grep -q '^checksum' "$VOUT"; do
  sleep 0.1; i=$((i + 1))
  [ $i -lt 1200 ] || fail "signal storm: no end in 120 s (calls_sigstorm stalled while traced): $(cat "$VOUT")"
done
wait "$a" || true
wait "$VPID" || fail "calls_sigstorm failed: $(cat "$VOUT")"
want=$(awk '/^calls/ {print $2}' "$VOUT")
python3 - "$TMP/s.json" <<'PY' >"$TMP/s.txt"
import json, sys
inv = lost = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "graph":
        for n in r["nodes"]:
            if n.get("name") == "storm_hot":
                inv = n["inv"]
    if r.get("type") == "end":
        lost = r.get("lost", 0)
print(inv, lost)
PY
read -r got lost <"$TMP/s.txt"
[ "$got $lost" = "$want 0" ] ||
  fail "signal storm: storm_hot logged $got times, $lost lost; the program made $want calls"
pass "20 kHz SIGALRM into storm_hot's full ring: $got calls (main loop + handler), 0 lost, in $((i / 10)).$((i % 10)) s"
