#!/bin/sh
# test_tui_feeds: the two log feeds, driven in tmux.
#   1 syscall log: victim_syscalls' write( lines on the left, the strings a
#     call carried ("hello from the victim") on the right;
#   pause and history: space shows [PAUSED line/total], the arrows and
#     PgUp/Home move through the history, End resumes ([LIVE]);
#   3 live stream: `fn+0x.. [victim_loop]` lines with their disassembly;
#   q detaches: the victims keep running, not stopped, TracerPid 0.
. "$ASMSPY_SOURCE_ROOT/tests/e2e/lib.sh"
. "$ASMSPY_SOURCE_ROOT/tests/tui/tui_lib.sh"

mkdir -p "$TMP/work"
# a long run of the syscall workload (killed by the cleanup)
"$VICTIM_DIR/victim_syscalls" "$TMP/work" "$TMP/expect" 100000000 >/dev/null 2>&1 &
S=$!
VICTIM_PIDS="$VICTIM_PIDS $S"
tui_victim victim_loop
L=$VICTIM_PID

tui_start
tui_pick victim_syscalls "$S"

# ---- 1 syscall log ------------------------------------------------------------
tui_keys 1
# the call keeps its result at the right (the middle of its arguments may
# be elided: the buffer is in full in the carried pane)
tui_wait '^write\(fd=[0-9]+<[^>]*/work/notes\.txt>, "hello from the.*\) = 22 *│' "a write( line with its result"
tui_wait '^write\(fd=.*│ hello from the victim\\n' "its carried string on the right"
tui_save syscall_log
pass "1 syscall log: write( lines and their carried strings"

# ---- pause and history ----------------------------------------------------------
tui_keys Space
tui_wait '\[PAUSED [0-9]+/[0-9]+\]' "[PAUSED line/total]"
TOTAL=$(grep -Eo '\[PAUSED [0-9]+/[0-9]+\]' "$TMP/screen" | sed -E 's/.*\/([0-9]+)\]/\1/')
tui_keys Up
tui_wait "\\[PAUSED [0-9]+/$TOTAL\\]" "a paused feed keeps its total"
tui_keys PPage
tui_keys Home
tui_wait "\\[PAUSED 38/$TOTAL\\]" "Home: the oldest page (its bottom line is row 38)"
tui_save syscall_log_paused
tui_keys End
tui_wait '\[LIVE\] tracing' "End resumes the live tail"
tui_keys Up
tui_wait '\[PAUSED' "moving up pauses"
tui_keys Space
tui_wait '\[LIVE\] tracing' "space resumes"
pass "pause/history: [PAUSED n/$TOTAL], Up/PgUp/Home move, End and space resume"

tui_keys q
tui_wait 'pick a process' "q: back to the process list"
assert_untraced "$S"
pass "q detached from victim_syscalls: running, not stopped, TracerPid 0"

# ---- 3 live stream -------------------------------------------------------------
tui_pick victim_loop "$L"
tui_keys 3
tui_wait '^[a-z_]+\+0x[0-9a-f]+ +\[victim_loop\] +[a-z]' "stream lines in victim_loop"
tui_wait '^(work|helper)\+0x[0-9a-f]+ +\[victim_loop\]' "work/helper in the stream"
tui_save stream
tui_keys Space
tui_wait '\[PAUSED' "the stream pauses"
tui_keys b
tui_wait '^ 1  syscall log' "b: back to the modes"
assert_untraced "$L"
pass "3 live stream: +0x lines with [victim_loop]; b detaches cleanly"
tui_quit
echo PASS
