# Shared helpers for the TUI tests (sourced after tests/e2e/lib.sh, which
# gives fail/pass/skip, start_victim, assert_runs, $TMP and its cleanup).
# The real binary runs in a private tmux server, 120x40 unless TUI_COLS /
# TUI_ROWS say otherwise; the tests type into it with send-keys and read it
# back with capture-pane, polling a bounded number of times rather than
# sleeping a fixed time.
#   TUI_SAVE_SCREENS=<dir>  also keep every screen tui_save names (fixtures)

command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (apt-get install tmux)"

TUI_RUN=0 # one tmux server per tui_start: a new server on a socket whose
           # old server is still shutting down can die with it
TUI_SOCK="asmspy-tui-$$-0"
TUI_TRIES=${TUI_TRIES:-400} # x 0.1 s: the bound for one expected screen
tmux_() { tmux -L "$TUI_SOCK" -f /dev/null "$@"; }

tui_cleanup() {
  tmux_ kill-server 2>/dev/null || true
}
trap 'tui_cleanup; cleanup' EXIT

# tui_victim NAME [ARGS...]: start_victim with an output file of its own per
# call (lib.sh's is per name, so a second victim of the same name could read
# the first one's pid before its own redirect truncated the file).
TUI_NVICTIMS=0
tui_victim() {
  local name=$1; shift
  TUI_NVICTIMS=$((TUI_NVICTIMS + 1))
  local out="$TMP/victim.$TUI_NVICTIMS.out"
  "$VICTIM_DIR/$name" "$@" >"$out" 2>"$TMP/victim.$TUI_NVICTIMS.err" &
  local bg=$! i=0
  VICTIM_PIDS="$VICTIM_PIDS $bg"
  while [ ! -s "$out" ] && [ $i -lt 1500 ]; do sleep 0.01; i=$((i + 1)); done
  VICTIM_PID=$(head -n1 "$out")
  [ "$VICTIM_PID" = "$bg" ] || fail "victim $name did not report its pid (got '$VICTIM_PID', bg $bg)"
}

# tui_start [ENV=VALUE...]: run asmspy (no arguments) in a fresh pane of
# ${TUI_COLS:-120}x${TUI_ROWS:-40}.
# The pane's shell runs it as a child and records its exit status in
# $TMP/tui.exit (tmux's own #{pane_dead_status} races the pane's EOF), then
# stays, so the test can read the restored screen. TUI_PID is asmspy's pid.
tui_start() {
  tui_cleanup
  TUI_RUN=$((TUI_RUN + 1))
  TUI_SOCK="asmspy-tui-$$-$TUI_RUN"
  rm -f "$TMP/tui.exit"
  tmux_ new-session -d -x "${TUI_COLS:-120}" -y "${TUI_ROWS:-40}" -s tui \
    "env $* LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen '$ASMSPY' 2>'$TMP/tui.err'; echo \$? > '$TMP/tui.exit'; exec sleep 3600"
  local sh i=0
  sh=$(tmux_ display-message -p -t tui '#{pane_pid}')
  TUI_PID=
  while [ -z "$TUI_PID" ] && [ $i -lt 100 ]; do
    TUI_PID=$(cat "/proc/$sh/task/$sh/children" 2>/dev/null | awk '{print $1}')
    [ -n "$TUI_PID" ] || sleep 0.05
    i=$((i + 1))
  done
  [ -n "$TUI_PID" ] || fail "the TUI did not start"
}

tui_screen() { tmux_ capture-pane -p -t tui; }
tui_keys() { tmux_ send-keys -t tui "$@"; }
tui_type() { tmux_ send-keys -t tui -l "$1"; }

# tui_wait REGEX [what]: poll until the screen matches (grep -E), else fail
# showing the last screen.
tui_wait() {
  local i=0
  while [ $i -lt "$TUI_TRIES" ]; do
    tui_screen >"$TMP/screen" 2>/dev/null || true
    if grep -Eq -- "$1" "$TMP/screen"; then return 0; fi
    sleep 0.1
    i=$((i + 1))
  done
  echo "---- last screen ----" >&2
  cat "$TMP/screen" >&2
  fail "timed out waiting for ${2:-/$1/} on the TUI screen"
}

# tui_wait_not REGEX: poll until the screen no longer matches.
tui_wait_not() {
  local i=0
  while [ $i -lt "$TUI_TRIES" ]; do
    tui_screen >"$TMP/screen" 2>/dev/null || true
    grep -Eq -- "$1" "$TMP/screen" || return 0
    sleep 0.1
    i=$((i + 1))
  done
  cat "$TMP/screen" >&2
  fail "the screen still shows /$1/"
}

# tui_save NAME: keep the current screen as $TMP/NAME.txt (and in
# $TUI_SAVE_SCREENS when set: how tests/tui/fixtures were made). NAME may
# have a directory part (80x24/modes).
tui_save() {
  mkdir -p "$(dirname "$TMP/$1.txt")"
  tui_screen >"$TMP/$1.txt"
  if [ -n "${TUI_SAVE_SCREENS:-}" ]; then
    mkdir -p "$(dirname "$TUI_SAVE_SCREENS/$1.txt")"
    cp "$TMP/$1.txt" "$TUI_SAVE_SCREENS/$1.txt"
  fi
}

# tui_resize COLS ROWS: the pane's new size (the TUI redraws on KEY_RESIZE).
tui_resize() { tmux_ resize-window -t tui -x "$1" -y "$2"; }

# tui_pick NAME PID: type the process's name into the picker's filter, see
# it listed, narrow to its pid (another test's victim may share the name),
# select it and wait for the mode screen.
tui_pick() {
  tui_wait 'pick a process' "the process picker"
  tui_keys Escape # an empty filter
  tui_keys F3     # a re-scan: the victim may be younger than the list
  tui_wait 'filter: _' "an empty filter"
  tui_type "$1"
  tui_wait "^ +$2 .*$1" "pid $2 ($1) in the filtered list"
  tui_type " $2"
  tui_wait ' 1 of [0-9]+ *$' "exactly one row for '$1 $2'"
  tui_keys Enter
  tui_wait "pid $2 $1 " "the mode screen of pid $2"
  tui_wait '^ 1  syscall log' "the mode list"
}

# tui_exit_status: asmspy's exit status once it exited (bounded wait).
tui_exit_status() {
  local i=0
  while [ ! -s "$TMP/tui.exit" ] && [ $i -lt "$TUI_TRIES" ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$TMP/tui.exit" ] || fail "asmspy (pid $TUI_PID) did not exit"
  cat "$TMP/tui.exit"
  # what reached the real stderr after the terminal was restored (a
  # sanitizer's report, a last message) goes into the test log
  [ -s "$TMP/tui.err" ] && sed 's/^/asmspy stderr: /' "$TMP/tui.err" >&2
  return 0
}

# tui_quit: from a live view or any screen back to the picker, then q; the
# exit status must be 0 (a sanitizer's error or leak report makes it not).
tui_quit() {
  tui_keys q
  tui_wait 'pick a process' "the process list"
  tui_keys Escape
  tui_wait 'filter: _' "an empty filter"
  tui_keys q
  local st
  st=$(tui_exit_status)
  [ "$st" = 0 ] || fail "asmspy exited $st (see its stderr above)"
  [ "$(tmux_ display-message -p -t tui '#{alternate_on}')" = 0 ] ||
    fail "the terminal is still on the alternate screen after exit"
}

# assert_untraced PID: State is not t/T and TracerPid is 0 (after a detach).
assert_untraced() {
  local st tracer
  st=$(awk '/^State:/ {print $2}' "/proc/$1/status")
  tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$1/status")
  case "$st" in
    t|T) fail "pid $1 is stopped (State $st) after the TUI detached";;
  esac
  [ "$tracer" = 0 ] || fail "pid $1 still has tracer $tracer after the TUI detached"
  assert_runs "$1"
}
