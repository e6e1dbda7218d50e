# cc_lib.sh — shared by the codecache_pid tests (sourced). Environment
# (meson sets it, tests/codecache_pid/meson.build):
#   ASMSPY CCPID_DIR CCPID_SRC VICTIM_DIR HARM_DIR HARM_SRC CALLS_SRC
# Exit codes follow meson: 0 pass, 1 fail, 77 skip.
#
# Every asmspy runs in a session of its own (setsid: pgid = sid = its pid).
# Its tracer child moves to a process group of its own but stays in that
# session, so `pgrep -s SID` finds what is left of a session (a tracer that
# outlived its supervisor) and the cleanup ends it, by pid.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${ASMSPY:?ASMSPY must name the built asmspy}"
: "${CCPID_DIR:?CCPID_DIR must name the built tests/codecache_pid}"
CCPID_SRC=${CCPID_SRC:-$HERE}
HARM_SRC=${HARM_SRC:-$HERE/../harm}
CALLS_SRC=${CALLS_SRC:-$HERE/../calls}
. "$HERE/../survival/proc_lib.sh"
TMP=$(mktemp -d /tmp/asmspy-ccpid.XXXXXX)
PIDS=""      # programs we started (killed at exit)
SESSIONS=""  # asmspy sessions we started (whatever is left of them killed at exit)
SESSION_TIMEOUT=${SESSION_TIMEOUT:-120} # s: a session still running after it is a hang
SIGNAL_WAIT=${SIGNAL_WAIT:-15}          # s asmspy may take to end after our signal
ROUND_WAIT=${ROUND_WAIT:-20}            # s without a new round: a hang
FAILED=0
PASSED=0
# session_left SID: the pids still in asmspy session SID
session_left() { pgrep -s "$1" 2>/dev/null | tr '\n' ' '; }
kill_session() { local p; for p in $(session_left "$1"); do kill -KILL "$p" 2>/dev/null; done; }
cleanup() {
  local s p
  for s in $SESSIONS; do kill_session "$s"; done
  for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
skip() { echo "SKIP: $*"; exit 77; }
now() { date +%s.%N; }

require_codecache() {
  local line
  line=$("$ASMSPY" --backends 2>&1 | awk '$2 == "codecache"') || true
  [ -n "$line" ] || skip "the codecache backend is not built (x86-64 only)"
  case "$line" in *usable*) ;; *) skip "codecache: ${line#*codecache}" ;; esac
}

# start_session OUTFILE ERRFILE ARGS...: asmspy ARGS in a session of its
# own, stdout to OUTFILE; sets S_PID. SESSION_PREFIX (an array, e.g.
# setarch -R) goes before asmspy and must exec it (same pid).
SESSION_PREFIX=()
start_session() {
  local out=$1 err=$2; shift 2
  setsid "${SESSION_PREFIX[@]}" "$ASMSPY" "$@" >"$out" 2>"$err" &
  S_PID=$!
  SESSIONS="$SESSIONS $S_PID"
}
# wait_session PID SECONDS: until asmspy PID ended (its rc in S_RC) and its
# session is empty; 1 (S_RC=timeout, S_LEFT: what still ran) when it did not
# within SECONDS (a hang): everything left in the session is then SIGKILLed
wait_session() {
  local a=$1 lim=$(( $2 * 20 )) i=0
  S_LEFT=""
  while kill -0 "$a" 2>/dev/null && [ $i -lt $lim ]; do sleep 0.05; i=$((i + 1)); done
  if kill -0 "$a" 2>/dev/null; then
    S_LEFT=$(ps -o pid=,stat=,time=,args= -s "$a" 2>/dev/null | tr -s ' ' | tr '\n' ';')
    kill_session "$a"; wait "$a" 2>/dev/null; S_RC=timeout
    return 1
  fi
  wait "$a" 2>/dev/null
  S_RC=$?
  # its tracer may take a moment more (detaching)
  while [ -n "$(session_left "$a")" ] && [ $i -lt $lim ]; do sleep 0.05; i=$((i + 1)); done
  if [ -n "$(session_left "$a")" ]; then
    S_LEFT=$(ps -o pid=,stat=,time=,args= -s "$a" 2>/dev/null | tr -s ' ' | tr '\n' ';')
    kill_session "$a"
    return 1
  fi
  return 0
}

# ------------------------------------------------------- harm programs
# start_prog NAME CMD...: start a harm-protocol program (tests/harm/harm.h),
# stdout into a file; waits for `ready` and 2 rounds. Sets P_NAME P_PID P_OUT
# P_BG P_CMD.
P_PID=""
P_SEQ=0
start_prog() {
  P_NAME=$1; shift
  P_CMD=("$@")
  P_SEQ=$((P_SEQ + 1))
  P_OUT="$TMP/$P_NAME.$P_SEQ.out"
  "$@" >"$P_OUT" 2>"$P_OUT.err" &
  P_BG=$!
  PIDS="$PIDS $P_BG"
  local i=0
  until grep -q ' ready reference=' "$P_OUT" 2>/dev/null; do
    sleep 0.05; i=$((i + 1))
    if [ $i -gt 1200 ] || ! kill -0 "$P_BG" 2>/dev/null; then
      echo "HARNESS ERROR: $P_NAME never said ready: $(tail -3 "$P_OUT" "$P_OUT.err" | tr '\n' ' ')"
      P_PID=""
      return 1
    fi
  done
  P_PID=$(awk '/ ready reference=/ {print $1; exit}' "$P_OUT")
  PIDS="$PIDS $P_PID"
  P_CORRUPT_SEEN=0
  wait_rounds 2 >/dev/null || { echo "HARNESS ERROR: $P_NAME printed no rounds on its own: $(tail -3 "$P_OUT")"; return 1; }
}
rounds_of() { grep -c '^round ' "$P_OUT" 2>/dev/null; }
# wait_rounds N: until N more rounds; a hang is no round and no CPU time for
# ROUND_WAIT s (a traced round may be slow; that is not a hang), at most
# 8 * ROUND_WAIT s in all
wait_rounds() {
  local want=$(( $(rounds_of) + $1 )) t; t=$(date +%s)
  local deadline=$(( t + ROUND_WAIT )) cap=$(( t + 8 * ROUND_WAIT )) mark m st
  mark=$(awk '{print $14 + $15}' "/proc/$P_PID/stat" 2>/dev/null)
  while [ "$(rounds_of)" -lt "$want" ]; do
    t=$(date +%s)
    if [ "$t" -ge "$deadline" ] && [ "$t" -lt "$cap" ]; then
      m=$(awk '{print $14 + $15}' "/proc/$P_PID/stat" 2>/dev/null)
      if [ "$m" != "$mark" ]; then mark=$m; deadline=$(( t + ROUND_WAIT )); fi
    fi
    [ "$t" -lt "$deadline" ] && [ "$t" -lt "$cap" ] || { echo "no new round for ${ROUND_WAIT}s (state $(state_of "$P_PID"), last: $(grep '^round ' "$P_OUT" | tail -1))"; return 1; }
    st=$(state_of "$P_PID")
    { [ "$st" = gone ] || [ "$st" = Z ]; } && { echo "the program is gone"; return 1; }
    sleep 0.05
  done
}
stop_prog() {
  [ -n "$P_PID" ] || return 0
  kill -KILL "$P_PID" 2>/dev/null
  wait "$P_BG" 2>/dev/null
  P_PID=""
}
cache_maps() { grep 'asmspy-codecache' "/proc/$1/maps" 2>/dev/null; }

# check_prog EV-ARRAY-NAME ROUNDS: the program as it should be after a
# session: alive, no thread traced or stopped, ROUNDS more rounds, no new
# CORRUPT line. Appends evidence to the named array.
check_prog() {
  local -n ev=$1
  local rounds=${2:-2} i=0 tv bad st
  while [ $i -lt $((SIGNAL_WAIT * 20)) ]; do
    tv=$(threads_view "$P_PID")
    any_traced "$tv" >/dev/null || any_state "$tv" t >/dev/null || break
    sleep 0.05; i=$((i + 1))
  done
  st=$(state_of "$P_PID")
  if [ "$st" != gone ] && [ "$st" != Z ]; then
    if bad=$(any_traced "$tv"); then ev+=("thread $bad still traced (tid:state:TracerPid) after asmspy ended"); fi
    if bad=$(any_state "$tv" Tt); then ev+=("thread $bad stopped after asmspy ended"); fi
    local w; w=$(wait_rounds "$rounds") || ev+=("not printing rounds: $w")
    st=$(state_of "$P_PID")
  fi
  if [ "$st" = gone ] || [ "$st" = Z ]; then
    wait "$P_BG" 2>/dev/null
    local rc=$? how
    if [ $rc -gt 128 ]; then how="killed by SIG$(kill -l $((rc - 128)) 2>/dev/null) (status $rc)"; else how="exited with status $rc"; fi
    [ "$P_BG" = "$P_PID" ] || how="gone (status unknown)"
    ev+=("the program died: $how; its last lines: $(tail -n 3 "$P_OUT" 2>/dev/null | tr '\n' ' ' | cut -c1-300); stderr: $(head -c 300 "$P_OUT.err" | tr '\n' ' ')")
    P_DEAD=1
  fi
  local c; c=$(grep -c 'CORRUPT' "$P_OUT")
  if [ "$c" -gt "$P_CORRUPT_SEEN" ]; then
    ev+=("$((c - P_CORRUPT_SEEN)) new CORRUPT round(s): $(grep CORRUPT "$P_OUT" | sed -n "$((P_CORRUPT_SEEN + 1))p" | cut -c1-300)")
    P_CORRUPT_SEEN=$c
  fi
}
