#!/bin/bash
# What a process does to itself under a call capture (--calls --json):
#   vfork   a vfork child's calls are logged under the child's own pid/tid,
#           the parent's under its own (exact counts); vfork itself once, in
#           the parent, as an entry-only leaf (it returns twice);
#   follow  --follow: forked children (and a grandchild) get rings of their
#           own: each one's calls under its pid, exact; without --follow the
#           parent's counts are exact and no child's call is logged;
#   exit    pthread_exit and exit inside patched functions (calls that never
#           return): an ASMSPY_EV_TASK exit arrives for each thread, with the
#           process's status (3);
#   exec    execv inside a patched function: an ASMSPY_EV_TASK exec arrives
#           while the new program runs (it waits on a fifo we hold).
# The task events are read from ASMSPY_ENTRYPATCH_DEBUG's lines on stderr.
. "$(dirname "$0")/lib.sh"
require_entrypatch
P="$CALLS_DIR/calls_procs"

# counts JSON: "pid tid name n" of work/thread_leave/finish/doexec entries
counts() {
  python3 - "$1" <<'PY'
import json, sys, collections
c = collections.Counter()
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r.get("type") == "call_log" and r.get("what") in ("leaf", "entry") and \
       r.get("name") in ("work", "thread_leave", "finish", "doexec", "vfork@plt"):
        c[(r["pid"], r["tid"], r["name"])] += 1
for (p, t, n), v in sorted(c.items()):
    print(p, t, n, v)
PY
}
lost_of() { python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{") and "\"type\":\"end\"" in l: print(json.loads(l).get("lost", 0))' "$1"; }

# --- vfork
ASMSPY_ENTRYPATCH_DEBUG=1 "$ASMSPY" --launch calls -1 --json -- "$P" vfork 50 30 >"$TMP/v.json" 2>"$TMP/v.err" ||
  true
grep -q "^checksum" "$TMP/v.json" || fail "vfork: the program did not finish: $(cat "$TMP/v.json" | tail -3)"
grep -q "child failed" "$TMP/v.json" && fail "vfork: the child computed a wrong result"
main=$(awk '/^main/ {print $2}' "$TMP/v.json")
child=$(awk '/^vfork_child/ {print $2}' "$TMP/v.json")
counts "$TMP/v.json" >"$TMP/v.txt"
printf '%s %s work 60\n%s %s work 50\n%s %s vfork@plt 1\n' "$main" "$main" "$child" "$child" \
  "$main" "$main" | sort >"$TMP/v.want"
diff -u "$TMP/v.want" <(sort "$TMP/v.txt") || fail "vfork: calls not under their own process"
python3 - "$TMP/v.json" <<'PY' || fail "vfork: vfork@plt is not an entry-only leaf"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
v = [r for r in v if r.get("type") == "call_log" and r.get("name") == "vfork@plt"]
assert len(v) == 1 and v[0]["what"] == "leaf" and not v[0].get("duration"), v
PY
grep -q "task exit pid $child tid $child" "$TMP/v.err" || fail "vfork: no exit event for the child"
pass "vfork: the child's 50 calls under its own pid $child, the parent's 60 and vfork under $main"

# --- fork, --follow and without
ASMSPY_ENTRYPATCH_DEBUG=1 "$ASMSPY" --launch calls -1 --follow --json -- "$P" fork 3 40 20 \
  >"$TMP/f.json" 2>"$TMP/f.err" || true
grep -q "^checksum" "$TMP/f.json" || fail "follow: the program did not finish"
grep -q "child failed" "$TMP/f.json" && fail "follow: a child computed a wrong result"
main=$(awk '/^main/ {print $2}' "$TMP/f.json")
{ echo "$main $main work 40"
  for c in $(awk '/^fork_child/ {print $2}' "$TMP/f.json"); do echo "$c $c work 40"; done
} | sort >"$TMP/f.want"
[ "$(wc -l <"$TMP/f.want")" = 5 ] || fail "follow: the program reported $(($(wc -l <"$TMP/f.want") - 1)) children"
counts "$TMP/f.json" | sort >"$TMP/f.txt"
diff -u "$TMP/f.want" "$TMP/f.txt" || fail "--follow: children's calls not each under their own pid"
[ "$(lost_of "$TMP/f.json")" = 0 ] || fail "--follow: records lost"
for c in $(awk '/^fork_child/ {print $2}' "$TMP/f.json"); do
  grep -q "task exit pid $c tid $c" "$TMP/f.err" || fail "--follow: no exit event for child $c"
done
pass "--follow: 3 children and a grandchild, 40 calls each under its own pid; the parent's 40"

"$ASMSPY" --launch calls -1 --json -- "$P" fork 3 40 20 >"$TMP/n.json" 2>"$TMP/n.err" || true
grep -q "^checksum" "$TMP/n.json" || fail "no follow: the program did not finish"
grep -q "child failed" "$TMP/n.json" && fail "no follow: a child computed a wrong result"
main=$(awk '/^main/ {print $2}' "$TMP/n.json")
[ "$(counts "$TMP/n.json")" = "$main $main work 40" ] ||
  fail "without --follow: want only the parent's 40 calls, got: $(counts "$TMP/n.json")"
pass "without --follow: the children ran on (their sums right), only the parent's 40 calls logged"

# --- exit: pthread_exit and exit inside patched functions
ASMSPY_ENTRYPATCH_DEBUG=1 "$ASMSPY" --launch calls -1 --json -- "$P" exit >"$TMP/e.json" \
  2>"$TMP/e.err" || true
main=$(awk '/^main/ {print $2}' "$TMP/e.json")
thr=$(awk '/^thread/ {print $2}' "$TMP/e.json")
[ -n "$main" ] && [ -n "$thr" ] || fail "exit: the program did not report its pid and thread"
counts "$TMP/e.json" | grep -q "^$main $thr thread_leave 1$" || fail "exit: no thread_leave entry"
counts "$TMP/e.json" | grep -q "^$main $main finish 1$" || fail "exit: no finish entry"
grep -q "task exit pid $main tid $thr " "$TMP/e.err" || fail "exit: no exit event for thread $thr"
grep -q "task exit pid $main tid $main code 3$" "$TMP/e.err" ||
  fail "exit: no exit event (code 3) for $main: $(grep task "$TMP/e.err")"
pass "exit: pthread_exit and exit(3) inside patched calls end with TASK exit events"

# --- exec: the new program waits on a fifo until the exec event arrived
mkfifo "$TMP/fifo"
ASMSPY_ENTRYPATCH_DEBUG=1 "$ASMSPY" --launch calls -1 --json -- "$P" exec /bin/sh -c 'read x' \
  <"$TMP/fifo" >"$TMP/x.json" 2>"$TMP/x.err" &
a=$!
PIDS="$PIDS $a"
exec 7>"$TMP/fifo"
i=0
until grep -q "task exec" "$TMP/x.err"; do
  sleep 0.02; i=$((i + 1))
  [ $i -lt 1500 ] || break
done
echo go >&7
exec 7>&-
wait "$a" || true
main=$(awk '/^main/ {print $2}' "$TMP/x.json")
grep -q "task exec pid $main tid $main" "$TMP/x.err" || fail "exec: no exec event: $(grep task "$TMP/x.err")"
counts "$TMP/x.json" | grep -q "^$main $main doexec 1$" || fail "exec: no doexec entry"
grep -q "exec'd another program" "$TMP/x.json" || fail "exec: no note that the new program is not traced"
pass "exec: execv inside a patched call ends with a TASK exec event"
