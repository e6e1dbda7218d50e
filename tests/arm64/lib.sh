# Helpers for the arm64 suite's tests (sourced; busybox sh: no bash-isms).
# Result lines, counted by run_suite.sh:
ok() { echo "ok $1"; }
notok() { n=$1; shift; echo "not ok $n $*"; }
skip() { n=$1; shift; echo "skip $n $*"; }

# need_asmspy <name>: skip it (and end the test) when the payload carries no
# cross-built asmspy
need_asmspy() {
  [ -n "${ASMSPY:-}" ] && return 0
  skip "$1" "no cross-built asmspy in the payload"
  exit 0
}

# start_victim NAME [ARGS...]: start a victim that prints its pid first; set
# VICTIM_PID (empty when it did not report within 500 polls). Every victim
# started is killed by pid when the test's shell exits.
VICTIM_PIDS=
VICTIM_SEQ=0
start_victim() {
  sv_name=$1; shift
  VICTIM_SEQ=$((VICTIM_SEQ + 1))
  sv_out=/tmp/victim.$$.$VICTIM_SEQ.out
  rm -f "$sv_out"
  "$VICTIMS/$sv_name" "$@" >"$sv_out" 2>/dev/null &
  sv_bg=$!
  VICTIM_PIDS="$VICTIM_PIDS $sv_bg"
  sv_i=0
  while [ ! -s "$sv_out" ] && [ $sv_i -lt 500 ]; do sleep 0.01; sv_i=$((sv_i + 1)); done
  VICTIM_PID=$(head -n1 "$sv_out")
  [ "$VICTIM_PID" = "$sv_bg" ] || VICTIM_PID=
}
stop_victims() { for p in $VICTIM_PIDS; do kill -9 "$p" 2>/dev/null; done; }
trap stop_victims EXIT

# runs_untraced PID: prints nothing when PID is alive, not stopped, and has
# no tracer; otherwise the reason (for a not-ok line)
runs_untraced() {
  [ -r "/proc/$1/stat" ] || { echo "pid $1 is gone"; return; }
  ru_st=$(sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1)
  case $ru_st in R | S | D) ;; *) echo "pid $1 in state $ru_st"; return ;; esac
  ru_tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$1/status")
  [ "$ru_tr" = 0 ] || echo "pid $1 still traced by $ru_tr"
}
