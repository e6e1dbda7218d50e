#!/bin/bash
# survive.sh — issue 12's survival matrix: every capture mode against every
# kind of target, and after EACH session the target must be as asmspy found
# it: alive; every thread's TracerPid 0; a running target not stopped ('T'/
# 't') and making progress, a stopped one still stopped (and not run in the
# meantime) and resumed by SIGCONT; the recording (and --json output) valid;
# the footer's end reason true.
#
#   survive.sh [KIND...]      KIND: c hammer python node jvm forkloop selftrap
#                             stopped, or all (the default)
#
# Kinds (one target each, started once, restarted only after a bad session):
#   c         victim_loop; traced work, watched sink
#   hammer    victim_hammer: 4 threads call hammer_fn concurrently, forever;
#             watched hammer_counter (written by every call)
#   python    /usr/bin/python3 with 4 computing threads; PyObject_Malloc;
#             watched Py_None's refcount (_Py_NoneStruct, 8 bytes)
#   node      node -e with a 1 ms setInterval busy loop; epoll_pwait; watched
#             a libuv loop counter found at run time (procmem.py hot)
#   jvm       java Spin (compiled with javac into the temp dir): 4 threads
#             compute + sleep, thread churn; pthread_cond_timedwait; watched
#             a libjvm counter found at run time
#   forkloop  bash -c 'while :; do /bin/true; done'; execute_command;
#             watched last_made_pid; a forked child killed is a failure too
#   selftrap  victim_selftrap (int3 in a loop, a SIGTRAP handler); on_trap
#             (runs inside the handler), watched traps_handled
#   go        a Go program (built offline into the temp dir): 4 goroutines
#             (main's locked to the main thread, for trace-tid) call
#             main.work in a loop (async preemption: SIGURG, and
#             runtime.asyncPreempt's pushf/popf under the step); main.work,
#             watched main.counter. --graph/--tree fall back to singlestep
#             (entrypatch refuses Go: its runtime walks and moves stacks)
#   stopped   victim_loop SIGSTOPped before every session: sessions are
#             Ctrl-C'd after GRACE s; after: still 'T', sink unchanged (it
#             did not run), then SIGCONT must resume it
# Modes: stream log trace dataflow graph tree procs watch sample-sw
#   sample-ptrace (each bounded by a count), trace-tid (--trace n=3 pinned
#   with --tid to a thread that calls the function), serve (serve_client.py: start a
#   stream session with no count, read 200 events, stop, quit), int-stream /
#   int-trace (n = -1, Ctrl-C to the session's process group after the first
#   output), term-log / term-watch (n = -1, SIGTERM to asmspy after the first
#   output), stopmid (stopped kind: SIGSTOP during --log -1; the target must
#   not run on while traced). Odd runs print text (+ --record), even runs
#   --json (+ --record).
#
# Environment:
#   ASMSPY ASMTRACE_CHECK VICTIM_DIR   as in tests/e2e (meson sets them)
#   HAMMER            victim_hammer (default: $VICTIM_DIR/../survival/victim_hammer)
#   REPS=2            runs of every mode per kind (1 in the sanitizer build,
#                     through SURVIVAL_DEFAULT_REPS; the target is started once
#                     per kind and restarted only when a session killed, froze
#                     or left it traced)
#   MODES="..."       the modes to run (default: all of ALL_MODES, and stopmid
#                     for the stopped kind: SIGSTOP sent during a --log session)
#   SESSION_TIMEOUT=30  seconds one asmspy run may take; its expiry is a hang
#   RESULTS=<file>    also append the machine-readable RESULT/LATE lines there
#   ARTIFACTS=<dir>   keep the files of failing sessions there
#   QUIET=1           print only failures, skips and the summary (no table)
#
# Every session is bounded by a count (or ended by our SIGINT/SIGTERM); the
# time bounds only turn a hang into a failure, nothing asserts on speed.
#
# Output: one line per session ("ok ..." / "FAIL [categories] ..." with the
# command and the evidence), one "RESULT kind mode run verdict cat=0|1 ..."
# line per session (scripts/soak.sh counts them), a per-kind table.
# Exit: 0 every session passed (or skipped with a reason), 1 some failed,
# 77 nothing could run (no interpreter for any requested kind).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
: "${ASMSPY:?ASMSPY must name the built asmspy}"
: "${ASMTRACE_CHECK:?ASMTRACE_CHECK must name the built asmtrace-check}"
: "${VICTIM_DIR:?VICTIM_DIR must name the built victims}"
HAMMER=${HAMMER:-$VICTIM_DIR/../survival/victim_hammer}
REPS=${REPS:-${SURVIVAL_DEFAULT_REPS:-2}}
SESSION_TIMEOUT=${SESSION_TIMEOUT:-30}
SIGNAL_WAIT=${SIGNAL_WAIT:-10}   # s an asmspy may take to end after our signal
FIRST_WAIT=${FIRST_WAIT:-20}     # s to wait for a session's first output lines
GRACE=${GRACE:-1}                # s a session on a stopped target runs before Ctrl-C
PROGRESS_WAIT=${PROGRESS_WAIT:-5}
RESULTS=${RESULTS:-}
ARTIFACTS=${ARTIFACTS:-}
QUIET=${QUIET:-0}
PY=/usr/bin/python3
ALL_KINDS="c hammer python node jvm forkloop selftrap go stopped"
ALL_MODES="stream log trace trace-tid dataflow graph tree procs watch sample-sw sample-ptrace serve int-stream term-log int-trace term-watch"
MODES=${MODES:-$ALL_MODES}

TMP=$(mktemp -d /tmp/asmspy-survival.XXXXXX)
TARGET_PID=""
TO_PID=""
cleanup() {
  [ -n "$TO_PID" ] && kill -KILL "$TO_PID" 2>/dev/null
  if [ -n "$TARGET_PID" ]; then
    kill -CONT "$TARGET_PID" 2>/dev/null
    kill -KILL "$TARGET_PID" 2>/dev/null
    wait "$TARGET_PID" 2>/dev/null
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { [ "$QUIET" = 1 ] || echo "$@"; }
harness_error() { echo "HARNESS ERROR: $*" >&2; exit 99; }

# ---------------------------------------------------------------- /proc views
# state_of tracer_of threads_view threads_wchan any_traced any_state runtimes
# progress: tests/survival/proc_lib.sh (shared with tests/harm/harm.sh)
. "$HERE/proc_lib.sh"

# ---------------------------------------------------------------- targets
#
# start_target KIND sets TARGET_PID and the kind's parameters:
#   FN            the traced function (--trace / --dataflow)
#   WATCH         --watch's address and options, or "" with WATCH_SKIP
#   MEM_MODULE MEM_SYM  a data symbol that moves while the target runs
#                 (read through /proc/PID/mem), or "" (then: run time)
#   PROG          all: every thread must progress; any: some thread
#   STOPPED       1: the target is SIGSTOPped before every session

KIND_SKIP=""
prepare_kind() {
  KIND_SKIP=""
  case "$1" in
    hammer) [ -x "$HAMMER" ] || harness_error "victim_hammer not built: $HAMMER";;
    python) [ -x "$PY" ] || KIND_SKIP="$PY is not installed";;
    node) command -v node >/dev/null || KIND_SKIP="node is not installed (Debian package nodejs)";;
    jvm)
      if ! command -v java >/dev/null || ! command -v javac >/dev/null; then
        KIND_SKIP="java/javac are not installed (Debian package default-jdk-headless)"
      else
        cat >"$TMP/Spin.java" <<'EOF'
// survival target: four threads compute and sleep 1 ms in a loop (Thread.sleep
// parks in pthread_cond_timedwait); main starts a short-lived thread every 5 ms
public class Spin {
  static volatile long sink;
  public static void main(String[] args) throws Exception {
    System.out.println(ProcessHandle.current().pid());
    System.out.flush();
    for (int k = 0; k < 4; k++) {
      final int kk = k;
      new Thread(() -> {
        long s = 0;
        while (true) {
          for (int i = 0; i < 20000; i++) s += i ^ kk;
          sink = s;
          try { Thread.sleep(1); } catch (InterruptedException e) { return; }
        }
      }, "spin-" + k).start();
    }
    while (true) {
      Thread t = new Thread(() -> { sink++; }, "short");
      t.start();
      t.join();
      Thread.sleep(5);
    }
  }
}
EOF
        javac -d "$TMP" "$TMP/Spin.java" >"$TMP/javac.log" 2>&1 ||
          harness_error "javac failed: $(cat "$TMP/javac.log")"
      fi;;
    go)
      if ! command -v go >/dev/null; then
        KIND_SKIP="go is not installed (Debian package golang-go)"
      else
        cat >"$TMP/spin.go" <<'EOF'
// survival target: four goroutines call work() in a loop; counter moves
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

var counter int64
var sink int64

//go:noinline
func work(x int64) int64 { return x*3 + 1 }

func spin(k int64) {
	for {
		s := int64(0)
		for i := int64(0); i < 20000; i++ {
			s += work(i ^ k)
		}
		atomic.StoreInt64(&sink, s)
		atomic.AddInt64(&counter, 1)
		time.Sleep(time.Millisecond)
	}
}

func main() {
	// the main goroutine keeps the main thread (trace-tid pins the main
	// thread: goroutines otherwise move between threads)
	runtime.LockOSThread()
	fmt.Println(os.Getpid())
	for g := 1; g < 4; g++ {
		go spin(int64(g))
	}
	spin(0)
}
EOF
        (cd "$TMP" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off GOTOOLCHAIN=local \
          GOFLAGS= go build -o spin_go spin.go) >"$TMP/go.log" 2>&1 ||
          harness_error "go build failed: $(tail -5 "$TMP/go.log")"
      fi;;
  esac
}

# wait_pid_line FILE BGPID WHAT: the target's first line is its pid
wait_pid_line() {
  local i=0 got
  while [ ! -s "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
  got=$(head -n1 "$1")
  [ "$got" = "$2" ] || harness_error "$3 did not report its pid (got '$got', started $2; stderr: $(tail -3 "$TARGET_ERR"))"
}

TARGET_SEQ=0
start_target() {
  local kind=$1 out
  TARGET_SEQ=$((TARGET_SEQ + 1))
  out="$TMP/target.$TARGET_SEQ.out"
  TARGET_ERR="$TMP/target.$TARGET_SEQ.err"
  FN=""; FN_COMM=""; FN_WORKER=0; WATCH=""; WATCH_SKIP=""; MEM_MODULE=""; MEM_SYM=""; MEM_ADDR=""
  PROG=any; STOPPED=0
  case "$kind" in
    c|stopped)
      "$VICTIM_DIR/victim_loop" >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" victim_loop
      TARGET_DESC="victim_loop (1 thread: main -> work -> helper, usleep 2 ms)"
      FN=work; WATCH="sink"; MEM_MODULE=/victim_loop; MEM_SYM=sink; PROG=all
      [ "$kind" = stopped ] && STOPPED=1;;
    hammer)
      # niced: its four spinning threads still fill every core whenever the
      # tracer waits (the race stays: the pre-fix build dies 3 of 3 in trace,
      # watch and int-trace), but asmspy and the checks are not starved on
      # a 2-core machine (the kind's time halves)
      nice -n 10 "$HAMMER" >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" victim_hammer
      TARGET_DESC="victim_hammer (4 threads calling hammer_fn in a tight loop)"
      FN=hammer_fn; FN_WORKER=1; WATCH="hammer_counter"; MEM_MODULE=/victim_hammer; MEM_SYM=hammer_counter; PROG=all;;
    python)
      cat >"$TMP/work.py" <<'EOF'
import os, threading
print(os.getpid(), flush=True)
def work(k):
    while True:
        s = 0
        for i in range(2000):
            s += i * k
        d = {str(i): i for i in range(50)}
for k in range(4):
    threading.Thread(target=work, args=(k,), daemon=True).start()
threading.Event().wait()
EOF
      "$PY" "$TMP/work.py" >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" python3
      TARGET_DESC="$PY, 4 threads computing (and contending for the GIL)"
      # PyObject_Malloc: every dict and str the threads build (checked with --graph)
      FN=PyObject_Malloc; FN_WORKER=1
      # Py_None's reference count: written by every thread all the time
      # (3.12 made None immortal: look for another word there)
      if "$PY" -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
        WATCH="_Py_NoneStruct --len=8"
      else
        hot_watch "/$(basename "$(readlink "/proc/$TARGET_PID/exe")")"
      fi;;
    node)
      # the busy loop calls a builtin (Date.now) so that call-counting modes
      # (--graph 200) finish in seconds even single-stepped; a loop of bare
      # arithmetic is ~1M steps per tick and no calls
      node -e 'console.log(process.pid);
setInterval(() => { let s = 0; for (let i = 0; i < 2000; i++) s += Date.now() % 7; globalThis.x = s; }, 1);' \
        >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" node
      TARGET_DESC="node -e (a 1 ms setInterval running a busy loop of Date.now())"
      # libuv polls in epoll_pwait between the timers
      FN=epoll_pwait
      hot_watch /node;;
    jvm)
      java -Xmx64m -cp "$TMP" Spin >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" java
      TARGET_DESC="java Spin (4 threads compute + Thread.sleep(1); thread churn)"
      FN=pthread_cond_timedwait; FN_COMM=spin-0
      hot_watch /libjvm.so;;
    forkloop)
      bash -c 'while :; do /bin/true; done' >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      local i=0
      while [ "$(state_of "$TARGET_PID")" = gone ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
      sleep 0.1
      TARGET_DESC="bash -c 'while :; do /bin/true; done'"
      FN=execute_command; WATCH="last_made_pid";;
    selftrap)
      "$VICTIM_DIR/victim_selftrap" >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" victim_selftrap
      TARGET_DESC="victim_selftrap (int3 in a loop; its SIGTRAP handler on_trap counts)"
      FN=on_trap; WATCH="traps_handled"; MEM_MODULE=/victim_selftrap; MEM_SYM=traps_handled; PROG=all;;
    go)
      "$TMP/spin_go" >"$out" 2>"$TARGET_ERR" &
      TARGET_PID=$!
      wait_pid_line "$out" "$TARGET_PID" spin_go
      TARGET_DESC="a Go program: 4 goroutines calling main.work (async preemption)"
      FN=main.work; WATCH="main.counter --len=8"; MEM_MODULE=/spin_go; MEM_SYM=main.counter;;
    *) harness_error "unknown kind $kind";;
  esac
  if [ "$STOPPED" = 1 ]; then
    # MEM_SYM's address, looked up once: a stopped kind reads it every session
    mem_value >/dev/null
    stop_target || harness_error "could not SIGSTOP the target"
  fi
}

# a thread that calls FN: FN_COMM names one (a thread name), else the
# second task (a worker) when FN_WORKER=1, else the main thread
fn_tid() {
  local t
  if [ -n "$FN_COMM" ]; then
    for t in /proc/"$TARGET_PID"/task/*; do
      [ "$(cat "$t/comm" 2>/dev/null)" = "$FN_COMM" ] && { echo "${t##*/}"; return; }
    done
  fi
  if [ "$FN_WORKER" = 1 ]; then
    ls /proc/"$TARGET_PID"/task | sort -n | sed -n 2p
    return
  fi
  echo "$TARGET_PID"
}

# hot_watch MODULE: a data word the target writes often, found at run time
hot_watch() {
  local w
  w=$("$PY" "$HERE/procmem.py" hot "$TARGET_PID" "$1" 2>/dev/null)
  if [ -n "$w" ]; then
    WATCH="${w% *} --len=${w#* }"
  else
    WATCH_SKIP="no data word of $1 found written between every pair of 6 snapshots 100 ms apart"
  fi
}

# the MEM_SYM word's value (dd on /proc/PID/mem at the address procmem.py
# found once per target), or nothing
mem_value() {
  [ -n "$MEM_SYM" ] || return 0
  if [ -z "$MEM_ADDR" ]; then
    MEM_ADDR=$("$PY" "$HERE/procmem.py" addr "$TARGET_PID" "$MEM_MODULE" "$MEM_SYM" 2>/dev/null)
    [ -n "$MEM_ADDR" ] || return 0
  fi
  dd if="/proc/$TARGET_PID/mem" bs=8 iflag=skip_bytes,count_bytes skip="${MEM_ADDR% *}" \
    count="${MEM_ADDR#* }" 2>/dev/null | od -An -tu"${MEM_ADDR#* }" | tr -d ' '
}

# SIGSTOP the target, wait until every thread is in group-stop
stop_target() {
  kill -STOP "$TARGET_PID" 2>/dev/null || return 1
  local i=0
  while any_state "$(threads_view "$TARGET_PID")" RSD >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  ! any_state "$(threads_view "$TARGET_PID")" RSD >/dev/null
}

# the target's end, once it is a zombie (it is our child; bash may have
# reaped it already and keeps its status): REAP_MSG "exited with status N" /
# "killed by SIGX (status 128+N)". Runs in this shell, never in $(...).
reap_target() {
  local rc
  wait "$TARGET_PID" 2>/dev/null
  rc=$?
  if [ $rc -gt 128 ]; then
    REAP_MSG="killed by SIG$(kill -l $((rc - 128)) 2>/dev/null) (status $rc)"
  else
    REAP_MSG="exited with status $rc"
  fi
}

stop_target_process() {
  [ -n "$TARGET_PID" ] || return 0
  kill -CONT "$TARGET_PID" 2>/dev/null
  kill -KILL "$TARGET_PID" 2>/dev/null
  wait "$TARGET_PID" 2>/dev/null
  TARGET_PID=""
}

# ---------------------------------------------------------------- sessions

# mode_args KIND MODE: ARGS (asmspy arguments), STYLE (bounded | int | term:
# our Ctrl-C / SIGTERM ends it once its first output arrived), FIRST (an
# extended regex and a count of the output lines that mean "it is running"),
# SKIP_WHY (the cell cannot run here)
mode_args() {
  local kind=$1 mode=$2 p=$TARGET_PID
  STYLE=bounded; FIRST_RE='.'; FIRST_N=4; SKIP_WHY=""
  case "$mode" in
    stream) ARGS=(--stream "$p" 1000);;
    log) ARGS=(--log "$p" 20);;
    trace) ARGS=(--trace "$p" "$FN" 3);;
    trace-tid) ARGS=(--trace "$p" "$FN" 3 --tid="$(fn_tid)");;
    dataflow) ARGS=(--dataflow "$p" "$FN");;
    # graph/tree run on entrypatch where it is usable (function entries
    # patched); the java launcher itself makes no calls (the JVM's are in
    # libjvm, not patched by default): there they step, as before
    graph) ARGS=(--graph "$p" 200); [ "$kind" = jvm ] && ARGS+=(--backend=singlestep);;
    tree) ARGS=(--tree "$p" 40); [ "$kind" = jvm ] && ARGS+=(--backend=singlestep);;
    procs) ARGS=(--procs "$p" 50);;
    watch|term-watch)
      if [ -z "$WATCH" ]; then SKIP_WHY="watch: $WATCH_SKIP"; ARGS=(); return; fi
      # shellcheck disable=SC2206
      local w=($WATCH)
      if [ "$mode" = watch ]; then
        ARGS=(--watch "$p" "${w[0]}" 20 "${w[@]:1}")
      else
        ARGS=(--watch "$p" "${w[0]}" -1 "${w[@]:1}"); STYLE=term; FIRST_RE='"type":"watch",|\] .* -> '; FIRST_N=3
      fi;;
    sample-sw) ARGS=(--sample "$p" 200 --sampler=sw);;
    sample-ptrace) ARGS=(--sample "$p" 200 --sampler=ptrace);;
    serve) ARGS=(--serve); STYLE=serve;;
    int-stream) ARGS=(--stream "$p" -1); STYLE=int; FIRST_N=20;;
    term-log) ARGS=(--log "$p" -1); STYLE=term; FIRST_N=5;;
    int-trace) ARGS=(--trace "$p" "$FN" -1); STYLE=int; FIRST_RE='^sample #|"type":"sample"'; FIRST_N=1;;
    stopmid) ARGS=(--log "$p" -1); STYLE=int; FIRST_N=5;;
    *) harness_error "unknown mode $mode";;
  esac
}

# asmspy's own pid (timeout's child)
asmspy_pid() { cat "/proc/$TO_PID/task/$TO_PID/children" 2>/dev/null | awk '{print $1}'; }
# alive and not yet reaped-able
running() { local s; s=$(state_of "$1"); [ "$s" != gone ] && [ "$s" != Z ]; }

# microseconds now; SECONDS (may be fractional) as microseconds
now_us() { echo "${EPOCHREALTIME/./}"; }
us_of() { awk -v s="$1" 'BEGIN {printf "%d", s * 1000000}'; }

# wait (bounded by $2 seconds) for $FIRST_N lines matching $FIRST_RE in $1
wait_first() {
  local f=$1 n deadline=$(( $(now_us) + $(us_of "$2") ))
  while [ "$(now_us)" -lt $deadline ]; do
    n=$(grep -cE "$FIRST_RE" "$f" 2>/dev/null)
    [ "${n:-0}" -ge "$FIRST_N" ] && return 0
    running "$TO_PID" || return 1
    sleep 0.05
  done
  return 1
}

# wait (bounded by $1 seconds) for the session to end; 1 if it did not
wait_end() {
  local deadline=$(( $(now_us) + $(us_of "$1") ))
  while running "$TO_PID" && [ "$(now_us)" -lt $deadline ]; do sleep 0.05; done
  ! running "$TO_PID"
}

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }

# footer_of FILE: the end footer line (or empty)
footer_of() { [ -s "$1" ] && tail -n1 "$1" | grep '^{"type":"end"' ; }
json_field() { sed -n "s/.*\"$2\":\"\\{0,1\\}\\([^\",}]*\\).*/\\1/p" <<<"$1" | head -n1; }

# ---------------------------------------------------------------- one session

declare -A CNT   # per kind/mode/category counts for the table
FAILED=0
PASSED=0
LAST_VERDICT=""
PREV_CELL=""
SKIPPED=0

run_session() {
  local kind=$1 mode=$2 run=$3
  local d="$TMP/s.$kind.$mode.$run"
  mkdir -p "$d"
  local out="$d/out" err="$d/err" rec="$d/rec.asmtrace"
  local cats="" ev="" signalled="" sig_sent=0 hang=0 rc=0 json=0 before="" mem0="" mem1=""
  local cmd

  # a target that died after the previous session's checks: that session's
  local st0; st0=$(state_of "$TARGET_PID")
  if [ "$st0" = Z ] || [ "$st0" = gone ]; then
    reap_target
    FAILED=$((FAILED + 1))
    echo "FAIL [death] ${PREV_CELL:-?} (late): target $TARGET_PID $REAP_MSG after that session's checks, before $kind/$mode #$run began"
    late_emit "${PREV_CELL:-$kind $mode $run}"
    TARGET_PID=""
    start_target "$kind"
    FORK_ERR_LINES=0
  fi
  PREV_CELL="$kind $mode $run"
  local t_start; t_start=$(date +%s.%N)

  mode_args "$kind" "$mode"
  if [ -n "$SKIP_WHY" ]; then
    echo "SKIP $kind/$mode #$run: $SKIP_WHY"
    emit "$kind" "$mode" "$run" skip "skip"
    return
  fi
  [ $((run % 2)) = 0 ] && [ "$STYLE" != serve ] && json=1
  local opts=(--record="$rec")
  [ $json = 1 ] && opts+=(--json)

  # the stopmid cell starts with a running target and stops it mid-session
  if [ "$mode" = stopmid ]; then
    kill -CONT "$TARGET_PID"
    progress "$TARGET_PID" all >/dev/null || true
  fi
  before=$(threads_view "$TARGET_PID")
  [ "$STOPPED" = 1 ] && [ "$mode" != stopmid ] && mem0=$(mem_value)

  if [ "$STYLE" = serve ]; then
    cmd="asmspy --serve <<< {\"cmd\":\"start\",\"mode\":\"stream\",\"pid\":$TARGET_PID,\"max\":-1} ... {\"cmd\":\"stop\"} {\"cmd\":\"quit\"}"
    local readsec=3
    [ "$STOPPED" = 1 ] && readsec=$GRACE
    timeout -k 10 -s INT "$SESSION_TIMEOUT" "$PY" "$HERE/serve_client.py" "$ASMSPY" "$TARGET_PID" \
      "$d/transcript" "$rec" 200 "$readsec" >"$out" 2>"$err" &
    TO_PID=$!
    wait "$TO_PID"; rc=$?
    TO_PID=""
    case $rc in
      0) ;;
      3|4) hang=1; ev="$ev | serve client: $(cat "$out") (exit $rc: no answer to stop/quit)";;
      124|137) hang=1; ev="$ev | serve client still running after ${SESSION_TIMEOUT}s";;
      *) cats="$cats error"; ev="$ev | serve client exit $rc: $(tail -2 "$out" "$err" | tr '\n' ' ')";;
    esac
    signalled="serve stop"
  else
    cmd="asmspy ${ARGS[*]} ${opts[*]}"
    # a session we end ourselves gets its first-output wait on top: a hang
    # after our signal is then measured by SIGNAL_WAIT, not by the timeout
    # timeout(1) is only the backstop: the driver itself Ctrl-C's a session
    # still running after SESSION_TIMEOUT, once it has noted the target's threads
    local tmo=$((SESSION_TIMEOUT + SIGNAL_WAIT + 5))
    [ "$STYLE" = bounded ] || tmo=$((tmo + FIRST_WAIT))
    timeout -k 10 -s INT "$tmo" "$ASMSPY" "${ARGS[@]}" "${opts[@]}" >"$out" 2>"$err" &
    TO_PID=$!
    local sig=""
    case "$STYLE" in
      int|term)
        local limit=$FIRST_WAIT
        [ "$STOPPED" = 1 ] && [ "$mode" != stopmid ] && limit=$GRACE
        if ! wait_first "$out" "$limit" && running "$TO_PID"; then
          ev="$ev | its first output ($FIRST_N lines /$FIRST_RE/) did not come in ${limit}s; signalled anyway"
          # a running target does all of this continuously: nothing in 20 s is a failure
          [ "$STOPPED" = 1 ] && [ "$mode" != stopmid ] || cats="$cats other"
        fi
        if [ "$mode" = stopmid ] && running "$TO_PID"; then
          kill -STOP "$TARGET_PID"
          sleep 0.3
          mem0=$(mem_value); sleep 0.5; mem1=$(mem_value)
          if [ -n "$mem0" ] && [ "$mem0" != "$mem1" ]; then
            cats="$cats unstopped"
            ev="$ev | SIGSTOPped mid-session, it kept running while traced ($MEM_SYM $mem0 -> $mem1 in 0.5 s; threads $(threads_view "$TARGET_PID"))"
          fi
        fi
        [ "$STYLE" = int ] && sig=INT || sig=TERM;;
      bounded)
        if [ "$STOPPED" = 1 ]; then
          # a stopped target produces nothing: Ctrl-C it after a grace period
          wait_end "$GRACE" || sig=INT
        elif ! wait_end "$SESSION_TIMEOUT"; then
          hang=1; sig=INT
          ev="$ev | still running after ${SESSION_TIMEOUT}s; the target's threads then (tid:state:TracerPid:wchan): $(threads_wchan "$TARGET_PID"); Ctrl-C sent"
        fi;;
    esac
    if [ -n "$sig" ] && running "$TO_PID"; then
      if [ "$sig" = INT ]; then
        kill -INT -- "-$TO_PID" 2>/dev/null   # Ctrl-C: the whole session's process group
      else
        local ap; ap=$(asmspy_pid)
        [ -n "$ap" ] && kill -TERM "$ap" 2>/dev/null   # kill(1): asmspy alone
      fi
      sig_sent=1; signalled=SIG$sig
      local t_sig; t_sig=$(now_us)
      if ! wait_end "$SIGNAL_WAIT"; then
        hang=1; ev="$ev | still running ${SIGNAL_WAIT}s after SIG$sig"
      else
        signalled="SIG$sig, exit $(awk -v d=$(( $(now_us) - t_sig )) 'BEGIN {printf "%.2f", d / 1e6}') s after it"
      fi
    fi
    wait "$TO_PID"; rc=$?
    TO_PID=""
    case $rc in
      124) hang=1; ev="$ev | still running after ${tmo}s (the backstop timeout sent SIGINT)";;
      137) hang=1; ev="$ev | had to be SIGKILLed (ignored SIGINT for 10 s)";;
      0) ;;
      130|143) [ $sig_sent = 1 ] || { cats="$cats error"; ev="$ev | asmspy exit $rc with no signal from us"; };;
      *) cats="$cats error"; ev="$ev | asmspy exit $rc: $(tail -n2 "$err" | tr '\n' ' ')";;
    esac
  fi
  [ $hang = 1 ] && cats="$cats hang"

  # --- the target
  local tv bad i=0 alive=1
  # a tracer child may still be finishing its detach: allow it a moment
  while [ $i -lt 40 ]; do
    tv=$(threads_view "$TARGET_PID")
    any_traced "$tv" >/dev/null || any_state "$tv" t >/dev/null || break
    sleep 0.05; i=$((i + 1))
  done
  local st; st=$(state_of "$TARGET_PID")
  if [ "$st" = Z ] || [ "$st" = gone ]; then
    alive=0
    reap_target
    cats="$cats death"; ev="$ev | target $TARGET_PID $REAP_MSG (threads before: $before)"
  else
    if bad=$(any_traced "$tv"); then
      local tr=${bad##*:}
      cats="$cats frozen"
      ev="$ev | thread $bad still traced 2 s after asmspy ended: tracer $tr ($(cat /proc/"$tr"/comm 2>/dev/null || echo gone)) (threads: $tv)"
      # a tracer left behind is our own asmspy's child: end it so the next cell starts clean
      case "$(cat /proc/"$tr"/comm 2>/dev/null)" in asmspy*) kill -KILL "$tr" 2>/dev/null;; esac
    fi
    if [ "$STOPPED" = 1 ]; then
      if bad=$(any_state "$tv" t); then
        cats="$cats frozen"; ev="$ev | thread $bad in ptrace stop 't' after the session (threads: $tv)"
      elif bad=$(any_state "$tv" RSD); then
        cats="$cats unstopped"; ev="$ev | was stopped (T) before, thread $bad is running after (threads: $tv)"
      fi
      if [ "$mode" != stopmid ] && [ -n "$mem0" ]; then
        mem1=$(mem_value)
        if [ "$mem0" != "$mem1" ]; then
          cats="$cats unstopped"; ev="$ev | it ran while stopped: $MEM_SYM $mem0 -> $mem1 across the session"
        fi
      fi
      # SIGCONT resumes it
      kill -CONT "$TARGET_PID"
      local p
      if ! p=$(progress "$TARGET_PID" "$PROG"); then
        cats="$cats frozen"; ev="$ev | SIGCONT did not resume it: $p (threads: $(threads_view "$TARGET_PID"))"
      fi
    else
      if bad=$(any_state "$tv" Tt); then
        cats="$cats frozen"; ev="$ev | thread $bad is stopped after the session (threads: $tv; before: $before)"
      else
        local p
        if ! p=$(progress "$TARGET_PID" "$PROG"); then
          cats="$cats frozen"; ev="$ev | $p (threads: $(threads_view "$TARGET_PID"))"
        fi
      fi
    fi
    # a death shortly after the detach (a trap left behind) belongs to this
    # session (one later than this is reported as "late" before the next)
    sleep 0.1
    st=$(state_of "$TARGET_PID")
    if [ "$st" = Z ] || [ "$st" = gone ]; then
      reap_target
      alive=0; cats="$cats death"; ev="$ev | target $TARGET_PID $REAP_MSG just after the session"
    fi
  fi
  if [ "$kind" = forkloop ] && [ -s "$TARGET_ERR" ]; then
    local n; n=$(wc -l <"$TARGET_ERR")
    if [ "$n" -gt "${FORK_ERR_LINES:-0}" ]; then
      cats="$cats other"; ev="$ev | a forked child died: $(tail -n +$((${FORK_ERR_LINES:-0} + 1)) "$TARGET_ERR" | head -2 | tr '\n' ' ')"
      FORK_ERR_LINES=$n
    fi
  fi

  # --- the output
  local chk footer reason status
  if [ "$rc" = 137 ]; then
    :   # SIGKILLed after a hang: a cut recording is the hang's consequence
  elif [ -s "$rec" ]; then
    chk=$("$ASMTRACE_CHECK" "$rec" 2>&1); local crc=$?
    [ $crc = 0 ] || { cats="$cats invalid"; ev="$ev | recording: $chk"; }
  elif [ "$rc" = 0 ] || [ $sig_sent = 1 ]; then
    cats="$cats invalid"; ev="$ev | no recording written"
  fi
  if [ $json = 1 ] && [ -s "$out" ] && [ "$rc" != 137 ]; then
    chk=$("$ASMTRACE_CHECK" "$out" 2>&1) || { cats="$cats invalid"; ev="$ev | --json stdout: $chk"; }
  fi
  footer=$(footer_of "$rec")
  reason=$(json_field "$footer" reason)
  status=$(json_field "$footer" status)
  if grep -q '^# SKIP' "$out" 2>/dev/null; then
    SKIP_LINE=$(grep -m1 '^# SKIP' "$out")
  else
    SKIP_LINE=""
  fi

  # --- the end reason
  if [ -n "$footer" ] && [ $alive = 1 ] && [ $hang = 0 ]; then
    if [ "$reason" = target_exited ] || [ "$reason" = target_killed ] || [ "$status" = 102 ]; then
      cats="$cats wrong_end"; ev="$ev | footer claims the target ended ($reason, status $status); it is alive ($(state_of "$TARGET_PID"))"
    elif [ -n "$signalled" ]; then
      # ended by us (Ctrl-C, SIGTERM, serve stop): interrupted; a bounded
      # run on a stopped target may have finished on its own just before
      case "$reason" in
        interrupted) ;;
        n_reached|completed) [ "$STYLE" = bounded ] || { cats="$cats wrong_end"; ev="$ev | ended by ${signalled%%,*} but the footer says $reason"; };;
        *) cats="$cats wrong_end"; ev="$ev | ended by ${signalled%%,*} but the footer says $reason";;
      esac
    else
      case "$reason" in
        n_reached|completed) ;;
        error) cats="$cats error";;
        *) cats="$cats wrong_end"; ev="$ev | ended on its own, the footer says $reason";;
      esac
    fi
    if [ "$status" = 101 ] && [ "$STOPPED" = 0 ]; then
      cats="$cats other"; ev="$ev | $FN not seen entering, but the target calls it all the time: $(grep -m1 'not seen' "$out" "$err" | head -1)"
    fi
  fi

  # --- verdict
  cats=$(tr ' ' '\n' <<<"$cats" | awk 'NF && !seen[$0]++' | tr '\n' ' ')
  cats=${cats% }
  if [ -n "$cats" ]; then
    FAILED=$((FAILED + 1))
    echo "FAIL [$cats] $kind/$mode #$run: $cmd"
    echo "     target: $TARGET_DESC, pid $TARGET_PID; before: $before"
    echo "     evidence:${ev# |}"
    echo "     asmspy exit $rc${signalled:+ (ended by $signalled)}; footer: ${footer:-none}; stderr: $(grep -v '^# codeimage:' "$err" 2>/dev/null | tail -n3 | tr '\n' ' ' | cut -c1-500)"
    echo "     output tail: $(tail -n2 "$out" 2>/dev/null | cut -c1-200 | tr '\n' ' ')"
    if [ -n "$ARTIFACTS" ]; then
      local keep="$ARTIFACTS/$kind.$mode.$run.$$"
      mkdir -p "$keep" && cp -r "$d"/. "$keep"/ && echo "     files: $keep"
    fi
    emit "$kind" "$mode" "$run" fail "$cats"
  elif [ -n "$SKIP_LINE" ]; then
    echo "SKIP $kind/$mode #$run: $SKIP_LINE (target checked: survived)"
    emit "$kind" "$mode" "$run" skip skip
  else
    say "ok   $kind/$mode #$run: ${footer:+end=$reason events=$(json_field "$footer" events)}${status:+$([ "$status" != 0 ] && echo " status=$status")}${signalled:+ (ended by $signalled)} [$(elapsed "$t_start") s]"
    emit "$kind" "$mode" "$run" pass ""
  fi
  rm -rf "$d"

  # restart the target when this session killed, froze or left it traced
  if [ $alive = 0 ] || [[ " $cats " == *" frozen "* ]] || [[ " $cats " == *" unstopped "* ]]; then
    stop_target_process
    say "     (restarting the $kind target)"
    start_target "$kind"
    FORK_ERR_LINES=0
  elif [ "$STOPPED" = 1 ]; then
    stop_target || { stop_target_process; start_target "$kind"; }
  fi
}

late_emit() { # "kind mode run": a death noticed only before the next session
  # shellcheck disable=SC2086
  set -- $1
  local line="LATE $1 $2 $3 death=1"
  CNT[$1/$2/death]=$(( ${CNT[$1/$2/death]:-0} + 1 ))
  if [ "$LAST_VERDICT" = pass ]; then
    CNT[$1/$2/pass]=$(( ${CNT[$1/$2/pass]:-0} - 1 )); PASSED=$((PASSED - 1))
  fi
  LAST_VERDICT=fail
  say "$line"
  [ -n "$RESULTS" ] && echo "$line" >>"$RESULTS"
}

emit() { # kind mode run verdict cats
  local line="RESULT $1 $2 $3 $4" c
  for c in death frozen hang invalid wrong_end unstopped error other skip; do
    if [[ " $5 " == *" $c "* ]]; then line="$line $c=1"; CNT[$1/$2/$c]=$(( ${CNT[$1/$2/$c]:-0} + 1 )); else line="$line $c=0"; fi
  done
  CNT[$1/$2/runs]=$(( ${CNT[$1/$2/runs]:-0} + 1 ))
  LAST_VERDICT=$4
  [ "$4" = pass ] && { CNT[$1/$2/pass]=$(( ${CNT[$1/$2/pass]:-0} + 1 )); PASSED=$((PASSED + 1)); }
  [ "$4" = skip ] && SKIPPED=$((SKIPPED + 1))
  say "$line"
  [ -n "$RESULTS" ] && echo "$line" >>"$RESULTS"
}

table() { # kind modes...
  local kind=$1 m c; shift
  printf '%-10s %-14s %5s %5s %6s %6s %5s %7s %9s %9s %5s %5s %5s\n' kind mode runs pass deaths frozen hangs invalid wrong_end unstopped error other skip
  for m in "$@"; do
    printf '%-10s %-14s %5s %5s' "$kind" "$m" "${CNT[$kind/$m/runs]:-0}" "${CNT[$kind/$m/pass]:-0}"
    for c in death frozen hang invalid wrong_end unstopped error other skip; do
      printf ' %*s' "$(case $c in death|frozen) echo 6;; invalid) echo 7;; wrong_end|unstopped) echo 9;; *) echo 5;; esac)" "${CNT[$kind/$m/$c]:-0}"
    done
    printf '\n'
  done
}

# ---------------------------------------------------------------- main

run_kind() {
  local kind=$1 run m modes=$MODES
  prepare_kind "$kind"
  if [ -n "$KIND_SKIP" ]; then
    echo "SKIP $kind: $KIND_SKIP"
    return 1
  fi
  # stopmid (SIGSTOP sent during a --log session) belongs to the stopped kind:
  # added there to the default modes, dropped elsewhere
  if [ "$kind" = stopped ]; then
    [ "$MODES" = "$ALL_MODES" ] && modes="$modes stopmid"
  else
    modes=$(tr ' ' '\n' <<<"$modes" | grep -vx stopmid | tr '\n' ' ')
  fi
  start_target "$kind"
  FORK_ERR_LINES=0
  echo "== $kind: $TARGET_DESC, pid $TARGET_PID; $REPS run(s) of: $modes"
  for run in $(seq 1 "$REPS"); do
    for m in $modes; do
      run_session "$kind" "$m" "$run"
    done
  done
  stop_target_process
  # shellcheck disable=SC2086
  [ "$QUIET" = 1 ] || table "$kind" $modes
  return 0
}

kinds=("$@")
# shellcheck disable=SC2206
[ ${#kinds[@]} = 0 ] || [ "${kinds[0]}" = all ] && kinds=($ALL_KINDS)
ran=0
for k in "${kinds[@]}"; do
  run_kind "$k" && ran=$((ran + 1))
done
echo "survival: $PASSED passed, $FAILED failed, $SKIPPED skipped (kinds run: $ran of ${#kinds[@]})"
[ $ran = 0 ] && exit 77
[ $FAILED = 0 ] || exit 1
exit 0
