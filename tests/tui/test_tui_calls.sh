#!/bin/sh
# test_tui_calls: the call log (a call backend's mode) in the TUI, driven in
# tmux: pick victim_loop, its menu key for `calls`, and the uftrace-style
# log appears (`work() {`, `helper();` nested under it, durations); q
# leaves: the victim keeps running, untraced, and its code equals its ELF
# again (every patched entry put back).
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

"$ASMSPY" --backends 2>&1 | awk '$2 == "entrypatch"' | grep -q usable ||
  skip "the entrypatch backend is not usable here: the calls mode has no backend"
tui_victim victim_loop
L=$VICTIM_PID
# the calls mode's key, as the menu assigns it (host-assigned: read it)
KEY=$("$TUI_MENU_DUMP" "$L" 2>/dev/null | awk '$3 == "calls" {print $1}')
[ -n "$KEY" ] || fail "no calls mode in the TUI menu"
tui_start
tui_pick victim_loop "$L"
tui_keys "$KEY"
tui_wait '\| work\(\) \{' "a work() { line"
tui_wait 'us \[ *[0-9]+\] \|   helper\(\);' "helper(); nested under work, with its duration"
tui_save calls
pass "$KEY call log: work() { / helper(); nested, durations"
tui_keys q
tui_wait 'pick a process' "q: back to the process list"
assert_untraced "$L"
python3 "$ASMSPY_SOURCE_ROOT/tests/calls/code_equals_elf.py" "$L" || fail "victim_loop's code was not restored"
pass "q left victim_loop running, untraced, its code equal to the ELF"
