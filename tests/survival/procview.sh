# procview.sh — /proc views of a target's threads, sourced by the survival
# matrix (survive.sh) and by the tests that check a target after a session
# (tests/e2e/test_trace_held_lock.sh, test_stop_detach.sh). Nothing here
# starts or signals anything. progress() reads PROGRESS_WAIT (seconds,
# default 5): a bound that turns a frozen thread into a failure.
PROGRESS_WAIT=${PROGRESS_WAIT:-5}

# state letter of a pid or tid (R S D T t Z X), or "gone"
state_of() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo gone; return; }
  s=${s##*) }
  echo "${s%% *}"
}
tracer_of() { awk '/^TracerPid:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo gone; }
# every thread as tid:state:tracerpid, one line, from one read of every
# task's status (a thread that exits meanwhile is left out: threads come and
# go in a JVM)
threads_view() {
  cat /proc/"$1"/task/*/status 2>/dev/null |
    awk '/^State:/ {s = $2} /^Pid:/ {p = $2} /^TracerPid:/ {printf "%s%s:%s:%s", sep, p, s, $2; sep = " "}'
  echo
}
# every thread as tid:state:tracerpid:wchan (where it sleeps in the kernel)
threads_wchan() {
  local x out=""
  for x in $(threads_view "$1"); do
    out="$out $x:$(cat "/proc/$1/task/${x%%:*}/wchan" 2>/dev/null)"
  done
  echo "${out# }"
}
# first bad thread in a threads_view: traced (TracerPid != 0)
any_traced() { local x; for x in $1; do [ "${x##*:}" = 0 ] || { echo "$x"; return 0; }; done; return 1; }
# first thread whose state letter is in the set $2 (e.g. "Tt" or "RSDt")
any_state() { local x s; for x in $1; do s=${x#*:}; s=${s%%:*}; case "$2" in *"$s"*) echo "$x"; return 0;; esac; done; return 1; }
# per-thread cumulative run time (ns), "tid:ns ..."
runtimes() {
  grep -s -H '' /proc/"$1"/task/*/schedstat | sed 's|^/proc/[0-9]*/task/\([0-9]*\)/schedstat:\([0-9]*\) .*|\1:\2|' | tr '\n' ' '
}
# progress PID all|any: wait (bounded) until every (all) or some (any)
# thread present at the start has run more; prints what did not.
progress() {
  local pid=$1 how=$2 t0 t1 x tid ns i=0 stuck
  t0=$(runtimes "$pid")
  while :; do
    sleep 0.05
    [ -d "/proc/$pid" ] || { echo "process gone"; return 1; }
    t1=" $(runtimes "$pid") "
    stuck=""
    local moved=0
    for x in $t0; do
      tid=${x%%:*}; ns=${x#*:}
      case "$t1" in
        *" $tid:$ns "*) stuck="$stuck $tid";;
        *" $tid:"*) moved=1;;
        *) ;;   # the thread exited: not a freeze
      esac
    done
    if [ "$how" = any ]; then [ $moved = 1 ] && return 0; else [ -z "$stuck" ] && return 0; fi
    i=$((i + 1))
    [ $i -ge $((PROGRESS_WAIT * 20)) ] && break
  done
  echo "no progress in ${PROGRESS_WAIT}s:${stuck:- any thread} (run ns: $t0)"
  return 1
}
