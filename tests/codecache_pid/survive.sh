#!/bin/bash
# survive.sh — `asmspy --backend=codecache --stream <pid> <n>` attached to
# running self-checking programs (tests/harm: harm.h's protocol, `round N
# OK|CORRUPT`), each session ended every way:
#   count   n = COUNT: asmspy ends on its own; it must have printed n lines
#   int     n = -1; once the listing has MIN_LINES lines, SIGINT to asmspy's
#           process group (Ctrl-C)
#   term    likewise, SIGTERM to asmspy alone (kill(1))
#   kill    likewise, SIGKILL to every process of asmspy's session (the CLI
#           and its tracer: nobody is left to bring the threads out; they
#           leave the cache by themselves at their next request, which no
#           one answers)
#   next    (after kill, on the same program) n = NEXT_COUNT: the session
#           after a killed one must trace like any other (harm.sh: what a
#           killed session left is the next one's to cope with): n lines,
#           exit 0, no mapping of its own left (the killed one's are noted)
#   killgroup (harm_regs only) SIGKILL to asmspy's process group, as a
#           terminal's kill -9 of the job: its tracer, in a group of its own,
#           must notice and leave by itself, bringing every thread out
# After each session, with the evidence printed on failure:
#   - asmspy and its tracer ended (within SIGNAL_WAIT s of the signal)
#   - the program is alive, every thread untraced and not stopped, it still
#     prints rounds (2 more; 5 after `kill`) and no round is CORRUPT
#   - no mapping named asmspy-codecache is left (after `kill`: reported as
#     a note, the threads cannot unmap what they run from)
#   - the program's code equals its ELF file (tests/calls/code_equals_elf.py:
#     injected system calls restored the bytes they borrowed) and every
#     read-only file mapping its file (tests/harm/maps_equal_files.py)
# Programs: harm_regs (every register, call-clobbered ones too), harm_sig
# (20 kHz SIGALRM, handler re-enters the hot function), harm_coro, harm_cxx
# (exceptions, threads), harm_threads alive 8, harm_o3, harm_static,
# python3 tests/harm/harm_loop.py, cc_smc -f (code rewritten as it runs),
# node tests/harm/harm_loop.js and java HarmLoop (JIT code).
# Environment: COUNT (200000), MIN_LINES (5000), SIGNAL_WAIT (10 s),
# ROUND_WAIT (20 s), PROGS (names to run), ENDINGS ("count int term kill"),
# ARTIFACTS=<dir> keeps failing sessions' files.
# Counts bound the work; the time limits only turn a hang into a failure.
# Exit 0 all passed, 1 some failed, 77 codecache not usable.
SIGNAL_WAIT=${SIGNAL_WAIT:-10}
. "$(dirname "$0")/cc_lib.sh"
require_codecache
COUNT=${COUNT:-200000}
MIN_LINES=${MIN_LINES:-5000}
ENDINGS=${ENDINGS:-count int term kill next}
NEXT_COUNT=${NEXT_COUNT:-20000}

lines_of() { local c; c=$(grep -vc '^#' "$1" 2>/dev/null); echo "${c:-0}"; }

session() { # ENDING
  local ending=$1 t0; t0=$(now)
  local sdir="$TMP/s.$P_NAME.$ending.$RANDOM"; mkdir -p "$sdir"
  local out="$sdir/out" err="$sdir/err"
  local EV=() NOTES=() n=-1
  [ "$ending" = count ] && n=$COUNT
  local before_maps; before_maps=$(cache_maps "$P_PID")
  [ "$ending" = next ] && n=$NEXT_COUNT
  local cmd="asmspy --backend=codecache --stream $P_PID $n"
  start_session /dev/null "$err" --backend=codecache --stream "$P_PID" "$n" --output="$out"
  local a=$S_PID
  # next: a thread of the killed session may still sit in its code cache
  # (waiting, at most a second, for an answer that will not come); the new
  # session then refuses ("try again then") and touches nothing: retried,
  # a bounded number of times
  local tries=0 ended=
  if [ "$ending" = next ]; then
    while wait_session "$a" "$SESSION_TIMEOUT" && ended=1 && [ "$S_RC" != 0 ] && [ $tries -lt 8 ] &&
      grep -q 'still runs in the code cache' "$err"; do
      tries=$((tries + 1))
      ended=
      sleep 0.25
      start_session /dev/null "$err" --backend=codecache --stream "$P_PID" "$n" --output="$out"
      a=$S_PID
    done
  fi
  if [ "$ending" = count ] || [ "$ending" = next ]; then
    if [ -n "$ended" ] || wait_session "$a" "$SESSION_TIMEOUT"; then
      local got; got=$(lines_of "$out")
      [ "$S_RC" = 0 ] || EV+=("asmspy exit $S_RC: $(grep -v '^\s*$' "$err" | head -3 | tr '\n' ' ')")
      [ "$got" = "$n" ] || EV+=("asmspy printed $got instruction lines, asked for $n")
    else
      EV+=("hang: no end of a $n-instruction session in ${SESSION_TIMEOUT}s ($(lines_of "$out") lines; left: $S_LEFT)")
    fi
  else
    # until the listing has MIN_LINES lines (or asmspy ended: a refusal)
    local i=0 retry=0
    while :; do
      while [ "$(lines_of "$out")" -lt "$MIN_LINES" ] && kill -0 "$a" 2>/dev/null && [ $i -lt $((SESSION_TIMEOUT * 10)) ]; do
        sleep 0.1; i=$((i + 1))
      done
      # an attach refused as transient (the host's own diagnosis: a thread
      # of this program in the middle of being created or reaped, measured
      # once in the sanitizer build) is retried, a bounded number of times
      kill -0 "$a" 2>/dev/null || ! grep -q 'refusal was transient' "$err" || [ $retry -ge 3 ] && break
      retry=$((retry + 1))
      wait "$a" 2>/dev/null
      start_session /dev/null "$err" --backend=codecache --stream "$P_PID" "$n" --output="$out"
      a=$S_PID
    done
    kill -0 "$a" 2>/dev/null || EV+=("asmspy ended before the signal: $(grep -v '^\s*$' "$err" | head -3 | tr '\n' ' ')")
    [ "$(lines_of "$out")" -ge "$MIN_LINES" ] || EV+=("only $(lines_of "$out") lines in ${SESSION_TIMEOUT}s")
    case $ending in
      int) kill -INT -- "-$a" 2>/dev/null;;
      term) kill -TERM "$a" 2>/dev/null;;
      kill) local p; for p in $(session_left "$a"); do kill -KILL "$p" 2>/dev/null; done;;
      killgroup) kill -KILL -- "-$a" 2>/dev/null;; # SIG${ending^^} below reads KILLGROUP
    esac
    if ! wait_session "$a" "$SIGNAL_WAIT"; then
      EV+=("asmspy's session still ran ${SIGNAL_WAIT}s after SIG${ending^^} (then SIGKILLed): $S_LEFT; program threads then: $(threads_view "$P_PID")")
    else
      case "$S_RC:$ending" in
        0:*|130:int|143:term|137:kill|137:killgroup) ;;
        *) EV+=("asmspy exit $S_RC after SIG${ending^^}: $(grep -v '^\s*$' "$err" | head -3 | tr '\n' ' ')");;
      esac
    fi
  fi
  local rounds=2
  case $ending in kill|killgroup) rounds=5;; esac
  P_DEAD=0
  check_prog EV "$rounds"
  if [ "$P_DEAD" = 0 ]; then
    local left; left=$(cache_maps "$P_PID")
    if [ -n "$left" ]; then
      if [ "$ending" = kill ]; then
        NOTES+=("$(wc -l <<<"$left") asmspy-codecache mapping(s) remain after SIGKILL of the whole session (the program runs on)")
      elif [ "$ending" = next ] && [ "$left" = "$before_maps" ]; then
        NOTES+=("the killed session's $(wc -l <<<"$left") mapping(s) still there")
      else
        EV+=("asmspy-codecache mapping(s) left: $(tr -s ' ' <<<"$left" | tr '\n' ';' | cut -c1-400)")
      fi
    elif [ "$ending" = kill ]; then
      NOTES+=("no asmspy-codecache mapping remains")
    fi
    local eq
    if [ "$P_NAME" != cc_smc ]; then # cc_smc rewrites its own .text: its code is its own
      eq=$(python3 "$CALLS_SRC/code_equals_elf.py" "$P_PID" 2>&1) || EV+=("code differs from the ELF: $eq")
      eq=$(python3 "$HARM_SRC/maps_equal_files.py" "$P_PID" 2>&1) || EV+=("a read-only file mapping was written: $(head -3 <<<"$eq" | tr '\n' ' ')")
    fi
  fi
  local said; said=$(grep -hv '^\s*$' "$err" 2>/dev/null | head -3 | cut -c1-200 | tr '\n' ' ')
  local dt; dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')
  if [ ${#EV[@]} -gt 0 ]; then
    echo "FAIL survive/$P_NAME $ending [$dt s]: $cmd ($(lines_of "$out") lines)"
    local e; for e in "${EV[@]}"; do echo "     evidence: $e"; done
    [ ${#NOTES[@]} = 0 ] || echo "     notes: ${NOTES[*]}"
    [ -z "$said" ] || echo "     asmspy said: $said"
    FAILED=$((FAILED + 1))
    if [ -n "${ARTIFACTS:-}" ]; then
      local keep="$ARTIFACTS/survive.$P_NAME.$ending.$$"
      mkdir -p "$keep" && cp -r "$sdir"/. "$keep"/ && cp "$P_OUT" "$keep/program.out" && echo "     files: $keep"
    fi
  else
    echo "ok   survive/$P_NAME $ending [$dt s] ($(lines_of "$out") lines)${NOTES[*]:+ — note: ${NOTES[*]}}${said:+ — asmspy said: $said}"
    PASSED=$((PASSED + 1))
  fi
  if [ "$P_DEAD" = 1 ]; then # the next session needs a live program
    stop_prog
    echo "     (restarting $P_NAME)"
    start_prog "$P_NAME" "${P_CMD[@]}" || true
  fi
}

program() { # NAME ENDINGS CMD...
  local name=$1 endings=$2; shift 2
  case " ${PROGS:-$name} " in *" $name "*) ;; *) return;; esac
  start_prog "$name" "$@" || { echo "FAIL survive/$name: could not start $*"; FAILED=$((FAILED + 1)); return; }
  echo "== $name: pid $P_PID, $(ls /proc/"$P_PID"/task | wc -l) thread(s): $*"
  local e
  for e in $endings; do
    [ -n "$P_PID" ] || break
    # every ending on a clean program: a session that left its cache behind
    # (reported above) would make the next one start from that state; but
    # `next` is the session after a SIGKILLed one, on purpose
    if [ "$e" != next ] && [ -n "$(cache_maps "$P_PID")" ]; then
      echo "     (restarting $P_NAME: the last session left asmspy-codecache mappings)"
      stop_prog
      start_prog "$name" "$@" || break
    fi
    session "$e"
  done
  stop_prog
}

t_all=$(now)
program harm_regs "$ENDINGS killgroup" "$HARM_DIR/harm_regs"
program harm_sig "$ENDINGS" "$HARM_DIR/harm_sig"
program harm_coro "$ENDINGS" "$HARM_DIR/harm_coro"
if [ -x "$HARM_DIR/harm_cxx" ]; then program harm_cxx "$ENDINGS" "$HARM_DIR/harm_cxx"; else echo "SKIP harm_cxx: not built (no C++ compiler)"; fi
program harm_threads "$ENDINGS" "$HARM_DIR/harm_threads" alive 8
program harm_o3 "$ENDINGS" "$HARM_DIR/harm_o3"
if [ -x "$HARM_DIR/harm_static" ]; then program harm_static "$ENDINGS" "$HARM_DIR/harm_static"; else echo "SKIP harm_static: not built (no static libc)"; fi
PY=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
if [ -n "$PY" ] && [ -x "$PY" ]; then
  program python3 "$ENDINGS" "$PY" "$HARM_SRC/harm_loop.py"
else
  echo "SKIP python3: not installed"
fi
# code that changes while traced (checked blocks, remote_maps.c)
program cc_smc "count term kill next" "$CCPID_DIR/cc_smc" -f
# JIT runtimes: V8 and HotSpot write and patch code in anonymous memory.
# After a SIGKILLed session their idle threads sit blocked inside its cache
# (a futex wait) for as long as they idle: `next` traces the others, and
# each of those once it leaves (remote.c, foreign threads).
if command -v node >/dev/null; then
  program node "count int term kill next" node "$HARM_SRC/harm_loop.js"
else
  echo "SKIP node: not installed"
fi
if command -v java >/dev/null && command -v javac >/dev/null && mkdir -p "$TMP/java" &&
  javac -d "$TMP/java" "$HARM_SRC/HarmLoop.java" >"$TMP/java/javac.log" 2>&1; then
  program java "count int term kill next" java -Xmx128m -cp "$TMP/java" HarmLoop
else
  echo "SKIP java: no JDK (java and javac)"
fi
echo "survive: $PASSED passed, $FAILED failed in $(awk -v a="$t_all" -v b="$(now)" 'BEGIN {printf "%.0f", b - a}') s"
[ $FAILED = 0 ] || exit 1
[ $PASSED = 0 ] && exit 77
exit 0
