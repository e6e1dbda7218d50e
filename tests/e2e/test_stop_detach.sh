#!/bin/bash
# A target SIGSTOPped during a session is stopped after asmspy leaves, and
# SIGCONT resumes it computing right (issue 24; strace and gdb behave so).
#
# victim_lockstep: four threads call lock_fn (a callee takes a mutex) and
# keep a checksum the main thread verifies every 10 ms (it exits 3 when it
# breaks). For each mode, REPS times: start an unbounded session, wait for
# its first output, SIGSTOP the target, Ctrl-C the session (SIGINT to its
# process group), then:
#   - every thread is 'T' (group-stopped) and untraced (TracerPid 0): none
#     left running ("running") or traced ("traced");
#   - SIGCONT: the target is alive ("death": before the fix, a SIGTRAP of
#     asmspy's left queued in a group-stopped thread killed it here) and
#     every thread makes progress ("frozen"); its checksum holds (a broken
#     one is a death with status 3).
# Modes: stream (--stream -1), trace (--trace lock_fn -1), watch (--watch
# lock_total -1, where the hwwatch probe says debug registers fire here),
# log (--log -1), dataflow (--dataflow lock_fn --continuous); and each of
# them once more on a target SIGSTOPped BEFORE the session (prestopped): it
# must end as it began, every thread 'T'.
# Counts bound the work; timeouts only turn a hang into a failure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../survival/proc_lib.sh"
require_backend singlestep

REPS=${REPS:-10}
MODES=${MODES:-"stream trace watch log dataflow"}
SESSION_TIMEOUT=${SESSION_TIMEOUT:-30}
FIRST_WAIT=${FIRST_WAIT:-10}
set +e # counted below, never the first failing command

hw=$("$ASMSPY" --backends | awk '$2 == "hwwatch"')

TARGET=""
new_target() {
  [ -n "$TARGET" ] && { kill -CONT "$TARGET"; kill -KILL "$TARGET"; wait "$TARGET"; } 2>/dev/null
  start_victim victim_lockstep
  TARGET=$VICTIM_PID
}

# settled: wait (bounded, 3 s) until every thread is untraced and 'T'
# (group-stopped); 0 when that happened
settled() {
  local i=0 v
  while [ $i -lt 60 ]; do
    v=$(threads_view "$TARGET")
    ! any_traced "$v" >/dev/null && ! any_state "$v" "RSDtZX" >/dev/null && return 0
    sleep 0.05; i=$((i + 1))
  done
  return 1
}

stop_all() { # SIGSTOP the target; bounded wait until no thread runs
  kill -STOP "$TARGET"
  local i=0
  while any_state "$(threads_view "$TARGET")" RSD >/dev/null && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
}

declare -A CNT
total_fail=0
count() { CNT[$1/$2]=$(( ${CNT[$1/$2]:-0} + 1 )); }

# one MODE PRESTOPPED REP
one() {
  local mode=$1 pre=$2 rep=$3 args first_re first_n=5 out err rc cats=""
  out="$TMP/$mode.$pre.$rep.out"; err="$TMP/$mode.$pre.$rep.err"
  case "$mode" in
    stream) args=(--stream "$TARGET" -1); first_re='.';;
    trace) args=(--trace "$TARGET" lock_fn -1); first_re='^sample #'; first_n=1;;
    watch) args=(--watch "$TARGET" lock_total -1); first_re=' -> '; first_n=3;;
    log) args=(--log "$TARGET" -1); first_re='.';;
    dataflow) args=(--dataflow "$TARGET" lock_fn --continuous); first_re='.'; first_n=3;;
  esac
  [ "$pre" = 1 ] && stop_all
  # timeout(1) runs asmspy in a process group of its own: Ctrl-C is a
  # SIGINT to that group, as a terminal sends it
  timeout -k 5 -s INT "$SESSION_TIMEOUT" "$ASMSPY" "${args[@]}" >"$out" 2>"$err" &
  local to=$! i=0
  if [ "$pre" = 1 ]; then
    # a stopped target produces nothing: let the session settle in
    while [ $i -lt 20 ] && [ "$(tracer_of "$TARGET")" = 0 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 0.5
  else
    local n=0
    while [ $i -lt $((FIRST_WAIT * 20)) ] && [ "${n:-0}" -lt "$first_n" ] && kill -0 "$to" 2>/dev/null; do
      sleep 0.05; i=$((i + 1)); n=$(grep -cE "$first_re" "$out" 2>/dev/null)
    done
    stop_all
    sleep 0.3
  fi
  kill -INT -- "-$to" 2>/dev/null
  wait "$to"; rc=$?
  case $rc in 0|130) ;; 124|137) cats="$cats hang";; *) cats="$cats error";; esac
  local view="" st
  if settled; then :; else
    view=$(threads_view "$TARGET")
    if any_traced "$view" >/dev/null; then cats="$cats traced"; fi
    if any_state "$view" RSD >/dev/null; then cats="$cats running"; fi
  fi
  kill -CONT "$TARGET"
  sleep 0.2
  st=$(state_of "$TARGET")
  if [ "$st" = Z ] || [ "$st" = gone ]; then
    wait "$TARGET"; local ws=$?
    cats="$cats death"
    view="$view; died with status $ws ($( [ $ws -gt 128 ] && kill -l $((ws - 128)) ); $(tail -n1 "$TMP/victim_lockstep.err"))"
  elif ! p=$(progress "$TARGET" all); then
    cats="$cats frozen"; view="$view; after SIGCONT: $p"
  fi
  local cell="$mode$([ "$pre" = 1 ] && echo -prestopped)"
  count "$cell" runs
  if [ -n "$cats" ]; then
    total_fail=$((total_fail + 1))
    for c in $cats; do count "$cell" "$c"; done
    echo "FAIL [${cats# }] $cell #$rep: asmspy ${args[*]} (exit $rc) — $view; stderr: $(tail -n2 "$err" | tr '\n' ' ' | cut -c1-300)"
    new_target
  else
    echo "ok   $cell #$rep"
  fi
}

new_target
cells=""
for mode in $MODES; do
  if [ "$mode" = watch ]; then
    case "$hw" in *" usable "*) ;; *) echo "SKIP watch: $hw"; continue;; esac
  fi
  for pre in 0 1; do
    cells="$cells $mode$([ "$pre" = 1 ] && echo -prestopped)"
    for rep in $(seq 1 "$REPS"); do one "$mode" "$pre" "$rep"; done
  done
done

printf '%-20s %5s %6s %8s %7s %7s %5s %6s\n' cell runs deaths running traced frozen hangs errors
for c in $cells; do
  printf '%-20s %5s %6s %8s %7s %7s %5s %6s\n' "$c" "${CNT[$c/runs]:-0}" "${CNT[$c/death]:-0}" \
    "${CNT[$c/running]:-0}" "${CNT[$c/traced]:-0}" "${CNT[$c/frozen]:-0}" "${CNT[$c/hang]:-0}" \
    "${CNT[$c/error]:-0}"
done
[ "$total_fail" = 0 ] || fail "$total_fail session(s) left the SIGSTOPped target other than stopped, untraced and resumable"
pass "every session: SIGSTOPped target left stopped (T) and untraced in every thread; SIGCONT resumed it, checksum intact"
