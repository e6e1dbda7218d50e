#!/bin/bash
# Attach landing INSIDE a target's own SIGTRAP handler (issue 24, item 1).
# The seam reads the target's SIGTRAP action at attach with an injected
# rt_sigaction, single-stepping one `syscall` instruction. Stepped with
# SIGTRAP blocked (the thread sits in its handler), that step's trap made the
# kernel reset the handler to SIG_DFL (force_sig_info_to_task), and in a
# mode that plants no breakpoint nothing put it back: the target's next int3
# killed it after the session (4-5 of 5). victim_selftrap 5000 sleeps 5 ms
# in its handler and not outside, so attach finds it there nearly always.
# After every session: alive, untraced, still catching SIGTRAP, its handler
# still counting the traps.
. "$(dirname "$0")/lib.sh"
require_backend singlestep
TRIALS=${TRIALS:-10}
start_victim victim_selftrap 5000
pid=$VICTIM_PID
traps_now() { grep -o 'traps=[0-9]*' "$TMP/victim_selftrap.err" | tail -1 | cut -d= -f2; }
sig_bit() { # sig_bit FIELD: SIGTRAP's bit of /proc/<pid>/status FIELD (SigCgt, SigBlk)
  local m
  m=$(awk -v f="$1:" '$1 == f {print $2}' "/proc/$pid/status")
  echo $(( (0x$m >> 4) & 1 ))
}

modes=(log stream procs)
in_handler=0
for trial in $(seq 1 "$TRIALS"); do
  mode=${modes[$((trial % ${#modes[@]}))]}
  case $mode in
    log) args=(--log "$pid" 6);;
    stream) args=(--stream "$pid" 300);;
    procs) args=(--procs "$pid" 4);;
  esac
  [ "$(sig_bit SigBlk)" = 1 ] && in_handler=$((in_handler + 1))
  "$ASMSPY" "${args[@]}" >"$TMP/out" 2>"$TMP/err" </dev/null ||
    fail "trial $trial: asmspy ${args[*]} failed: $(tail -2 "$TMP/err")"
  before=$(traps_now)
  # its handler must go on counting: a few more trap lines (50 traps each)
  i=0
  while [ "$(traps_now)" = "$before" ] && [ $i -lt 300 ]; do
    [ -d "/proc/$pid" ] && [ "$(proc_state "$pid")" != Z ] || break
    sleep 0.01; i=$((i + 1))
  done
  st=$(proc_state "$pid")
  [ "$st" != Z ] && [ "$st" != gone ] ||
    fail "trial $trial (--$mode): the target died after the session (traps=$before): its SIGTRAP handler was reset"
  for s in /proc/"$pid"/task/*/status; do
    tr=$(awk '/^TracerPid:/ {print $2}' "$s")
    [ "$tr" = 0 ] || fail "trial $trial (--$mode): ${s%/status} still traced by $tr"
  done
  [ "$(sig_bit SigCgt)" = 1 ] || fail "trial $trial (--$mode): the target no longer catches SIGTRAP (handler reset to SIG_DFL)"
  [ "$(traps_now)" != "$before" ] || fail "trial $trial (--$mode): its handler stopped counting ($before)"
done
assert_runs "$pid"
pass "$TRIALS sessions (log/stream/procs) attached to a target inside its SIGTRAP handler ($in_handler seen blocked just before); it kept its handler and counting ($(traps_now) traps)"
