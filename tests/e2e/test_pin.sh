#!/bin/bash
# The seam keeps the TRACER thread on the CPU of the thread it steps
# (host/seam_cpu.c), and never touches the target's scheduling. Checked by
# behaviour, never by time:
#   1. ASMSPY_PIN=1 (pinned throughout, no trial): during --stream the
#      tracer thread's Cpus_allowed_list is one CPU, in
#      its original mask, and it is (in at least one sample) the CPU the
#      target last ran on; the seam's ASMSPY_DEBUG_PIN note names the CPU it
#      read from the target's stat; afterwards the tracer is unpinned (the
#      note says restored) and the target's own affinity is what it was
#   1b. default (the measured choice): the trial pins the tracer to the
#      stepped thread's CPU, then decides (the ASMSPY_DEBUG_PIN note says how);
#      the target's affinity is unchanged
#   2. ASMSPY_NO_PIN=1: the tracer's mask stays whole during the session
#   3. a tracer confined by taskset to one CPU is never moved off it
. "$(dirname "$0")/lib.sh"
require_backend singlestep

mask_of() { awk '/^Cpus_allowed_list:/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f37; }
tracer_of() { awk '/^TracerPid:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
in_list() { # in_list CPU LIST (e.g. 0-3,6)
  local cpu=$1 part a b
  for part in $(echo "$2" | tr ',' ' '); do
    a=${part%-*}; b=${part#*-}
    [ "$cpu" -ge "$a" ] && [ "$cpu" -le "$b" ] && return 0
  done
  return 1
}
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "one CPU: nothing to pin"
own_mask=$(mask_of $$)

start_victim victim_spin
pid=$VICTIM_PID
vmask=$(mask_of "$pid")

# wait_traced SPY-PID: the tracer thread's tid once the victim is traced
wait_traced() {
  local i=0 tr
  while [ $i -lt 1000 ]; do
    tr=$(tracer_of "$pid")
    [ "$tr" != 0 ] && { echo "$tr"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.01; i=$((i + 1))
  done
  return 1
}
stop_spy() { # SIGINT ends a session cleanly (test_detach.sh)
  kill -INT "$1" 2>/dev/null || true
  wait "$1" || fail "asmspy exited $? after SIGINT: $(tail -3 "$TMP/err")"
}

# 1. ASMSPY_PIN=1: pinned to the target's CPU
ASMSPY_PIN=1 ASMSPY_DEBUG_PIN=1 "$ASMSPY" --stream "$pid" 100000000 >/dev/null 2>"$TMP/err" & spy=$!
tr=$(wait_traced "$spy") || fail "the session never traced the victim: $(tail -3 "$TMP/err")"
match=0 single=0 samples=0
for i in $(seq 200); do
  m=$(mask_of "$tr"); c=$(cpu_of "$pid")
  [ -n "$m" ] || break
  samples=$((samples + 1))
  case "$m" in *[,-]*) ;; *) single=$((single + 1)); [ "$m" = "$c" ] && match=$((match + 1));; esac
  [ $match -ge 3 ] && break
  sleep 0.01
done
m=$(mask_of "$tr")
stop_spy "$spy"
[ $single -gt 0 ] || fail "the tracer thread was never pinned (mask '$m', $samples samples)"
[ $match -gt 0 ] || fail "the tracer's CPU never matched the target's ($single pinned samples)"
in_list "$m" "$own_mask" || fail "pinned to CPU $m, outside the tracer's own mask $own_mask"
note=$(grep -m1 '^\[pin\] tracer tid' "$TMP/err") || fail "no ASMSPY_DEBUG_PIN note: $(tail -3 "$TMP/err")"
grep -q "target tid $pid)" <<<"$note" || fail "the pin followed another thread: $note"
grep -q '^\[pin\] restored' "$TMP/err" || fail "the tracer's affinity was not restored at detach"
[ "$(mask_of "$pid")" = "$vmask" ] || fail "the target's affinity changed: $vmask -> $(mask_of "$pid")"
assert_runs "$pid"
pass "--stream, ASMSPY_PIN=1: tracer pinned to the target's CPU ($match/$single samples matched), target's mask $vmask untouched"

# 1b. default: the trial pins, then keeps whichever was faster
ASMSPY_DEBUG_PIN=1 "$ASMSPY" --stream "$pid" 100000000 >/dev/null 2>"$TMP/err" & spy=$!
i=0
while ! grep -q '^\[pin\] trial:' "$TMP/err" && [ $i -lt 3000 ]; do
  kill -0 "$spy" 2>/dev/null || break
  sleep 0.01; i=$((i + 1))
done
stop_spy "$spy"
grep -q '^\[pin\] trial: .* -> \(pinned\|free\)$' "$TMP/err" || fail "the default session took no measured decision: $(tail -3 "$TMP/err")"
grep -m1 '^\[pin\] tracer tid' "$TMP/err" | grep -q "target tid $pid)" || fail "the trial did not pin to the stepped thread's CPU: $(head -3 "$TMP/err")"
grep -q '^\[pin\] restored' "$TMP/err" || fail "the tracer's affinity was not restored at detach (default)"
[ "$(mask_of "$pid")" = "$vmask" ] || fail "the target's affinity changed (default)"
assert_runs "$pid"
pass "--stream default: $(grep -m1 '^\[pin\] trial:' "$TMP/err" | sed 's/^\[pin\] //'); target untouched"

# 2. ASMSPY_NO_PIN=1: nothing is pinned
ASMSPY_NO_PIN=1 ASMSPY_DEBUG_PIN=1 "$ASMSPY" --stream "$pid" 100000000 >/dev/null 2>"$TMP/err" & spy=$!
tr=$(wait_traced "$spy") || fail "the NO_PIN session never traced the victim"
for i in $(seq 30); do
  m=$(mask_of "$tr")
  [ -z "$m" ] || [ "$m" = "$own_mask" ] || { stop_spy "$spy"; fail "ASMSPY_NO_PIN=1 but the tracer's mask is $m (was $own_mask)"; }
  sleep 0.01
done
stop_spy "$spy"
grep -q '^\[pin\] off' "$TMP/err" || fail "no '[pin] off' note with ASMSPY_NO_PIN=1"
! grep -q '^\[pin\] tracer' "$TMP/err" || fail "pinned with ASMSPY_NO_PIN=1"
[ "$(mask_of "$pid")" = "$vmask" ] || fail "the target's affinity changed under ASMSPY_NO_PIN"
assert_runs "$pid"
pass "ASMSPY_NO_PIN=1: the tracer's mask stays $own_mask"

# 3. cpuset respected: a tracer confined to one CPU stays there
first=$(echo "$own_mask" | cut -d, -f1 | cut -d- -f1)
ASMSPY_DEBUG_PIN=1 taskset -c "$first" "$ASMSPY" --stream "$pid" 100000000 >/dev/null 2>"$TMP/err" & spy=$!
tr=$(wait_traced "$spy") || fail "the confined session never traced the victim"
for i in $(seq 30); do
  m=$(mask_of "$tr")
  [ -z "$m" ] || [ "$m" = "$first" ] || { stop_spy "$spy"; fail "a tracer confined to CPU $first was moved to $m"; }
  sleep 0.01
done
stop_spy "$spy"
! grep -q '^\[pin\] tracer' "$TMP/err" || fail "a tracer confined to one CPU was pinned elsewhere"
[ "$(mask_of "$pid")" = "$vmask" ] || fail "the target's affinity changed (confined tracer)"
assert_runs "$pid"
pass "a tracer confined to CPU $first stays on it; target untouched"
