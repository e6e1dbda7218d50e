#!/bin/sh
# test_tui_modes2: the TUI modes that work on any Linux box, driven in tmux,
# each screen checked at 120x40 and again at 80x24 (key content visible):
#   7 hot edges: the first usable rung of the sampler ladder (named in the
#     bar), rows from victim_loop (main calls work forever, no sleeping);
#     Enter on a row in work drills into 9 data flow of work;
#   9 data flow (from the symbol picker too): opens at its top, the
#     capture's header and step #0 visible;
#   watch (the data watchpoint mode, its key read from the menu): the prompt
#     completes `watc` to `watched` with Tab, refuses a function, ESC steps
#     back; width 8, writes: hits on victim_watch's global from set_watched;
#   6 process tree: Tab switches to --count=calls; back, another process:
#     it starts again in --count=syscalls.
# After every view the victims run on, not stopped, TracerPid 0.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

"$ASMSPY" --backends >"$TMP/backends"
usable() { awk -v n="$1" '$2 == n && $4 == "usable"' "$TMP/backends" | grep -q .; }

# at80 REGEX WHAT NAME: the same screen at 80x24 must still show REGEX (saved
# as NAME-80x24); then back to 120x40 (a resize redraws: KEY_RESIZE)
at80() {
  tmux_ resize-window -t tui -x 80 -y 24
  tui_wait "$1" "$2 at 80x24"
  tui_save "$3-80x24"
  tmux_ resize-window -t tui -x 120 -y 40
}

# tui_wait_quiet REGEX TRIES: tui_wait without failing (1 when it never
# showed in TRIES polls)
tui_wait_quiet() {
  local i=0
  while [ $i -lt "$2" ]; do
    tui_screen >"$TMP/screen" 2>/dev/null || true
    grep -Eq -- "$1" "$TMP/screen" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# the first model line, counted from 0, matching a row whose destination
# (after "->", else the row itself) is in work [victim_loop]
work_row() {
  awk 'NR > 1 { d = $0; i = index(d, "->"); if (i) d = substr(d, i + 2)
               if (d ~ /(^|[ ])work(\+0x[0-9a-f]+)? \[victim_loop\]/) { print NR - 2; exit } }' "$TMP/screen"
}

tui_victim victim_loop 0
V=$VICTIM_PID
tui_victim victim_loop 100000
T=$VICTIM_PID
tui_victim victim_loop
U=$VICTIM_PID
tui_start
tui_pick victim_loop "$V"

# ---- 7 hot edges on the ladder ------------------------------------------------------
rung=""
for pair in ibs:amd_ibs lbr:amd_lbr sw:swclock ptrace:ptsampler; do
  if usable "${pair#*:}"; then rung=$pair; break; fi
done
if [ -z "$rung" ]; then
  echo "note: no sampler rung usable here: mode 7 not tested" >&2
else
  backend=${rung#*:}
  tui_wait "^ 7  hot edges \\(sampler\\) +sample +$backend +ready" "mode 7 ready on $backend"
  tui_keys 7
  tui_wait "$backend \\(rung ${rung%%:*}\\)" "the bar naming the rung"
  case ${rung%%:*} in
    ibs|lbr)
      tui_wait '^statistical hot edges \(' "the hot-edge table"
      tui_wait '\[victim_loop\] +-> .*\[victim_loop\]' "an edge inside victim_loop";;
    sw)
      tui_wait '^statistical call edges \(' "the call-edge table"
      tui_wait '^sampled call stacks, not branches' "its honesty line"
      tui_wait '^ +[0-9]+  main\+0x[0-9a-f]+ \[victim_loop\] +-> work \[victim_loop\]$' "main -> work";;
    *)
      tui_wait '^statistical residency \(ptrace' "the residency table"
      tui_wait '^ +[0-9]+  work \[victim_loop\]' "work's residency";;
  esac
  tui_save sample
  at80 "$backend \\(rung ${rung%%:*}\\)" "the rung in the bar" sample
  at80 "work(\\+0x[0-9a-f]+)? \\[victim_loop\\]" "a row in work" sample
  tui_wait "work(\\+0x[0-9a-f]+)? \\[victim_loop\\]" "the rows at 120x40 again"
  # freeze the frame, then walk the cursor down to a row in work
  tui_keys Space
  tui_wait '\[PAUSED' "the frame frozen"
  tui_screen >"$TMP/screen"
  row=$(work_row)
  [ -n "$row" ] || { cat "$TMP/screen" >&2; fail "no row in work on the frozen frame"; }
  i=0
  while [ "$i" -lt "$row" ]; do tui_keys Down; i=$((i + 1)); done
  tui_wait "\\[PAUSED $((row + 1))/" "the cursor on row $row"
  tui_keys Enter
  tui_wait '— 9 data flow: work ' "Enter: data flow of work"
  tui_wait '^data flow — work @ 0x[0-9a-f]+ of pid' "the capture's header"
  tui_wait '^#0 +\+0x0 ' "step #0 at the top"
  tui_save sample-drill
  at80 '^#0 +\+0x0 ' "step #0" sample-drill
  tui_keys b
  tui_wait '^ 1  syscall log' "b: the modes"
  assert_untraced "$V"
  pass "7 hot edges on rung ${rung%%:*} ($backend): rows of victim_loop; Enter on row $row drilled into 9 data flow of work"
fi

# ---- 9 data flow from the symbol picker: opens at its top -------------------------
tui_keys 9
tui_wait 'pick a function' "the symbol picker"
tui_type work
tui_wait '^  0x[0-9a-f]+ +[0-9]+ work +\[victim_loop\]' "work listed"
tui_keys Enter
tui_wait '^data flow — work @ 0x[0-9a-f]+ of pid' "the capture's header (at the top)"
tui_wait '^#0 +\+0x0 ' "step #0"
steps=$(grep -oE '[0-9]+ steps' "$TMP/screen" | head -1 | cut -d' ' -f1)
[ "${steps:-0}" -gt 30 ] || fail "work's capture has only ${steps:-?} steps: the top-of-view check needs more than the screen holds"
tui_save dataflow-top
at80 '^data flow — work @ 0x' "the capture's header" dataflow-top
tui_wait '^#0 +\+0x0 ' "step #0 at 120x40 again"
# the walk keys are unchanged: Down moves the selection onto step #0 (below
# the capture's note and header lines), the status shows its first read
i=0
while [ $i -lt 4 ]; do
  tui_keys Down
  i=$((i + 1))
  tui_wait_quiet 'step #0 read 1/' 20 && break
done
tui_wait 'step #0 read 1/' "Down: step #0 selected, its first read"
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$V"
pass "9 data flow opens at its top: header and #0 visible ($steps steps), at 80x24 too"

# ---- 6 process tree: a new target starts in --count=syscalls ----------------------
# (victims that make syscalls: a frame is drawn once something was counted)
tui_keys q
tui_pick victim_loop "$T"
tui_keys 6
tui_wait "inv counts syscalls \\(pid $T" "the topology counting syscalls"
tui_wait "procs --count=syscalls" "the bar: --count=syscalls"
tui_keys Tab
tui_wait "inv counts calls \\(pid $T" "Tab: counting calls"
tui_wait "procs --count=calls" "the bar: --count=calls"
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
tui_keys q
tui_pick victim_loop "$U"
tui_keys 6
tui_wait "inv counts syscalls \\(pid $U" "another process: back to syscalls"
tui_wait "^node $U \\[victim_loop\\]" "its node"
tui_save procs-reset
at80 "inv counts syscalls \\(pid $U" "the count mode" procs-reset
tui_keys b
tui_wait '^ 1  syscall log' "b: the modes"
assert_untraced "$T"
assert_untraced "$U"
pass "6 process tree: Tab -> calls on pid $T; pid $U starts in syscalls again"
tui_quit

# ---- the data watchpoint mode ---------------------------------------------------
if ! usable hwwatch; then
  skip "hwwatch unusable here (no debug registers): $(awk '$2 == "hwwatch"' "$TMP/backends")"
fi
tui_victim victim_watch
W=$VICTIM_PID
tui_start
tui_pick victim_watch "$W"
key=$(sed -nE 's/^ ([a-z])  data watchpoints +watch +hwwatch +ready \(pick an address\).*/\1/p' "$TMP/screen")
[ -n "$key" ] || { cat "$TMP/screen" >&2; fail "no ready data watchpoint mode in the menu"; }
tui_keys "$key"
tui_wait '^ address: _' "the address prompt"
tui_wait '^  0x[0-9a-f]+ +8 watched +\[victim_watch\]' "the victim's data symbols listed"
tui_save watch-prompt
at80 '^  0x[0-9a-f]+ +8 watched +\[victim_watch\]' "the data symbols" watch-prompt
# a function is refused with the resolver's reason
tui_type bump_counter
tui_keys Enter
tui_wait 'bump_counter is a function, not data' "a function refused"
tui_keys Escape
tui_wait '^ address: _' "ESC clears the input"
tui_type watc
tui_keys Tab
tui_wait '^ address: watched_' "Tab completes watc -> watched"
tui_keys Enter
tui_wait '^ watch watched = 0x[0-9a-f]+ \(8 bytes from there\)' "step 2: resolved"
tui_wait 'Enter: 8, as --watch picks it' "the default width"
tui_keys Escape
tui_wait '^ address: watched_' "ESC: back to the address"
tui_keys Enter
tui_wait 'step 2 of 3' "step 2 again"
tui_keys 8
tui_wait '^ access: w  writes only' "step 3: the access"
tui_keys Enter
tui_wait "— $key data watchpoints: watched \\(8 bytes, writes\\)" "the watch running"
tui_wait '^\[[0-9]+\] set_watched\+0x[0-9a-f]+ \[victim_watch\] +mov .* [0-9]+ -> [0-9]+$' "a hit from set_watched"
hits=$(grep -cE '^\[[0-9]+\] set_watched\+0x[0-9a-f]+ \[victim_watch\]' "$TMP/screen")
tui_save watch-hits
at80 '^\[[0-9]+\] set_watched\+0x[0-9a-f]+ \[victim_watch\]' "the hits" watch-hits
tui_keys q
tui_wait 'pick a process' "q: the process list"
assert_untraced "$W"
pass "watch: prompt (Tab completion, a function refused, ESC back), then $hits+ hits on watched from set_watched"
tui_quit
