#!/bin/bash
# harm.sh — issue 24's "the target is never harmed" suite for the call
# capture (--graph / --tree / --calls on the entrypatch backend).
#
#   harm.sh GROUP...   c cxx rust go coroutines signals threads concurrent
#                      interp, or all
#
# Every program (tests/harm/*: self-checking, built as users build them)
# runs rounds forever and prints `<pid> ready reference=X`, then `round N OK`
# or `round N CORRUPT <what>` (harm.h). Against each running program this
# runs asmspy sessions, each `MODE:ENDING`:
#   MODE    graph | tree | calls (`asmspy --MODE <pid> [n]`)
#   ENDING  count  n = 2000 (graph: verified calls; calls: entries) or 200
#                  (tree: printed lines): asmspy ends on its own
#           int    n = -1, SIGINT to asmspy's whole process group (Ctrl-C)
#                  once it has patched and the program ran 2 rounds patched
#           term   n = -1, SIGTERM to asmspy alone (kill(1)), likewise
#           kill   n = -1, SIGKILL to asmspy's whole process group (its
#                  supervisor too: nobody is left to restore the code).
#                  After it the program must live on (alive, not traced, not
#                  stopped, rounds OK); the code and mapping checks are then
#                  owed by the NEXT session, which must leave the process
#                  as clean as any other (leftovers are printed as a note)
# and after EACH session asserts, printing the program, mode, ending and
# the evidence on failure:
#   - the program is alive (else: the signal that killed it, its last lines)
#   - no `CORRUPT` line (the line is printed)
#   - every thread's TracerPid is 0, no thread stopped (T/t)
#   - it still prints rounds (2 more, bounded by ROUND_WAIT seconds)
#   - the executable segments of the main executable and of every patched
#     module equal the ELF file (tests/calls/code_equals_elf.py), and every
#     read-only ELF mapping equals its file (maps_equal_files.py: a `.debug`
#     file a backtrace mapped, the executable mapped by the program)
#   - no mapping named asmspy (asmspy-agent-*, memfd:asmspy-calls) left, no
#     more anonymous r-xp mappings than before the first session
# and after a program's last session: its mapping count and VmSize did not
# grow past what the program itself grows (a per-program slack) since
# before the first session.
# asmspy refusing a program (exit status, a `refused`/`SKIP`/fallback note)
# is a pass only when the program is unharmed; what asmspy said is printed.
#
# Default plan (HARM_FULL unset): per program one session of each ending
# over the modes — graph:count tree:int calls:term graph:kill calls:count —
# or fewer for the slow ones; HARM_FULL=1: every mode x every ending, REPS
# times (REPS default 2). Special sessions: harm_threads' counted batch (the
# count asmspy reports for counted_fn must equal the program's, or a loss
# must be reported loudly), two concurrent sessions on one pid, five --graph
# sessions in a row, `--launch calls -- prog` (harm_cxx, harm_ipara).
#
# Environment (meson sets the first four):
#   ASMSPY      the built CLI
#   HARM_DIR    the built harm programs
#   HARM_SRC    this directory (sources, helpers)
#   CALLS_SRC   tests/calls (lib.sh, code_equals_elf.py)
#   HARM_FULL=1 the whole matrix;  REPS=2 its repetitions
#   SESSION_TIMEOUT=20  s a session may take (its expiry is a hang failure)
#   ROUND_WAIT=15       s without a round AND without progress (the program's
#                       CPU time, the session's output) that make a hang
#                       (while patched too; at most 8 * ROUND_WAIT in all)
#   ARTIFACTS=<dir>     keep failing sessions' files (asmspy out/err, maps)
#   RESULTS=<file>      also append `RESULT group prog mode:ending verdict`
#                       lines there (scripts/soak.sh --harm counts them)
# Time bounds only turn a hang into a failure; nothing asserts on speed.
# Exit: 0 all passed, 1 some failed, 77 nothing could run (toolchain absent).

HERE=$(cd "$(dirname "$0")" && pwd)
: "${ASMSPY:?ASMSPY must name the built asmspy}"
: "${HARM_DIR:?HARM_DIR must name the built harm programs}"
HARM_SRC=${HARM_SRC:-$HERE}
CALLS_SRC=${CALLS_SRC:-$HERE/../calls}
# lib.sh: TMP (removed at exit), PIDS (killed at exit), require_entrypatch,
# rings, skip; proc_lib.sh: state_of threads_view any_traced any_state
. "$CALLS_SRC/lib.sh"
. "$HERE/../survival/proc_lib.sh"
set +e
set -u
SESSION_TIMEOUT=${SESSION_TIMEOUT:-20}
ROUND_WAIT=${ROUND_WAIT:-15}
SIGNAL_WAIT=${SIGNAL_WAIT:-20}
HARM_FULL=${HARM_FULL:-0}
REPS=${REPS:-${HARM_DEFAULT_REPS:-2}}
ARTIFACTS=${ARTIFACTS:-}
RESULTS=${RESULTS:-}
DEFAULT_PLAN="graph:count tree:int calls:term graph:kill calls:count"
FULL_PLAN=""
for m in graph tree calls; do for e in count int term kill; do FULL_PLAN="$FULL_PLAN $m:$e"; done; done

FAILED=0
PASSED=0
SKIPPED=0
GROUP=""
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}'; }

result() { # verdict prog desc
  [ -n "$RESULTS" ] && echo "RESULT $GROUP $2 ${3// /_} $1" >>"$RESULTS"
  case $1 in pass) PASSED=$((PASSED + 1));; fail) FAILED=$((FAILED + 1));; skip) SKIPPED=$((SKIPPED + 1));; esac
}

# ---------------------------------------------------------------- programs
#
# start_prog NAME CMD...: start a program (stdout into a file), wait for its
# ready line; sets P_NAME P_PID P_OUT P_CMD P_REF, and the baseline
# (B_MAPS B_VM B_ANONX) once it has run two rounds.
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
    if [ $i -gt 2400 ] || ! kill -0 "$P_BG" 2>/dev/null; then
      echo "HARNESS ERROR: $P_NAME never said ready: $(tail -3 "$P_OUT" "$P_OUT.err" | tr '\n' ' ')" >&2
      P_PID=""
      return 1
    fi
  done
  P_PID=$(awk '/ ready reference=/ {print $1; exit}' "$P_OUT")
  P_REF=$(sed -n 's/.* ready reference=\([^ ]*\).*/\1/p' "$P_OUT" | head -1)
  PIDS="$PIDS $P_PID"
  P_CORRUPT_SEEN=0
  P_RESTARTED=${P_RESTARTED:-0}
  wait_rounds 2 >/dev/null || { echo "HARNESS ERROR: $P_NAME printed no rounds on its own: $(tail -3 "$P_OUT")" >&2; return 1; }
  baseline
}
rounds_of() { grep -c '^round ' "$P_OUT" 2>/dev/null; }
# progress_mark: what moves while the program and a session work: the
# program's CPU time and the session's output so far
progress_mark() {
  local cpu out=0
  cpu=$(awk '{print $14 + $15}' "/proc/$P_PID/stat" 2>/dev/null)
  [ -n "${S_OUT:-}" ] && out=$(stat -c %s "$S_OUT" 2>/dev/null || echo 0)
  echo "${cpu:-0}:$out"
}
# wait_rounds N: until the program printed N more rounds. A hang is no round
# and no progress (the program's CPU time and the session's output both
# still) for ROUND_WAIT s: on a loaded machine a traced round may take long
# while the program waits for a starved reader (backpressure), and that is
# not a hang. Bounded by 8 * ROUND_WAIT in all.
wait_rounds() {
  local want=$(( $(rounds_of) + $1 )) now; now=$(date +%s)
  local deadline=$(( now + ROUND_WAIT )) cap=$(( now + 8 * ROUND_WAIT )) mark; mark=$(progress_mark)
  while [ "$(rounds_of)" -lt "$want" ]; do
    now=$(date +%s)
    if [ "$now" -ge "$deadline" ] && [ "$now" -lt "$cap" ]; then
      local m; m=$(progress_mark)
      if [ "$m" != "$mark" ]; then mark=$m; deadline=$(( now + ROUND_WAIT )); fi
    fi
    [ "$now" -lt "$deadline" ] && [ "$now" -lt "$cap" ] || { echo "no new round and no progress for ${ROUND_WAIT}s (last: $(grep '^round ' "$P_OUT" | tail -1))"; return 1; }
    local st; st=$(state_of "$P_PID")
    [ "$st" = gone ] || [ "$st" = Z ] && { echo "the program is gone"; return 1; }
    sleep 0.05
  done
}
# maps_snapshot FILE: copy the maps once and print "ARENAS VM_KB MAPPINGS"
# of that one instant (glibc malloc arena heaps are the program's own 64 MiB
# reservations; VmSize is the sum of the mappings)
maps_snapshot() {
  cp "/proc/$P_PID/maps" "$1" 2>/dev/null || : >"$1"
  python3 "$HARM_SRC/malloc_arenas.py" "$1"
}
# anonymous executable mappings (unnamed, or named [anon:...])
anon_x() { awk '$2 ~ /x/ && (NF == 5 || $6 ~ /^\[anon:/)' "/proc/$P_PID/maps" 2>/dev/null | wc -l; }
baseline() {
  B_MAPSFILE="$TMP/$P_NAME.$P_SEQ.maps"
  read -r B_ARENAS B_VM B_MAPS < <(maps_snapshot "$B_MAPSFILE")
  B_ANONX=$(anon_x)
}
stop_prog() {
  [ -n "$P_PID" ] || return 0
  kill -KILL "$P_PID" 2>/dev/null
  wait "$P_BG" 2>/dev/null
  P_PID=""
}

# per-program knobs, set before start_prog by the group:
#   MODULES     patched modules besides the executable (--module=... is
#               added to every session; their code is checked too)
#   JIT=1       the program makes anonymous executable mappings itself
#   MAPS_SLACK VM_SLACK_KB  what the program may grow by itself
reset_knobs() { MODULES=""; JIT=0; MAPS_SLACK=6; VM_SLACK_KB=8192; EXTRA=(); }

# ---------------------------------------------------------------- sessions

count_of() { case $1 in tree) echo 200;; *) echo 2000;; esac; }

# wait_patched_or_gone APID BEFORE: until asmspy has patched the program
# (a new call ring mapped, nobody tracing it) or asmspy ended (refused);
# 3: it fell back to a stepping backend (its note says so) and is tracing
wait_patched_or_gone() {
  local a=$1 before=$2 i=0
  while [ $i -lt $((SESSION_TIMEOUT * 20)) ]; do
    kill -0 "$a" 2>/dev/null || return 1
    local tracer; tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$P_PID/status" 2>/dev/null)
    if [ "$(rings "$P_PID")" -gt "$before" ] && [ "$tracer" = 0 ]; then
      return 0
    fi
    if [ -n "$tracer" ] && [ "$tracer" != 0 ] &&
       grep -qs 'runs on [a-z_]* instead' "$S_ERR" "$S_OUT"; then
      return 3
    fi
    sleep 0.05; i=$((i + 1))
  done
  return 2
}

# group_gone PGID: every process of the group has ended
group_gone() { ! pgrep -g "$1" >/dev/null 2>&1; }

# start_session NAME ARGS...: asmspy in its own session/process group
# (pgid = its pid); sets S_PID S_OUT S_ERR
start_session() {
  local tag=$1; shift
  S_OUT="$SDIR/$tag.out"; S_ERR="$SDIR/$tag.err"
  setsid "$ASMSPY" "$@" >"$S_OUT" 2>"$S_ERR" &
  S_PID=$!
}

# end_session APID ENDING: send the ending, wait for asmspy's end; sets
# S_RC, appends to EV on a hang
end_session() {
  local a=$1 ending=$2 i=0
  case $ending in
    int) kill -INT -- "-$a" 2>/dev/null;;
    term) kill -TERM "$a" 2>/dev/null;;
    kill) kill -KILL -- "-$a" 2>/dev/null;;
  esac
  while kill -0 "$a" 2>/dev/null && [ $i -lt $((SIGNAL_WAIT * 20)) ]; do sleep 0.05; i=$((i + 1)); done
  if kill -0 "$a" 2>/dev/null; then
    EV+=("asmspy still running ${SIGNAL_WAIT}s after SIG${ending^^}: SIGKILLed")
    kill -KILL -- "-$a" 2>/dev/null
  fi
  wait "$a" 2>/dev/null
  S_RC=$?
  # its tracer child may outlive it a moment (detaching)
  i=0
  while ! group_gone "$a" && [ $i -lt $((SIGNAL_WAIT * 20)) ]; do sleep 0.05; i=$((i + 1)); done
  group_gone "$a" || { EV+=("asmspy's process group still has $(pgrep -g "$a" | tr '\n' ' ')after it ended: SIGKILLed"); kill -KILL -- "-$a" 2>/dev/null; }
}

# run_count_session APID: wait (bounded) for a counted session to end
wait_count_session() {
  local a=$1 i=0
  while kill -0 "$a" 2>/dev/null && [ $i -lt $((SESSION_TIMEOUT * 20)) ]; do sleep 0.05; i=$((i + 1)); done
  if kill -0 "$a" 2>/dev/null; then
    EV+=("hang: asmspy did not reach its count in ${SESSION_TIMEOUT}s (program's last line: $(tail -1 "$P_OUT")); Ctrl-C sent")
    end_session "$a" int
  else
    wait "$a" 2>/dev/null
    S_RC=$?
  fi
}

# said APID-files: what asmspy said (notes, refusals), one line
said() {
  grep -hv '^#   refused\|^\s*$' "$S_ERR" 2>/dev/null | grep -v "^# codeimage" | head -6 | cut -c1-300 | tr '\n' ' '
}

# session MODE:ENDING — one asmspy session against the running program
# (P_PID), then the checks
session() {
  local spec=$1 mode=${1%%:*} ending=${1#*:}
  SDIR="$TMP/s.$P_NAME.$mode.$ending.$RANDOM"
  mkdir -p "$SDIR"
  EV=()
  NOTES=()
  local t0; t0=$(now)
  local n; n=$(count_of "$mode")
  [ "$ending" = count ] || n=-1
  local mods=()
  local m
  for m in $MODULES; do mods+=(--module="$m"); done
  local before; before=$(rings "$P_PID")
  SCMD="asmspy --$mode $P_PID $n ${mods[*]} ${EXTRA[*]}"
  start_session main "--$mode" "$P_PID" "$n" "${mods[@]}" "${EXTRA[@]}"
  local a=$S_PID
  S_RC=0
  if [ "$ending" = count ]; then
    wait_count_session "$a"
  else
    wait_patched_or_gone "$a" "$before"
    case $? in
      0) local w; w=$(wait_rounds 2) || { [[ $w == "no new round"* ]] && w="$w (a hang under the capture)"; EV+=("while patched: $w"); };;
      1) NOTES+=("asmspy ended before it patched anything");;
      2) EV+=("hang: asmspy never patched the program in ${SESSION_TIMEOUT}s");;
      3) NOTES+=("fell back to stepping: $(grep -hs 'runs on [a-z_]* instead' "$S_ERR" "$S_OUT" | head -1 | cut -c1-200)")
         sleep 0.5;; # a stepped program prints its rounds slowly: let it be stepped a while
    esac
    end_session "$a" "$ending"
  fi
  check_after "$spec" "$ending" "$t0"
}

# rc_note: asmspy's exit explained
rc_note() {
  local rc=$1 ending=$2
  case "$rc:$ending" in
    0:*|130:int|143:term|137:kill) ;;
    *)
      if [ "$rc" -gt 128 ] && [ "$rc" != 130 ] && [ "$rc" != 143 ]; then
        EV+=("asmspy itself died of SIG$(kill -l $((rc - 128)) 2>/dev/null) (exit $rc)")
      else
        NOTES+=("asmspy exit $rc")
      fi;;
  esac
  # a refusal or a fallback (not entrypatch's per-function "refused N")
  local re='refus(es|ing|ed to)|SKIP|fall(ing|s)? ?back|--backend=singlestep|will not'
  local what; what=$({ cat "$S_ERR"; grep '^#' "$S_OUT"; } 2>/dev/null | grep -iE "$re" | grep -v '^# entrypatch: ')
  if [ -n "$what" ]; then
    NOTES+=("asmspy said: $(head -3 <<<"$what" | cut -c1-200 | tr '\n' ' ')")
  fi
}

# check_after DESC ENDING T0: the program as asmspy found it?
check_after() {
  local desc=$1 ending=$2 t0=$3 i=0 tv bad st
  rc_note "$S_RC" "$ending"
  # a tracer may still be finishing its detach (after a SIGKILL of asmspy's
  # group, its tracer, in a group of its own, leaves on its own)
  while [ $i -lt $((SIGNAL_WAIT * 20)) ]; do
    tv=$(threads_view "$P_PID")
    any_traced "$tv" >/dev/null || any_state "$tv" t >/dev/null || break
    sleep 0.05; i=$((i + 1))
  done
  st=$(state_of "$P_PID")
  local alive=1
  if [ "$st" != gone ] && [ "$st" != Z ]; then
    if bad=$(any_traced "$tv"); then EV+=("thread $bad still traced (tid:state:TracerPid) after asmspy ended"); fi
    if bad=$(any_state "$tv" Tt); then EV+=("thread $bad stopped after asmspy ended"); fi
    local w; w=$(wait_rounds 2) || EV+=("not printing rounds: $w")
    st=$(state_of "$P_PID")
  fi
  if [ "$st" = gone ] || [ "$st" = Z ]; then
    alive=0
    wait "$P_BG" 2>/dev/null
    local rc=$? how
    if [ $rc -gt 128 ]; then how="killed by SIG$(kill -l $((rc - 128)) 2>/dev/null) (status $rc)"; else how="exited with status $rc"; fi
    [ "$P_BG" = "$P_PID" ] || how="gone (not our child: status unknown)"
    local why; why=$(grep -m3 -hE 'fatal error|unknown pc|^SIG|signal|panic|terminate|what\(\)' "$P_OUT.err" 2>/dev/null | tr '\n' ' ' | cut -c1-300)
    EV+=("the program died: $how; ${why:+its stderr: $why; }its last lines: $(tail -n 3 "$P_OUT" 2>/dev/null | tr '\n' ' ' | cut -c1-300)")
  fi
  local c; c=$(grep -c 'CORRUPT' "$P_OUT")
  if [ "$c" -gt "$P_CORRUPT_SEEN" ]; then
    EV+=("$((c - P_CORRUPT_SEEN)) new CORRUPT round(s): $(grep CORRUPT "$P_OUT" | sed -n "$((P_CORRUPT_SEEN + 1))p" | cut -c1-300)")
    P_CORRUPT_SEEN=$c
  fi
  if [ $alive = 1 ]; then
    local clean=()
    local eq
    eq=$(python3 "$CALLS_SRC/code_equals_elf.py" "$P_PID" 2>&1) || clean+=("code differs from the ELF: $eq")
    local m
    for m in $MODULES; do
      eq=$(python3 "$CALLS_SRC/code_equals_elf.py" "$P_PID" "$m" 2>&1) || clean+=("code of $m differs: $eq")
    done
    eq=$(python3 "$HARM_SRC/maps_equal_files.py" "$P_PID" 2>&1) || clean+=("a read-only file mapping was written: $(head -3 <<<"$eq" | tr '\n' ' ')")
    local left; left=$(grep -E 'asmspy-agent|memfd:asmspy|anon:asmspy' "/proc/$P_PID/maps" 2>/dev/null)
    [ -z "$left" ] || clean+=("asmspy mappings left: $(tr '\n' ';' <<<"$left" | cut -c1-600)")
    if [ "$JIT" = 0 ]; then
      local ax; ax=$(anon_x)
      [ "$ax" -le "$B_ANONX" ] || clean+=("$((ax - B_ANONX)) more anonymous executable mapping(s) than before the first session: $(awk '$2 ~ /x/ && (NF == 5 || $6 ~ /^\[anon:/)' "/proc/$P_PID/maps" | tr '\n' ';' | cut -c1-400)")
    fi
    if [ "$ending" = kill ]; then
      # nobody was left to restore: the next session owes it
      [ ${#clean[@]} = 0 ] || NOTES+=("left after SIGKILL of asmspy's whole group (the next session must clean up): ${clean[*]}")
    else
      EV+=("${clean[@]}")
    fi
  fi
  report "$desc" "$t0"
  if [ $alive = 0 ]; then
    stop_prog
    echo "     (restarting $P_NAME)"
    P_RESTARTED=1
    start_prog "$P_NAME" "${P_CMD[@]}" || true
  fi
}

# report DESC T0: the verdict line of a session (EV: evidence, NOTES)
report() {
  local desc=$1 t0=$2
  local n=${#NOTES[@]}
  if [ ${#EV[@]} -gt 0 ]; then
    echo "FAIL $GROUP/$P_NAME $desc [$(elapsed_since "$t0") s]: $SCMD"
    local e
    for e in "${EV[@]}"; do echo "     evidence: $e"; done
    [ "$n" = 0 ] || echo "     notes: ${NOTES[*]}"
    echo "     asmspy exit $S_RC; stderr: $(said)"
    if [ -n "$ARTIFACTS" ]; then
      local keep="$ARTIFACTS/$P_NAME.${desc//[:\/ ]/_}.$$.$RANDOM"
      mkdir -p "$keep" && cp -r "$SDIR"/. "$keep"/ && cp "$P_OUT" "$keep/program.out" &&
        cp "/proc/$P_PID/maps" "$keep/maps" 2>/dev/null; echo "     files: $keep"
    fi
    result fail "$P_NAME" "$desc"
  else
    echo "ok   $GROUP/$P_NAME $desc [$(elapsed_since "$t0") s]${NOTES[*]:+ — note: ${NOTES[*]}}"
    [ "${S_RC:-0}" = 0 ] || [ "$S_RC" = 130 ] || [ "$S_RC" = 143 ] || [ "$S_RC" = 137 ] || echo "     asmspy exit $S_RC; stderr: $(said)"
    result pass "$P_NAME" "$desc"
  fi
}

# growth_check: after the program's sessions, against the first baseline
growth_check() {
  [ -n "$P_PID" ] || return 0
  if [ "${P_RESTARTED:-0}" = 1 ]; then
    echo "SKIP $GROUP/$P_NAME growth over $1 sessions: the program died and was restarted in between"
    result skip "$P_NAME" growth
    return 0
  fi
  local t0; t0=$(now)
  EV=(); NOTES=(); SCMD="(the sessions above)"; S_RC=0; SDIR="$TMP/growth"; mkdir -p "$SDIR"; : >"$SDIR/main.err"; S_ERR=$SDIR/main.err
  local m v a na; read -r a v m < <(maps_snapshot "$SDIR/now.maps")
  # new malloc arenas are the program's (glibc makes one per contending
  # thread, likelier while a thread is slowed): 64 MiB and two mappings each
  na=$((a > B_ARENAS ? a - B_ARENAS : 0))
  [ "$m" -le $((B_MAPS + MAPS_SLACK + 2 * na)) ] || EV+=("mappings grew $B_MAPS -> $m over $1 sessions (the program's own slack: $MAPS_SLACK, new malloc arenas: $na)")
  [ "$v" -le $((B_VM + VM_SLACK_KB + 65536 * na)) ] || EV+=("VmSize grew $B_VM -> $v kB over $1 sessions (the program's own slack: $VM_SLACK_KB kB, new malloc arenas: $na x 64 MiB)")
  NOTES+=("mappings $B_MAPS -> $m, VmSize $B_VM -> $v kB, malloc arenas $B_ARENAS -> $a")
  # what grew, named: the mappings that were not there at the baseline
  [ ${#EV[@]} -eq 0 ] || NOTES+=("new mappings: $(grep -vxFf "$B_MAPSFILE" "$SDIR/now.maps" 2>/dev/null | head -12 | tr -s ' ' | tr '\n' ';')")
  report "growth over $1 sessions" "$t0"
}

# run_plan PLAN...: the sessions, then the growth check
run_plan() {
  local s k=0 plan=("$@")
  if [ "$HARM_FULL" = 1 ]; then
    plan=()
    for _ in $(seq 1 "$REPS"); do plan+=($FULL_PLAN); done
  fi
  for s in "${plan[@]}"; do
    [ -n "$P_PID" ] || return
    session "$s"; k=$((k + 1))
  done
  [ $k -ge 3 ] && growth_check "$k"
}

# program NAME PLAN CMD...: start, run the plan, stop
program() {
  local name=$1 plan=$2; shift 2
  P_RESTARTED=0
  start_prog "$name" "$@" || { EV=("could not start: $*"); NOTES=(); SCMD=""; S_RC=0; S_ERR=/dev/null; report start "$(now)"; return; }
  echo "== $GROUP/$name: pid $P_PID, reference $P_REF; ${MODULES:+--module=$MODULES; }plan: $([ "$HARM_FULL" = 1 ] && echo "full x$REPS" || echo "$plan")"
  # shellcheck disable=SC2086
  run_plan $plan
  stop_prog
}

# launch_session NAME ENDING CMD...: `asmspy --launch calls -1 -- CMD` (the
# program writes to HARM_OUT). A launched command is asmspy's to end: once
# the program has run ROUNDS rounds traced, asmspy gets SIGTERM (term) or
# its group SIGINT (int) and the program must end by that signal (asmspy
# passes it on), never by another one (SIGILL, SIGSEGV, ...); its rounds must
# all be OK and its first round's checksum (computed traced from the start)
# must equal WANT_REF (the same program untraced). A program still running
# after asmspy ended is checked like an attached one.
launch_session() {
  local name=$1 ending=$2; shift 2
  local t0; t0=$(now)
  P_NAME=$name
  SDIR="$TMP/launch.$name.$ending.$RANDOM"; mkdir -p "$SDIR"
  EV=(); NOTES=()
  P_OUT="$SDIR/program.out"; : >"$P_OUT"
  SCMD="HARM_OUT=<file> asmspy --launch calls -1 -- $*"
  S_OUT="$SDIR/main.out"; S_ERR="$SDIR/main.err"
  HARM_OUT=$P_OUT setsid "$ASMSPY" --launch calls -1 -- "$@" >"$S_OUT" 2>"$S_ERR" &
  local a=$!
  local i=0
  while ! grep -q ' ready reference=' "$P_OUT" && [ $i -lt $((SESSION_TIMEOUT * 20)) ]; do
    kill -0 "$a" 2>/dev/null || break
    sleep 0.05; i=$((i + 1))
  done
  P_PID=$(awk '/ ready reference=/ {print $1; exit}' "$P_OUT")
  P_BG=$a
  S_RC=0
  local desc="launch calls:$ending"
  if [ -z "$P_PID" ]; then
    EV+=("the launched program never said ready (its first round): $(grep -h 'launched\|target exited' "$S_ERR" | tr '\n' ' ') $(tail -2 "$P_OUT")")
    end_session "$a" kill
    report "$desc" "$t0"
    return
  fi
  PIDS="$PIDS $P_PID"
  local ref; ref=$(sed -n 's/.* ready reference=\([^ ]*\).*/\1/p' "$P_OUT" | head -1)
  [ "$ref" = "$WANT_REF" ] || EV+=("its first round, traced from the start, computed $ref; untraced $WANT_REF")
  local w; w=$(wait_rounds 3) || EV+=("under the launch: $w")
  end_session "$a" "$ending"
  if kill -0 "$P_PID" 2>/dev/null; then
    NOTES+=("the program outlived asmspy: checked as attached")
    B_ANONX=0; P_CORRUPT_SEEN=0
    check_after "$desc" "$ending" "$t0"
    stop_prog
    return
  fi
  local sig=TERM; [ "$ending" = int ] && sig=INT
  local how; how=$(grep -o "launched .* killed by SIG[A-Z0-9]*\|launched .* exited .*" "$S_ERR" | head -1)
  case "$how" in
    *"killed by SIG$sig") NOTES+=("${how#*) }");;
    *) EV+=("the program did not end by the SIG$sig asmspy got: ${how:-asmspy said nothing about how it ended} (exit $S_RC)");;
  esac
  local c; c=$(grep -c CORRUPT "$P_OUT")
  [ "$c" = 0 ] || EV+=("$c CORRUPT round(s): $(grep -m1 CORRUPT "$P_OUT" | cut -c1-300)")
  report "$desc" "$t0"
  P_PID=""
}

# ---------------------------------------------------------------- groups

group_c() {
  reset_knobs
  local ev
  if ev=$(python3 "$HARM_SRC/ipa_live.py" "$HARM_DIR/harm_ipara" round_work mix 2>&1); then
    echo "# harm_ipara: -fipa-ra keeps values in call-clobbered registers across mix(): $(head -2 <<<"$ev" | tr '\n' ';')"
  else
    EV=("$ev"); NOTES=(); SCMD="objdump -d harm_ipara"; S_RC=0; S_ERR=/dev/null; P_NAME=harm_ipara; report "ipa-ra check" "$(now)"
  fi
  program harm_ipara "$DEFAULT_PLAN" "$HARM_DIR/harm_ipara"
  program harm_regs "$DEFAULT_PLAN" "$HARM_DIR/harm_regs"
  program harm_o3 "graph:count calls:int" "$HARM_DIR/harm_o3"
  MODULES=libc
  program harm_o3 "calls:count graph:term" "$HARM_DIR/harm_o3"   # --module=libc: mempcpy, memcpy, qsort
  MODULES=""
  program harm_cet "graph:count calls:int tree:term" "$HARM_DIR/harm_cet"
  if [ -x "$HARM_DIR/harm_static" ]; then
    program harm_static "graph:count calls:int tree:term" "$HARM_DIR/harm_static"
  else
    echo "SKIP harm_static: not built (no static libc: Debian libc6-dev's libc.a)"
  fi
  program harm_nopie "graph:count calls:int" "$HARM_DIR/harm_nopie"
  start_prog harm_ipara "$HARM_DIR/harm_ipara" && WANT_REF=$P_REF && stop_prog
  launch_session harm_ipara term "$HARM_DIR/harm_ipara"
}

group_cxx() {
  reset_knobs
  [ -x "$HARM_DIR/harm_cxx" ] || { echo "SKIP harm_cxx: not built (no C++ compiler)"; return 77; }
  local cold; cold=$(nm "$HARM_DIR/harm_cxx" | grep -c '\.cold')
  if [ "$cold" -lt 2 ]; then
    EV=("harm_cxx has $cold .cold fragments: the -O2 build no longer splits them, the test proves nothing"); NOTES=(); SCMD="nm harm_cxx"; S_RC=0; S_ERR=/dev/null; P_NAME=harm_cxx; report "cold check" "$(now)"
  else
    echo "# harm_cxx has $cold .cold fragments: $(nm -C "$HARM_DIR/harm_cxx" | grep '\.cold' | head -3 | awk '{$1=$2=""; print}' | tr '\n' ';')"
  fi
  MODULES="libstdc++ libgcc_s"
  # its threads throw and allocate at once: glibc adds malloc arenas (the
  # program's own) when they contend; growth_check counts those apart
  program harm_cxx "$DEFAULT_PLAN" "$HARM_DIR/harm_cxx"
  MODULES=""
  WANT_REF=""
  start_prog harm_cxx "$HARM_DIR/harm_cxx" && WANT_REF=$P_REF && stop_prog
  launch_session harm_cxx term "$HARM_DIR/harm_cxx"
  [ "$HARM_FULL" = 1 ] && launch_session harm_cxx int "$HARM_DIR/harm_cxx"
}

group_rust() {
  reset_knobs
  command -v rustc >/dev/null || skip "rustc is not installed (scripts/install-deps.sh --dev installs it)"
  local d="$TMP/rust"; mkdir -p "$d"
  (cd "$d" && rustc -C opt-level=2 -g -o harm_rust "$HARM_SRC/harm_rust.rs") >"$d/build.log" 2>&1 ||
    skip "rustc could not build harm_rust.rs offline: $(tail -3 "$d/build.log")"
  program harm_rust "$DEFAULT_PLAN" "$d/harm_rust"
}

group_go() {
  reset_knobs
  command -v go >/dev/null || skip "go is not installed (golang-go; scripts/install-deps.sh --dev installs it)"
  local d="$TMP/go"; mkdir -p "$d"
  cp "$HARM_SRC/harm_go.go" "$d/"
  (cd "$d" && GOCACHE=$d/cache GOPATH=$d/gopath GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=off \
     GOTOOLCHAIN=local go build -o harm_go harm_go.go) >"$d/build.log" 2>&1 ||
    skip "go could not build harm_go.go offline: $(tail -3 "$d/build.log")"
  JIT=0; VM_SLACK_KB=$((256 * 1024)); MAPS_SLACK=32
  program harm_go "$DEFAULT_PLAN" "$d/harm_go"
}

group_coroutines() {
  reset_knobs
  program harm_coro "$DEFAULT_PLAN" "$HARM_DIR/harm_coro"
}

group_signals() {
  reset_knobs
  program harm_sig "$DEFAULT_PLAN" "$HARM_DIR/harm_sig"
}

# counted_session: --graph -1 while the program runs one counted batch
# (SIGUSR1); asmspy's count for counted_fn must equal the program's, or
# asmspy must say loudly that it lost calls
counted_session() {
  local t0; t0=$(now)
  SDIR="$TMP/s.$P_NAME.counted.$RANDOM"; mkdir -p "$SDIR"
  EV=(); NOTES=()
  local before; before=$(rings "$P_PID")
  SCMD="asmspy --graph $P_PID -1 (SIGUSR1: one counted batch), Ctrl-C"
  start_session main --graph "$P_PID" -1
  local a=$S_PID
  S_RC=0
  wait_patched_or_gone "$a" "$before"
  local w=$?
  local batches; batches=$(grep -c '^batch calls=' "$P_OUT")
  if [ $w = 0 ]; then
    kill -USR1 "$P_PID"
    local i=0
    while [ "$(grep -c '^batch calls=' "$P_OUT")" -le "$batches" ] && [ $i -lt $((SESSION_TIMEOUT * 20)) ]; do
      sleep 0.05; i=$((i + 1))
      kill -0 "$P_PID" 2>/dev/null || break
    done
  else
    NOTES+=("asmspy did not patch (wait $w)")
  fi
  end_session "$a" int
  local want; want=$(grep '^batch calls=' "$P_OUT" | tail -1 | sed 's/batch calls=\([0-9]*\).*/\1/')
  if [ $w = 0 ] && [ "$(grep -c '^batch calls=' "$P_OUT")" -gt "$batches" ]; then
    local got; got=$(awk '$2 == "counted_fn" {for (i = 3; i <= NF; i++) if ($i ~ /^inv=/) {sub("inv=", "", $i); print $i}}' "$S_OUT" | head -1)
    # a loss is reported loudly when asmspy's notes say so with a number at
    # least as large as what is missing (records lost for another reason,
    # fewer than the calls missing, do not account for it)
    local loud; loud=$(grep -hiE 'lost|not recorded|missed|dropped|undercount|no free thread slot|slots? (are )?full' "$S_ERR" | sort -u | head -3 | tr '\n' ' ')
    local said_lost; said_lost=$(grep -hiE 'lost|not recorded|missed|dropped|undercount|no free thread slot' "$S_ERR" | grep -oE '[0-9]+ (call|record|call record)s? (were )?(lost|not recorded|missed|dropped)' | sort -u | awk '{s += $1} END {print s + 0}')
    local miss=$(( want - ${got:-0} ))
    if [ "${got:-0}" = "$want" ]; then
      NOTES+=("asmspy counted $got of $want counted_fn calls")
    elif [ "$miss" -gt 0 ] && [ "$said_lost" -ge "$miss" ]; then
      NOTES+=("asmspy counted ${got:-none} of $want calls and said so: $loud")
    else
      EV+=("undercount: asmspy reported ${got:-no} calls of counted_fn, the program made $want over $(ls /proc/"$P_PID"/task | wc -l) live threads (${P_NAME#harm_threads_}); $miss missing, and asmspy reported ${said_lost} lost${loud:+ ($loud)}")
    fi
  elif [ $w = 0 ]; then
    EV+=("the counted batch never finished in ${SESSION_TIMEOUT}s (last line: $(tail -1 "$P_OUT"))")
  fi
  check_after "graph:counted-batch" int "$t0"
}

group_threads() {
  reset_knobs
  MAPS_SLACK=40; VM_SLACK_KB=$((64 * 1024))
  start_prog harm_threads_alive "$HARM_DIR/harm_threads" alive 300 || return
  echo "== $GROUP/harm_threads_alive: pid $P_PID, $(ls /proc/"$P_PID"/task | wc -l) threads"
  counted_session
  [ "$HARM_FULL" = 1 ] && run_plan x || { session calls:int; session graph:count; }
  stop_prog
  start_prog harm_threads_churn "$HARM_DIR/harm_threads" churn 600 || return
  echo "== $GROUP/harm_threads_churn: pid $P_PID, 600 short-lived threads per round"
  counted_session
  [ "$HARM_FULL" = 1 ] && run_plan x || session tree:term
  stop_prog
}

# two sessions on one pid at once, a session after a group SIGKILL, five
# --graph sessions in a row
concurrent_pair() { # DESC MODE1 MODE2 STAGGER(0|1)
  local desc=$1 m1=$2 m2=$3 stagger=$4 t0; t0=$(now)
  SDIR="$TMP/s.$P_NAME.pair.$RANDOM"; mkdir -p "$SDIR"
  EV=(); NOTES=()
  local before; before=$(rings "$P_PID")
  SCMD="asmspy --$m1 $P_PID -1 & asmspy --$m2 $P_PID -1 ($desc)"
  start_session first "--$m1" "$P_PID" -1
  local a1=$S_PID e1=$S_ERR
  [ "$stagger" = 1 ] && { wait_patched_or_gone "$a1" "$before" || NOTES+=("the first session never patched"); }
  before=$(rings "$P_PID")
  start_session second "--$m2" "$P_PID" -1
  local a2=$S_PID
  wait_patched_or_gone "$a2" "$before"
  [ $? = 1 ] && NOTES+=("the second session ended on its own: $(head -3 "$S_ERR" | tr '\n' ' ')")
  wait_rounds 2 >/dev/null || true
  # end the second first when staggered (the inner one leaves first), else the first
  if [ "$stagger" = 1 ]; then
    end_session "$a2" int; local r2=$S_RC; end_session "$a1" int; local r1=$S_RC
  else
    end_session "$a1" int; local r1=$S_RC; end_session "$a2" int; local r2=$S_RC
  fi
  NOTES+=("exits $r1 / $r2")
  S_RC=0
  for r in $r1 $r2; do
    [ "$r" -gt 128 ] && [ "$r" != 130 ] && EV+=("an asmspy died of SIG$(kill -l $((r - 128)))")
  done
  S_ERR=$e1
  check_after "$desc" int "$t0"
  S_ERR="$SDIR/second.err"
}

group_concurrent() {
  reset_knobs
  start_prog harm_o3 "$HARM_DIR/harm_o3" || return
  echo "== $GROUP/harm_o3: pid $P_PID; five --graph sessions, then two at once, then one after a group SIGKILL"
  P_RESTARTED=0
  local k
  for k in 1 2 3 4 5; do session graph:count; done
  growth_check 5
  concurrent_pair "graph+calls started together" graph calls 0
  concurrent_pair "tree inside a graph session" graph tree 1
  session graph:kill
  session calls:count
  stop_prog
}

group_interp() {
  reset_knobs
  local ran=0 mod
  # the module a runtime's work runs in: its library where it maps one
  pick_module() { # PATTERN: the basename of the first mapping matching it
    grep -oE "/[^ ]*($1)[^ /]*$" "/proc/$P_PID/maps" | head -1 | xargs -r basename | sed 's/\.so.*//'
  }
  JIT=1; VM_SLACK_KB=$((128 * 1024)); MAPS_SLACK=40
  local py; py=$(command -v python3)
  if [ -n "$py" ]; then
    start_prog python3 "$py" "$HARM_SRC/harm_loop.py" && {
      mod=$(pick_module 'libpython3'); MODULES=$mod; JIT=0
      echo "== $GROUP/python3 ($py): pid $P_PID; module: ${mod:-the executable (no libpython3 mapped)}"
      [ "$HARM_FULL" = 1 ] && run_plan x || { session graph:count; session calls:int; }
      stop_prog; ran=$((ran + 1)); JIT=1; }
  fi
  if command -v node >/dev/null; then
    start_prog node node "$HARM_SRC/harm_loop.js" && {
      mod=$(pick_module 'libnode'); MODULES=$mod
      echo "== $GROUP/node: pid $P_PID; module: ${mod:-node itself (no libnode mapped)}"
      [ "$HARM_FULL" = 1 ] && run_plan x || { session graph:count; session calls:int; }
      stop_prog; ran=$((ran + 1)); }
  fi
  if command -v ruby >/dev/null; then
    start_prog ruby ruby "$HARM_SRC/harm_loop.rb" && {
      mod=$(pick_module 'libruby'); MODULES=$mod; JIT=0
      echo "== $GROUP/ruby: pid $P_PID; module: ${mod:-the executable}"
      [ "$HARM_FULL" = 1 ] && run_plan x || { session graph:count; session calls:int; }
      stop_prog; ran=$((ran + 1)); JIT=1; }
  fi
  if command -v java >/dev/null && command -v javac >/dev/null; then
    local d="$TMP/java"; mkdir -p "$d"
    if javac -d "$d" "$HARM_SRC/HarmLoop.java" >"$d/javac.log" 2>&1; then
      VM_SLACK_KB=$((512 * 1024)); MAPS_SLACK=200
      start_prog java java -Xmx128m -cp "$d" HarmLoop && {
        mod=$(pick_module 'libjvm'); MODULES=$mod
        echo "== $GROUP/java: pid $P_PID; module: ${mod:-none}"
        [ "$HARM_FULL" = 1 ] && run_plan x || session graph:count
        stop_prog; ran=$((ran + 1)); }
    else
      echo "# javac failed: $(tail -2 "$d/javac.log")"
    fi
  fi
  [ $ran -gt 0 ] || skip "none of python3, node, ruby, java is installed"
}

# ---------------------------------------------------------------- main

require_entrypatch
ALL_GROUPS="c cxx rust go coroutines signals threads concurrent interp"
groups=("$@")
# shellcheck disable=SC2206
{ [ ${#groups[@]} = 0 ] || [ "${groups[0]}" = all ]; } && groups=($ALL_GROUPS)
start_all=$(now)
for GROUP in "${groups[@]}"; do
  case " $ALL_GROUPS " in *" $GROUP "*) ;; *) echo "harm.sh: unknown group '$GROUP' ($ALL_GROUPS)" >&2; exit 2;; esac
  "group_$GROUP"
done
echo "harm: $PASSED passed, $FAILED failed, $SKIPPED skipped in $(elapsed_since "$start_all") s (groups: ${groups[*]}${HARM_FULL:+; HARM_FULL=$HARM_FULL})"
[ $FAILED = 0 ] || exit 1
[ $PASSED = 0 ] && exit 77
exit 0
