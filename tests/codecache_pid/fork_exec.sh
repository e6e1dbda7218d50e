#!/bin/bash
# fork_exec.sh — codecache attached to a parent that makes children in a
# loop (cc_fork: harm protocol; a round's children must all exit 0):
#   cc_fork fork    8 forks a round, each child computes and checks child_work
#   cc_fork vfork   8 vfork + execl("/bin/true") a round
# one counted session each (N instructions). Asserted: asmspy ends with its
# count and exit 0 (no crash); the parent keeps being traced across the
# forks (its marker parent_mark, called after every child, shows in the
# parent's thread at least MIN_MARKS times); the program alive and its rounds
# OK after (every child right); no asmspy-codecache mapping left in the
# parent; its code equal to the ELF. Reported: children that still mapped
# the cache (forked copies; a `note children_with_cache_mapping` line of the
# program), listing lines of other processes.
# Environment: N (2000000), MIN_MARKS (16: two rounds). Exit 0 / 1 / 77.
SESSION_TIMEOUT=${SESSION_TIMEOUT:-60} # s: a hang (a session of these counts takes seconds)
. "$(dirname "$0")/cc_lib.sh"
. "$HERE/cc_check.sh"
require_codecache
N=${N:-2000000}
MIN_MARKS=${MIN_MARKS:-16}

forker() { # fork|vfork
  local mode=$1 name=cc_fork_$1
  EV=(); NOTES=()
  start_prog "$name" "$CCPID_DIR/cc_fork" "$mode" || { EV+=("could not start"); SCMD="cc_fork $mode"; S_ERR=/dev/null; verdict "fork_exec/$name"; return; }
  local notes0; notes0=$(grep -c '^note ' "$P_OUT")
  counted_session "$N"
  local marks
  marks=$(awk -v p="$P_PID" '$0 ~ ("^(\\[" p "\\] )?parent_mark\\+0x0 ") {n++} END {print n + 0}' "$S_OUT")
  NOTES+=("parent_mark entered $marks times in the parent's listing; fork/clone events: $(grep -cE '^# \[[0-9]+\] (fork|clone|vfork) -> ' "$S_OUT")")
  [ "$marks" -ge "$MIN_MARKS" ] || EV+=("the parent was traced through $marks children only (parent_mark+0x0 lines; want >= $MIN_MARKS in $N instructions: $(grep -c '^round ' "$P_OUT") rounds so far)")
  local others; others=$(grep -oE '^\[[0-9]+\]' "$S_OUT" | tr -d '[]' | sort -u | while read -r t; do [ -d "/proc/$P_PID/task/$t" ] || echo "$t"; done | wc -l)
  [ "$others" = 0 ] || NOTES+=("$others tid(s) in the listing that are not the parent's threads now (children)")
  after_checks
  local mapped; mapped=$(grep '^note children_with_cache_mapping' "$P_OUT" | tail -n +"$((notes0 + 1))" | sed 's/.*=//' | awk '{s += $1} END {print s + 0}')
  [ "$mapped" = 0 ] || NOTES+=("$mapped forked child(ren) still mapped asmspy-codecache (their copy of the parent's memory)")
  verdict "fork_exec/$name"
  stop_prog
}

forker fork
forker vfork
echo "fork_exec: $PASSED passed, $FAILED failed"
[ $FAILED = 0 ] || exit 1
exit 0
