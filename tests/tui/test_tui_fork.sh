#!/bin/sh
# test_tui_fork: mode 6 (process/thread topology) on a shell forking
# /bin/true as fast as it can, driven in tmux (issue 12).
#
# The TUI used to stick on "detaching ..." when mode 6 was left: the detach
# waited forever for a forked child that had already exited, the UI thread
# waited for the detach, so no key and no SIGTERM was served and the target
# stayed frozen until the tracer was SIGKILLed. Now:
#   - b leaves mode 6 for the mode list within a bounded number of polls,
#     then q; the shell runs on, not stopped, TracerPid 0 (several trials:
#     the hang depended on where the fork/exit race stood at the detach),
#     and once more from the call-counting tree (Tab: single-stepping);
#   - SIGTERM to asmspy during such a session ends it promptly (exit 0,
#     terminal restored) and the shell runs on untraced.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

# A TUI stuck detaching (the regression) would outlive the test: its tracer
# holds the shell's last child in a ptrace stop, and that child holds the
# test's output open. On the way out, SIGKILL the tracer child of an asmspy
# that is still there: the kernel then detaches its tracees.
kill_stuck_tui() {
  [ -n "${TUI_PID:-}" ] && [ -r "/proc/$TUI_PID/task/$TUI_PID/children" ] || return 0
  for t in $(cat "/proc/$TUI_PID/task/$TUI_PID/children"); do
    case "$(cat "/proc/$t/comm" 2>/dev/null)" in asmspy*) kill -9 "$t" 2>/dev/null;; esac
  done
  return 0
}
trap 'kill_stuck_tui; tui_cleanup; cleanup' EXIT

bash -c 'while :; do /bin/true; done' &
S=$!
VICTIM_PIDS="$VICTIM_PIDS $S"
i=0
while [ "$(cat /proc/$S/comm 2>/dev/null)" != bash ] && [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done

# polls for leaving mode 6 (x 0.1 s): a bounded detach takes a fraction of
# a second; the hang never ended
BACK_TRIES=${BACK_TRIES:-100}

# rows of the process tree of $S: its node line, and a forked child's
mode6_rows() {
  tui_keys 6
  tui_wait "node $S \[bash\]" "the process tree of pid $S"
  tui_wait 'node [0-9]+ \[(true|bash)\].*(exited|gone)|node [0-9]+ \[true\]' "a forked child in the tree"
}

TRIALS=${TRIALS:-3}
tui_start
tui_pick bash "$S"
n=0
while [ $n -lt "$TRIALS" ]; do
  n=$((n + 1))
  mode6_rows
  tui_keys b
  TUI_TRIES=$BACK_TRIES tui_wait '^ 1  syscall log' "the mode list after b (trial $n; stuck detaching?)"
  grep -q 'detaching' "$TMP/screen" && fail "trial $n: the mode list still says detaching"
  kill -0 "$TUI_PID" 2>/dev/null || fail "asmspy died leaving mode 6"
  assert_untraced "$S"
done
# Tab: the same tree counting calls (a single-stepping session following
# the forks); leaving it detaches stepped children too
mode6_rows
tui_keys Tab
tui_wait "inv counts calls \\(pid $S, [1-9][0-9]* counted\\)" "the call-counting tree of pid $S"
tui_keys b
TUI_TRIES=$BACK_TRIES tui_wait '^ 1  syscall log' "the mode list after b from the call-counting tree"
assert_untraced "$S"
tui_keys q
tui_wait 'pick a process' "the process list after q"
tui_keys Escape
tui_wait 'filter: _' "an empty filter"
tui_keys q
st=$(tui_exit_status)
[ "$st" = 0 ] || fail "asmspy exited $st"
assert_untraced "$S"
pass "mode 6 on a forking shell: b returns to the mode list ($TRIALS trials, and counting calls), q quits; the shell runs untraced"

# SIGTERM while mode 6 follows the forks: a prompt, clean exit
tui_start
tui_pick bash "$S"
mode6_rows
kill -TERM "$TUI_PID"
i=0
while [ ! -s "$TMP/tui.exit" ] && [ $i -lt "$BACK_TRIES" ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TMP/tui.exit" ] || fail "asmspy did not exit within $BACK_TRIES polls of SIGTERM in mode 6"
st=$(tui_exit_status)
[ "$st" = 0 ] || fail "asmspy exited $st on SIGTERM"
[ "$(tmux_ display-message -p -t tui '#{alternate_on}')" = 0 ] || fail "alternate screen left on after SIGTERM"
assert_untraced "$S"
pass "SIGTERM in mode 6 on a forking shell: exit 0 within $i polls, terminal restored, the shell runs untraced"
