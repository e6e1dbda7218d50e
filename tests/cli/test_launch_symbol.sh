#!/bin/bash
# --launch of the modes that name a symbol: trace, dataflow, watch. The
# symbol must be resolved in the launched program (after its exec and ld.so,
# so a libc function resolves too), not in asmspy's own image, and the
# program must be held until the backend watches: victim_exit calls
# step_once(0) right after main starts, and that first call is the one
# captured. The command then runs to its end with its own exit status.
. "$(dirname "$0")/../e2e/lib.sh"

. "$(dirname "$0")/run_lib.sh" # run WANT ARGS..., has FILE ERE WHAT
EXITV="$VICTIM_DIR/victim_exit"

# 1. trace: a symbol of the executable, from its first call (ret=0: i=0, total 0)
run 3 --launch trace step_once 2 -- "$EXITV" 30 0 3
has "$TMP/o" "^tracing step_once @ 0x[0-9a-f]+ \(18 bytes\) in pid [0-9]+$" "--launch trace"
python3 - "$TMP/o" <<'PY' || fail "--launch trace: not the first two calls"
import re, sys
rets = [int(m.group(1)) for m in re.finditer(r"^sample #\d+ +ret=(\d+)", open(sys.argv[1]).read(), re.M)]
# step_once(i) adds i to total and returns it: 0 (first call), then 1
assert rets == [0, 1], rets
PY
has "$TMP/e" "^# launched '$EXITV' exited with 3 \(asmspy exits with it\)$" "--launch trace: the command's own status"
pass "--launch trace step_once: resolved in the program, first call captured, exit 3 kept"

# 2. trace: a libc function (mapped by ld.so, not in the executable)
run 0 --launch trace printf 1 -- "$EXITV" 5
has "$TMP/o" "^tracing printf @ 0x7[0-9a-f]+ \([0-9]+ bytes\) in pid [0-9]+$" "--launch trace printf"
has "$TMP/o" "^sample #1 +ret=[0-9]+ " "--launch trace printf: a sample"
pass "--launch trace printf: a shared library's function"

# 3. dataflow: the first invocation's values (rdi = 0, the first i)
# (--record: the command's own stdout shares asmspy's)
run 0 --launch dataflow step_once --record="$TMP/df.asmtrace" -- "$EXITV" 30
"$ASMTRACE_CHECK" "$TMP/df.asmtrace" >/dev/null || fail "--launch dataflow --record: invalid recording"
has "$TMP/o" "^data flow — step_once @ 0x[0-9a-f]+ of pid [0-9]+ +ret=0 +4 steps" "--launch dataflow text"
python3 - "$TMP/df.asmtrace" <<'PY' || fail "--launch dataflow: wrong capture"
import json, sys
d = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "dataflow"]
assert len(d) == 1 and d[0]["name"] == "step_once", d
assert d[0]["steps"] == 4 and d[0]["ret"] == 0, (d[0]["steps"], d[0]["ret"])
PY
pass "--launch dataflow step_once: one invocation, 4 steps"

# 4. watch: a data symbol of the program, every write from the first
run 0 --launch watch total 3 -- "$EXITV" 30
has "$TMP/o" "^watching total @ 0x[0-9a-f]+ \(8 bytes, writes\) in pid [0-9]+$" "--launch watch"
python3 - "$TMP/o" <<'PY' || fail "--launch watch: not the first three writes"
import re, sys
vals = re.findall(r"step_once\+0x[0-9a-f]+ .* (\d+) -> (\d+)$", open(sys.argv[1]).read(), re.M)
# total += i for i = 0, 1, 2: 0 -> 0, 0 -> 1, 1 -> 3
assert vals == [("0", "0"), ("0", "1"), ("1", "3")], vals
PY
pass "--launch watch total: every write from the first"

# 5. a wrong symbol: one clear line naming it, exit 2; nothing left running
for args in "trace nosuch_fn" "dataflow nosuch_fn" "watch nosuch_var"; do
  set -- $args
  run 2 --launch "$1" "$2" -- "$EXITV" 30 0 5
  [ "$(grep -c . "$TMP/e")" = 1 ] || fail "--launch $args: want one line, got: $(cat "$TMP/e")"
  # the program is named, not a pid the user never saw; an error, not a note
  grep -q "^asmspy: .*no .*named '$2' in '$EXITV'" "$TMP/e" || fail "--launch $args: $(cat "$TMP/e")"
  # victim_exit prints its pid first thing in main: held at its entry, it never got there
  [ -s "$TMP/o" ] && fail "--launch $args: the program ran: $(cat "$TMP/o")"
done
pgrep -f "^$EXITV 30 0 5" >/dev/null && fail "a refused --launch left its command running"
run 2 --launch watch step_once -- "$EXITV" 30
grep -q "step_once is a function, not data" "$TMP/e" || fail "--launch watch <function>: $(cat "$TMP/e")"
pass "a wrong symbol: exit 2, one line naming it; the command killed"

# 6. what --launch cannot do: refused up front, one line, nothing spawned
run 2 --launch trace step_once --tid=5 -- "$EXITV" 30
grep -q "a launched command has none yet" "$TMP/e" || fail "--launch --tid: $(cat "$TMP/e")"
run 2 --launch syms -- "$EXITV" 30
grep -q "'syms' is a command, not a tracing mode" "$TMP/e" || fail "--launch syms: $(cat "$TMP/e")"
run 2 --launch nosuchmode -- "$EXITV" 30
grep -q "unknown mode 'nosuchmode'" "$TMP/e" || fail "--launch nosuchmode: $(cat "$TMP/e")"
pass "--launch --tid, a command, an unknown mode: exit 2, one line"

# 7. the end of a launched command is said by name (strace's words)
run 3 --launch stream -1 -- /bin/sh -c 'exit 3'
has "$TMP/o" "^# \[[0-9]+\] exited with 3$" "--stream: the exit status"
run 143 --launch stream -1 -- /bin/sh -c 'kill -TERM $$' # strace's rule: the signal re-raised
has "$TMP/o" "^# \[[0-9]+\] killed by SIGTERM$" "--stream: the killing signal"
grep -q "exited (-" "$TMP/o" && fail "--stream still prints a negative exit code"
has "$TMP/e" "^# pid [0-9]+ was KILLED by SIGTERM \(Terminated, signal 15\) while traced" "the seam's note names the signal"
pass "--stream: 'exited with 3', 'killed by SIGTERM'"
