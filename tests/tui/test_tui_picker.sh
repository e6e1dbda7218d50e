#!/bin/sh
# test_tui_picker: the TUI's screens that attach nothing, driven in tmux.
#   - no terminal: `asmspy` with no arguments keeps the usage error (exit 2);
#   - the process picker: filter-as-you-type, Tab sorts (PID, ACTIVE with a
#     CPU% column, STR with the string-scan column), F2 tree with ├─/└─
#     connectors, F3 re-scans, `!` rows with the reason on selection;
#   - mode select: the nine numbered modes (the views' tui keys and '8'); 7 (hot edges) is ready on the
#     sampler ladder's first usable rung, or says why it cannot start here (every rung's refusal);
#   - 8 process details: the runtime badge, nothing attached;
#   - a third-party view (examples/view_plugin, built here, found through
#     ASMSPY_PLUGIN_PATH) is listed as a mode and runs with no TUI code;
#   - a too-small terminal says so, and the screen comes back on resize;
#   - q quits with status 0, the terminal leaves the alternate screen, and
#     the victim runs on untraced.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

# ---- no terminal: the existing usage behaviour ------------------------------
set +e
"$ASMSPY" </dev/null >"$TMP/nott.out" 2>"$TMP/nott.err"
rc=$?
set -e
[ $rc = 2 ] || fail "asmspy with no arguments and no terminal exited $rc, expected 2"
grep -q 'needs a terminal' "$TMP/nott.err" || fail "no 'needs a terminal' line: $(cat "$TMP/nott.err")"
pass "no terminal: usage, exit 2"

# ---- the third-party view: built from the example's source ------------------
PLUG="$TMP/plugins"
mkdir -p "$PLUG"
${CC:-cc} -O2 -shared -fPIC -fvisibility=hidden -I"$ASMSPY_SOURCE_ROOT/include" \
  -o "$PLUG/asmspy_hello.so" "$ASMSPY_SOURCE_ROOT/examples/view_plugin/hello_view.c" ||
  fail "cannot build examples/view_plugin/hello_view.c"

tui_victim victim_loop
V=$VICTIM_PID
tui_start "ASMSPY_PLUGIN_PATH=$PLUG"

# ---- the picker -------------------------------------------------------------
tui_wait 'pick a process +sort: PID' "the process picker"
# kernel threads sort after every user process: End shows them
tui_keys End
tui_wait '^! +[0-9]+ root .* \[kworker' "kernel threads marked '!' (at the end)"
tui_keys Home
tui_keys Tab
tui_wait 'sort: ACTIVE' "the ACTIVE sort"
tui_wait 'CPU%' "the CPU% column"
tui_keys Tab
tui_wait 'sort: STR' "the string-scan sort"
tui_wait ' STR NAME' "the STR column"
tui_keys Tab
tui_wait 'sort: PID' "back to the PID sort"
tui_keys F2
tui_wait 'sort: PID +tree' "the tree view"
tui_wait '(├─|└─) ' "tree connectors"
tui_type victim_loop
tui_wait "^ +$V root +…?[│ ]*(├─|└─) victim_loop " "the victim as a child row with its connector"
tui_save picker_tree
tui_keys Escape
tui_keys F3
tui_wait 'sort: PID +tree' "a re-scan keeps the tree"
tui_keys F2
tui_wait 'sort: PID +list' "back to the flat list"
# a `!` row shows its reason when selected: kthreadd (pid 2) is a kernel thread
tui_type kthreadd
tui_wait '^! +2 .*kthreadd' "kthreadd in the filter"
tui_wait 'pid 2 cannot be traced: .*kernel thread' "the reason for the selected '!' row"
tui_keys Escape
tui_wait 'filter: _' "ESC clears the filter"
pass "picker: filter, sorts, tree, rescan, '!' reasons"

# ---- mode select ------------------------------------------------------------
tui_pick victim_loop "$V"
for m in '1  syscall log' '2  assembly & functions' '3  live instruction stream' '4  call graph' \
         '5  call tree' '6  process/thread topology' '7  hot edges' '8  process details' \
         '9  data flow'; do
  grep -q "^ $m" "$TMP/screen" || fail "mode '$m' is not listed"
done
# mode 7 runs the first usable rung of the sampler ladder (--backends order)
"$ASMSPY" --backends >"$TMP/backends"
rung_backend=""
for b in amd_ibs amd_lbr swclock ptsampler; do
  if awk -v n="$b" '$2 == n && $4 == "usable"' "$TMP/backends" | grep -q .; then rung_backend=$b; break; fi
done
tui_save modes
if [ -n "$rung_backend" ]; then
  grep -Eq "^ 7  hot edges \(sampler\) +sample +$rung_backend +ready" "$TMP/screen" ||
    fail "mode 7 is not ready on $rung_backend: $(grep '^ 7' "$TMP/screen")"
  pass "mode 7 (hot edges) is ready on the ladder's first usable rung ($rung_backend)"
else
  grep -Eq '^ 7  hot edges .*unavailable: .*(ibs|IBS)' "$TMP/screen" ||
    fail "mode 7 does not show the IBS probe's reason: $(grep '^ 7' "$TMP/screen")"
  tui_keys 7
  tui_wait 'hot edges \(sampler\) cannot start here: amd_ibs unavailable: ' "mode 7's reason"
  pass "mode 7 (hot edges) shows the amd_ibs reason instead of starting (no rung usable here)"
fi

# the third-party view is a mode of its own
grep -q 'views from plugins:' "$TMP/screen" || fail "no 'views from plugins' section"
KEY=$(awk '/ hello  / {print $1; exit}' "$TMP/screen")
[ -n "$KEY" ] || { cat "$TMP/screen" >&2; fail "the hello view is not listed as a mode"; }
tui_keys "$KEY"
tui_wait 'hello: saw 10 instructions in [0-9]+ functions' "the hello view's output"
tui_save third_party
tui_keys b
tui_wait '^ 1  syscall log' "b: back to the modes"
pass "third-party view '$KEY hello' runs as a mode (ASMSPY_PLUGIN_PATH)"

# ---- details: no attach -----------------------------------------------------
tui_keys 8
tui_wait 'runtime +native' "the runtime badge"
tui_wait "pid $V +victim_loop +\[native\]" "the details header"
tui_save details
grep -q 'TracerPid' /dev/null || true
tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$V/status")
[ "$tracer" = 0 ] || fail "process details attached to pid $V (TracerPid $tracer)"
pass "8 process details: runtime badge, nothing attached"

# ---- a too-small terminal, then a resize back --------------------------------
tmux_ resize-window -t tui -x 40 -y 8
tui_wait 'terminal too small' "the too-small message"
tmux_ resize-window -t tui -x 120 -y 40
tui_wait 'runtime +native' "the details again after the resize"
pass "too small says so; resize redraws"

# ---- quit ---------------------------------------------------------------------
tui_quit
assert_untraced "$V"
pass "q quits (status 0), terminal restored, victim untraced and running"
echo PASS
