# Shared helpers for the end-to-end tests (sourced). Every test gets:
#   $ASMSPY          the built CLI
#   $VICTIM_DIR      built victims
#   $ASMTRACE_CHECK  the recording validator
# Exit codes follow meson: 0 pass, 1 fail, 77 skip, 99 harness error.
set -eu

TMP=$(mktemp -d /tmp/asmspy-test.XXXXXX)
VICTIM_PIDS=""

cleanup() {
  for p in $VICTIM_PIDS; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

# start_victim NAME [ARGS...]: start a victim, set VICTIM_PID from its first line.
start_victim() {
  local name=$1; shift
  # one file per victim started: a second victim of the same name must
  # never read the first one's pid (the redirect truncates only once the
  # background job runs)
  VICTIM_SEQ=$(( ${VICTIM_SEQ:-0} + 1 ))
  local out="$TMP/$name.$$.$VICTIM_SEQ.out"
  rm -f "$out"
  "$VICTIM_DIR/$name" "$@" >"$out" 2>"$TMP/$name.err" &
  local bg=$!
  VICTIM_PIDS="$VICTIM_PIDS $bg"
  local i=0
  while [ ! -s "$out" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
  VICTIM_PID=$(head -n1 "$out")
  [ "$VICTIM_PID" = "$bg" ] || fail "victim $name did not report its pid (got '$VICTIM_PID', bg $bg)"
}

# Process state letter from /proc/<pid>/stat (R S D T t Z X), or "gone".
proc_state() {
  if [ -r "/proc/$1/stat" ]; then sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1; else echo gone; fi
}

# assert_runs PID: alive, not stopped, not traced, and still making progress.
assert_runs() {
  local pid=$1 st tracer
  st=$(proc_state "$pid")
  case "$st" in
    R|S|D) ;;
    *) fail "pid $pid is in state '$st' after detach (expected running/sleeping)";;
  esac
  tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")
  [ "$tracer" = 0 ] || fail "pid $pid still has tracer $tracer after detach"
  local t0 t1
  t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  local i=0
  while [ $i -lt 200 ]; do
    sleep 0.01
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo gone)
    [ "$t1" = gone ] && fail "pid $pid died after detach"
    [ "$t1" != "$t0" ] && return 0
    i=$((i + 1))
  done
  # a sleeping victim may use no CPU in 2 s; being alive and untraced is enough then
  [ "$(proc_state "$pid")" != gone ] || fail "pid $pid died after detach"
}

# require_backend NAME: skip (77) with the probe's reason unless usable.
require_backend() {
  local line
  line=$("$ASMSPY" --backends | awk -v n="$1" '$2 == n')
  [ -n "$line" ] || fail "backend $1 not found by --backends"
  case "$line" in
    *" usable "*) ;;
    *) skip "backend $1 unavailable: $line";;
  esac
}

# expect_exit CODE CMD...: run, compare the exit status.
expect_exit() {
  local want=$1; shift
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  set -e
  [ "$got" = "$want" ] || { cat "$TMP/err" >&2; fail "'$*' exited $got, expected $want"; }
}

# callgrind_per_call VICTIM FUNC CALLS [ARGS...]: valgrind/callgrind's exact,
# exclusive instruction count of FUNC per call, for a run of VICTIM ARGS
# that calls FUNC exactly CALLS times. Prints nothing when valgrind is
# missing (the oracle is skipped).
callgrind_per_call() {
  local victim=$1 func=$2 calls=$3; shift 3
  if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "note: valgrind missing; no callgrind oracle" >&2
    return 0
  fi
  (cd "$TMP" && valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$func.out" \
     "$VICTIM_DIR/$victim" "$@" >/dev/null 2>&1)
  local ir
  ir=$(callgrind_annotate "$TMP/cg.$func.out" | awk -v f=":$func [" 'index($0, f) {gsub(",", "", $1); print $1; exit}')
  [ -n "$ir" ] || fail "callgrind gave no count for $func"
  echo "callgrind: $func executes $((ir / calls)) instructions per call ($ir over $calls calls)" >&2
  echo $((ir / calls))
}

# assert_executed_per_call RECORDING WANT: every sample of a --trace --json
# recording executed exactly WANT instructions (callgrind's count).
assert_executed_per_call() {
  local got
  for got in $(grep '"type":"sample"' "$1" | grep -oE '"executed":[0-9]+' | cut -d: -f2); do
    [ "$got" = "$2" ] || fail "--trace counted $got executed instructions in a call, callgrind $2"
  done
}

# victim_loop's work() (victim_loop 0 10 calls it exactly 10 times).
callgrind_work_per_call() { callgrind_per_call victim_loop work 10 0 10; }
