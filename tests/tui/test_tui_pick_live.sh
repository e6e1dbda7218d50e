#!/bin/sh
# test_tui_pick_live: the pickers follow what changes under them.
#   - the process picker refreshes itself (no F3): a process started after
#     the picker opened appears, one that exited goes, within a bounded
#     poll; the selection stays on its pid (an exited one's place goes to
#     the row now there); the filter and the tree view stay; CPU% (ACTIVE
#     sort) is re-measured: a busy process stopped with SIGSTOP drops to 0.0;
#   - the symbol picker: when the filter is exactly a symbol's name that row
#     is selected even though another row matches first, and Enter traces
#     it (the live view's header names it).
# The victims are copies of victim_loop under a name of their own, so the
# filter shows only this test's processes.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

NAME=victim_pklive
cp "$VICTIM_DIR/victim_loop" "$TMP/$NAME" || fail "cannot copy victim_loop"
VICTIM_DIR=$TMP # tui_victim runs $VICTIM_DIR/<name>

# status_pid: the pid the message line names ("pid N: ..."), i.e. the selection
status_pid() { sed -n 's/^pid \([0-9][0-9]*\): .*/\1/p' "$TMP/screen" | head -n1; }

# ---- the process picker refreshes --------------------------------------------
tui_victim "$NAME" 100000000 # asleep (in clock_nanosleep) for 100 s: never re-enters nanosleep
A=$VICTIM_PID
tui_start
tui_wait 'pick a process +sort: PID' "the process picker"
tui_type "$NAME"
tui_wait "^ +$A root .*$NAME" "pid $A in the filtered list"
tui_keys F2
tui_wait 'sort: PID +tree' "the tree view"
tui_wait "^pid $A: " "pid $A selected"

tui_victim "$NAME" 100000000 # started after the picker opened: no F3 is pressed
B=$VICTIM_PID
[ "$B" -gt "$A" ] || skip "pid wrapped around ($B after $A): the PID order this test reads is gone"
tui_wait "^ +$B root .*$NAME" "pid $B (started after the picker opened) listed by a refresh"
[ "$(status_pid)" = "$A" ] || fail "the refresh moved the selection from pid $A to $(status_pid)"
grep -q "filter: $NAME" "$TMP/screen" || fail "the refresh lost the filter"
grep -Eq 'sort: PID +tree' "$TMP/screen" || fail "the refresh left the tree view"
pass "a process started after the picker opened appears; the selection, filter and tree stay"

tui_keys Down
tui_wait "^pid $B: " "pid $B selected"
kill -9 "$B"
wait "$B" 2>/dev/null || true # reaped: not a zombie row
tui_wait_not "^ +$B root " # gone by a refresh
tui_wait "^pid $A: " "the selection on the row that took the exited one's place (pid $A)"
pass "an exited process goes; its selection moves to the nearest row"

# ---- CPU% re-measured ------------------------------------------------------------
tui_victim "$NAME" 0 # busy: no sleep at all
C=$VICTIM_PID
tui_keys F2 # the flat list: the CPU% column is at a fixed place
tui_wait 'sort: PID +list' "the flat list"
tui_keys Escape
tui_keys Tab
tui_wait 'sort: ACTIVE' "the ACTIVE sort"
tui_type "$NAME"
# the busy one uses a CPU: its CPU% is well above 0
tui_wait "^ +$C root +([1-9][0-9]*|[0-9]*[1-9])\\.[0-9] +$NAME" "pid $C busy"
kill -STOP "$C"
tui_wait "^ +$C root +0\\.0 +$NAME" "pid $C at 0.0% once stopped (a refresh, no F3)"
kill -CONT "$C"
tui_wait "^ +$C root +([1-9][0-9]*|[0-9]*[1-9])\\.[0-9] +$NAME" "pid $C busy again"
kill -9 "$C"
wait "$C" 2>/dev/null || true
pass "CPU% follows the process between refreshes"
tui_keys Escape
tui_keys Tab Tab # STR, then PID again
tui_wait 'sort: PID' "back to the PID sort"

# ---- the symbol picker: an exact match wins --------------------------------------
tui_pick "$NAME" "$A"
tui_keys 2
tui_wait 'pick a function' "the symbol picker"
tui_type nanosleep
tui_wait '^  0x[0-9a-f]+ +[0-9]+ nanosleep ' "nanosleep listed"
FIRST=$(awk 'NR == 4 {print $3}' "$TMP/screen")
[ "$FIRST" != nanosleep ] ||
  fail "the first row is nanosleep itself: this libc gives no other 'nanosleep' match first"
tui_keys Enter
tui_wait "— 2 assembly & functions: nanosleep " "the trace of nanosleep (not $FIRST)"
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$A"
pass "symbol picker: the exact name beats the first match ($FIRST)"

tui_quit
echo PASS
