#!/bin/sh
# test_tui_stepping: the single-step views of victim_loop (main calls work,
# work calls helper 5 times), driven in tmux.
#   4 call graph: helper's inv is higher than work's; Tab sorts by inv, calls,
#     fanout (main first), then the view's order again;
#   5 call tree: `-> helper` indented under `-> work`, the right pane
#     disassembles the selected function read live; space pauses;
#   6 process tree: `node <pid>` with inv=; Enter drills into the node's
#     call graph (detach, re-attach);
#   9 data flow: the symbol picker (filter "work", Tab orders: hot edges
#     falls back to address order with the IBS reason, name), then one
#     invocation of work with def-use (#N) links, walked with Enter;
#   2 assembly & functions: per-instruction counts (5x the loop body) and
#     helper among the callees;
# after every view the victim runs on, not stopped, TracerPid 0.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

tui_victim victim_loop
V=$VICTIM_PID
tui_victim victim_loop 100000
T=$VICTIM_PID
tui_start
tui_pick victim_loop "$V"

inv_of() { # inv_of NAME: the inv= column of NAME's graph row on the last screen
  awk -v n="$1" '$2 == n { for (i = 1; i <= NF; i++) if ($i ~ /^inv=/) { sub("inv=", "", $i); print $i; exit } }' \
    "$TMP/screen"
}

# ---- 4 call graph -----------------------------------------------------------------
tui_keys 4
tui_wait '^call graph — [0-9]+ functions, sorted by invocations' "the graph frame"
tui_wait '^\[int\] helper +inv=[0-9]*[1-9][0-9]* ' "helper with invocations"
tui_wait '^\[int\] work +inv=[0-9]*[1-9][0-9]* ' "work with invocations"
H=$(inv_of helper)
W=$(inv_of work)
[ -n "$H" ] && [ -n "$W" ] || fail "no inv for helper/work"
[ "$H" -gt "$W" ] || fail "helper inv=$H is not above work inv=$W"
tui_save graph
# Tab cycles the rows' SORT_KEY fields (inv, calls, fanout), then the view's order
tui_keys Tab
tui_wait 'sorted by inv \(Tab\)' "Tab: the inv sort"
tui_keys Tab
tui_wait 'sorted by calls \(Tab\)' "Tab: the calls sort"
tui_keys Tab
tui_wait 'sorted by fanout \(Tab\)' "Tab: the fanout sort"
sed -n 3p "$TMP/screen" | grep -Eq '^\[int\] main .*fanout=2 ' ||
  { cat "$TMP/screen" >&2; fail "sorted by fanout: main (fanout=2) is not the first row"; }
tui_keys Tab
tui_wait_not 'sorted by [a-z]+ \(Tab\)'
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$V"
pass "4 call graph: helper inv=$H > work inv=$W; Tab sorts by fanout"

# ---- 5 call tree --------------------------------------------------------------------
tui_keys 5
tui_wait '^-> work \[victim_loop\]' "-> work at depth 0"
tui_wait '^  -> helper \[victim_loop\]' "-> helper indented under work"
# helper's line follows a work line (or another helper) one level deeper
awk '/^-> work \[victim_loop\]/ {w = 1; next} w && /^  -> helper \[victim_loop\]/ {ok = 1} /^-> / {w = /^-> work/}
     END {exit !ok}' "$TMP/screen" || fail "no '  -> helper' directly under '-> work'"
tui_wait '│ (work|helper|usleep@plt|nanosleep|clock_nanosleep|main) \[[^]]+\] @ 0x[0-9a-f]+' \
  "the right pane's function header"
tui_keys Space
tui_wait '\[PAUSED' "the tree pauses"
tui_keys Up
tui_wait '│   \+0x0 +[a-z]' "the selected function's disassembly"
tui_save tree
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$V"
pass "5 call tree: helper under work, disassembly pane, pause"

# ---- 6 process tree and the drill-in ------------------------------------------------
tui_keys 6
tui_wait "^node $V \\[victim_loop\\] +inv=[1-9][0-9]*" "the process node, counting syscalls"
tui_wait "tid $V \\(victim_loop\\) +inv=" "its thread"
tui_save procs
tui_keys Enter
tui_wait "^call graph — [0-9]+ functions, sorted by invocations \\(pid $V\\)" "Enter: the node's call graph"
tui_wait '^\[int\] helper +inv=' "the drilled-in graph's rows"
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$V"
pass "6 process tree: node/tid rows; Enter drills into the node's call graph"

# ---- 9 data flow (and the symbol picker) -----------------------------------------
tui_keys 9
tui_wait 'pick a function' "the symbol picker"
tui_wait 'filter: _' "an empty filter (a new process)"
tui_type work
tui_wait '^  0x[0-9a-f]+ +[0-9]+ work +\[victim_loop\]' "work in the symbol list"
tui_keys Tab
tui_wait 'order: hot edges' "Tab: the hot-edge order"
tui_wait '^address order: hot edges need an entry-edge sample .*amd_ibs is unavailable' \
  "the fallback explanation"
tui_keys Tab
tui_wait 'order: name' "Tab: the name order"
tui_keys Tab
tui_wait 'order: address' "Tab: back to the address order"
tui_wait '^  0x[0-9a-f]+ +[0-9]+ work +\[victim_loop\]' "work first by address"
tui_save symbols
tui_keys Enter
tui_wait '^#[0-9]+ +\+0x[0-9a-f]+ +callout helper' "a call-out step to helper"
tui_wait 'r: .*\(#[0-9]+\)' "reads linked to their defining steps"
tui_save dataflow
# slice navigation: select a step whose read was defined inside the
# invocation, Enter walks to the defining step, Backspace walks back
tui_keys Up
tui_wait '\[PAUSED' "the data flow pauses"
tui_keys Home
i=0
while :; do
  tui_screen >"$TMP/screen"
  if grep -Eq 'step #[0-9]+ read [0-9]+/[0-9]+: .*defined by step #[0-9]+' "$TMP/screen"; then break; fi
  i=$((i + 1))
  [ $i -lt 80 ] || { cat "$TMP/screen" >&2; fail "no step with a defined read within 80 rows"; }
  if grep -Eq 'step #[0-9]+ read [0-9]+/[0-9]+: ' "$TMP/screen"; then tui_keys Right; fi
  tui_keys Down
  sleep 0.05
done
FROM=$(grep -Eo 'step #[0-9]+ read' "$TMP/screen" | grep -Eo '[0-9]+')
DEF=$(grep -Eo 'defined by step #[0-9]+' "$TMP/screen" | grep -Eo '[0-9]+$')
tui_keys Enter
tui_wait "step #$DEF read|step #$DEF reads nothing" "Enter: the defining step #$DEF"
tui_save dataflow_walk
tui_keys BSpace
tui_wait "step #$FROM read" "Backspace: back to step #$FROM"
pass "9 data flow: walked a read of step #$FROM to its definition #$DEF and back"
tui_keys q
tui_wait 'pick a process' "q: the process list"
assert_untraced "$V"
pass "9 data flow: symbol picker, one invocation of work with def-use links"

# ---- 2 assembly & functions -----------------------------------------------------------
# On a victim calling work every 100 ms, not every 2: leaving a region
# session while a thread sits in an unreaped breakpoint trap is a known race
# of the singlestep region backend (the target gets SIGTRAP at detach; it
# happens with `asmspy --trace` and Ctrl-C too), and a slow victim keeps
# this test from tripping over it while it checks the TUI.
tui_pick victim_loop "$T"
tui_keys 2
tui_wait 'pick a function' "the symbol picker"
tui_wait 'filter: _' "an empty filter (a new process)"
tui_type work
tui_wait '^  0x[0-9a-f]+ +[0-9]+ work +\[victim_loop\]' "work in the symbol list"
tui_keys Enter
tui_wait '^sample #[0-9]+ +ret=[0-9]+ ' "a sample of work"
tui_wait '^ +5× +\+0x[0-9a-f]+ +call ' "the call executed 5 times per invocation"
tui_wait '│ +5× +\+0x[0-9a-f]+ +-> +helper +\[victim_loop\]' "helper among the functions called"
tui_save trace
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$T"
pass "2 assembly & functions: per-instruction counts, callees"
tui_keys q
tui_wait 'pick a process' "q: the process list"

tui_quit
echo PASS
