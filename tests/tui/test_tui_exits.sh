#!/bin/sh
# test_tui_exits: the exit paths, driven in tmux.
#   - the target dies (SIGKILL) while streamed: the TUI survives, says the
#     capture ended, and its history stays readable (pause, scroll);
#   - SIGTERM to asmspy while it single-steps a target: it detaches (the
#     target runs on, not stopped, TracerPid 0), restores the terminal
#     (no alternate screen) and exits 0;
#   - SIGINT while it logs syscalls: the same;
#   - SIGKILL of asmspy while it single-steps a target: the TUI runs in a
#     supervised child (PR_SET_PDEATHSIG), which detaches and restores the
#     terminal; the target survives untraced;
#   - Ctrl-C (a key: the TUI runs in raw mode) quits from the picker.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

# ---- the target dies mid-stream ------------------------------------------------
tui_victim victim_loop
A=$VICTIM_PID
tui_victim victim_loop
B=$VICTIM_PID
tui_start
tui_pick victim_loop "$A"
tui_keys 3
tui_wait '^(work|helper|main|usleep)[^ ]*\+0x[0-9a-f]+ +\[' "the stream of pid $A"
kill -9 "$A"
tui_wait '\[LIVE\] ended|# capture ended' "the capture ends with the target"
tui_wait '# capture ended' "the end in the feed"
tui_keys Up
tui_wait '\[PAUSED [0-9]+/[0-9]+\]' "the history after the target died"
tui_keys PPage
tui_wait '\[PAUSED [0-9]+/[0-9]+\]' "scrolling the history"
tui_save target_died
pass "the target died: the TUI survives, the history stays readable"

# assert_clean_signal_exit SIG: signal the TUI; it exits 0, leaves the
# alternate screen, and pid $B runs untraced.
assert_clean_signal_exit() {
  kill -"$1" "$TUI_PID"
  local st
  st=$(tui_exit_status)
  [ "$st" = 0 ] || fail "asmspy exited $st on SIG$1"
  [ "$(tmux_ display-message -p -t tui '#{alternate_on}')" = 0 ] || fail "alternate screen left on after SIG$1"
  assert_untraced "$B"
}

# ---- SIGTERM while single-stepping --------------------------------------------------
tui_keys q
tui_wait 'pick a process' "the process list"
tui_pick victim_loop "$B"
tui_keys 5
tui_wait '^ *-> ' "the call tree of pid $B"
assert_clean_signal_exit TERM
pass "SIGTERM mid-step: exit 0, terminal restored, pid $B runs untraced"

# ---- SIGINT while logging syscalls ----------------------------------------------------
tui_start
tui_pick victim_loop "$B"
tui_keys 1
tui_wait '^clock_nanosleep\(' "the syscall log of pid $B"
assert_clean_signal_exit INT
pass "SIGINT mid-log: exit 0, terminal restored, pid $B runs untraced"

# ---- SIGKILL of asmspy while single-stepping ------------------------------------------
tui_start
tui_pick victim_loop "$B"
tui_keys 3
tui_wait '^(work|helper|main|usleep|nanosleep|clock_nanosleep)[^ ]*\+0x[0-9a-f]+ +\[' "the stream of pid $B"
kill -KILL "$TUI_PID"
st=$(tui_exit_status)
[ "$st" = 137 ] || fail "the killed asmspy reported $st, want 137"
i=0
while [ -r "/proc/$B/status" ] && [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$B/status")" != 0 ] &&
      [ $i -lt 100 ]; do
  sleep 0.05; i=$((i + 1))
done
kill -0 "$B" 2>/dev/null || fail "pid $B died with the SIGKILLed asmspy (stepped target left with TF set)"
assert_untraced "$B"
i=0
while [ "$(tmux_ display-message -p -t tui '#{alternate_on}')" != 0 ] && [ $i -lt 100 ]; do
  sleep 0.05; i=$((i + 1))
done
[ "$(tmux_ display-message -p -t tui '#{alternate_on}')" = 0 ] || fail "alternate screen left on after SIGKILL"
pass "SIGKILL of asmspy mid-step: the supervised TUI detached, pid $B runs untraced, terminal restored"

# ---- Ctrl-C as a key --------------------------------------------------------------------
tui_start
tui_wait 'pick a process' "the process picker"
tui_keys C-c
st=$(tui_exit_status)
[ "$st" = 0 ] || fail "asmspy exited $st on Ctrl-C"
pass "Ctrl-C quits"
echo PASS
