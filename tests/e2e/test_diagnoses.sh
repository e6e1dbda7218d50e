#!/bin/bash
# A pid asmspy cannot trace is refused with its real reason and exit 1 (not a
# usage error, and never a blamed gate that is open): a zombie, a kernel
# thread, pid 1 when the kernel refuses it, a target another tracer holds.
. "$(dirname "$0")/lib.sh"

GENERIC="permission (Yama ptrace_scope, uid, or capability)"

# refused CODE WHAT ARGS...: exit CODE, one reason on stderr, never the
# generic "permission (Yama ptrace_scope, uid, or capability)"
refused() {
  local code=$1 what=$2; shift 2
  expect_exit "$code" "$ASMSPY" "$@"
  [ -s "$TMP/err" ] || fail "$what: no reason on stderr"
  if grep -qF "$GENERIC" "$TMP/err"; then fail "$what: the generic gate text: $(cat "$TMP/err")"; fi
}

# ---- a zombie: a parent that never reaps its exited child -------------------
start_victim victim_zombie
parent=$VICTIM_PID
out="$TMP/victim_zombie.$$.$VICTIM_SEQ.out"
i=0
while [ "$(wc -l <"$out")" -lt 2 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
zombie=$(sed -n 2p "$out")
[ -n "$zombie" ] || fail "victim_zombie did not report its child"
i=0
while [ "$(proc_state "$zombie")" != Z ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
[ "$(proc_state "$zombie")" = Z ] || fail "child $zombie of victim_zombie is not a zombie: $(proc_state "$zombie")"
want="pid $zombie is a zombie (exited, not yet reaped by its parent, pid $parent): nothing to trace"
for args in "--stream $zombie 5" "--log $zombie 3" "--graph $zombie 5" "--trace $zombie main" \
            "--dataflow $zombie main" "--syms $zombie" "--stream $zombie 5 --json"; do
  # shellcheck disable=SC2086
  refused 1 "$args on a zombie" $args
  grep -qF "$want" "$TMP/err" || fail "$args on a zombie: $(cat "$TMP/err")"
done
pass "a zombie -> exit 1: $(head -1 "$TMP/err")"
# a usage error stays a usage error, whatever the target
expect_exit 2 "$ASMSPY" --trace "$zombie"
pass "--trace <zombie> without a region is still a usage error (exit 2)"

# ---- a kernel thread: pid 2 (kthreadd) when this pid namespace has one ------
kthread=""
for p in 2 $(ls /proc | grep -E '^[0-9]+$' | head -200); do
  [ -r "/proc/$p/status" ] || continue
  if [ "$(awk '/^Kthread:/ {print $2}' "/proc/$p/status")" = 1 ]; then kthread=$p; break; fi
done
if [ -n "$kthread" ]; then
  for args in "--stream $kthread 5" "--trace $kthread main" "--dataflow $kthread main" \
              "--syms $kthread" "--log $kthread 3"; do
    # shellcheck disable=SC2086
    refused 1 "$args on a kernel thread" $args
    grep -qF "pid $kthread is a kernel thread: no user space to trace" "$TMP/err" ||
      fail "$args on a kernel thread: $(cat "$TMP/err")"
  done
  pass "a kernel thread (pid $kthread) -> exit 1: $(head -1 "$TMP/err")"
else
  echo "note: no kernel thread visible in this pid namespace; that case is not exercised"
fi

# ---- pid 1: whatever the kernel says, the message names what was measured ---
# --syms never attaches: when it reads pid 1's symbols the kernel lets us in
# and the refusal cases cannot be reproduced here (attaching to init to find
# out would be rude).
set +e
"$ASMSPY" --syms 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
if [ "$rc" = 0 ]; then
  echo "note: pid 1's symbols are readable here; its refusal is not exercised"
else
  [ "$rc" = 1 ] || fail "--syms 1 exited $rc: $(cat "$TMP/err")"
  for args in "--syms 1" "--stream 1 5" "--trace 1 main" "--dataflow 1 main"; do
    # shellcheck disable=SC2086
    refused 1 "$args" $args
    # the reason is either a gate measured closed or, when every gate /proc
    # shows is open, that fact and what the kernel still refuses
    if grep -q "although uid, capability and Yama all allow it" "$TMP/err"; then
      grep -qE "process_vm_readv: E[A-Z]+" "$TMP/err" || fail "$args: no access-check measurement: $(cat "$TMP/err")"
      grep -q "with CAP_SYS_PTRACE" "$TMP/err" || fail "$args: 'all allow it' without CAP_SYS_PTRACE: $(cat "$TMP/err")"
    else
      grep -qE "without CAP_SYS_PTRACE|not dumpable|ptrace_scope=[123]|kernel thread|zombie" "$TMP/err" ||
        fail "$args: names no closed gate: $(cat "$TMP/err")"
    fi
  done
  pass "pid 1 -> exit 1: $(head -1 "$TMP/err")"
fi

# ---- already traced: the attach's own refusal, worded by the engine --------
# A second tracer holds the victim (PTRACE_SEIZE, then it blocks on a fifo
# until we close it): asmspy's attach is refused with EPERM.
start_victim victim_loop
mkfifo "$TMP/hold"
cat >"$TMP/holder.py" <<'EOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_SEIZE = 0x4206
if libc.ptrace(PTRACE_SEIZE, int(sys.argv[1]), None, None) != 0:
    sys.exit("seize failed: errno %d" % ctypes.get_errno())
open(sys.argv[2], "w").close()
open(sys.argv[3]).read()  # hold until the test closes the fifo's write end
EOF
python3 "$TMP/holder.py" "$VICTIM_PID" "$TMP/held" "$TMP/hold" &
holder=$!
exec 9<>"$TMP/hold" # read-write: opening never blocks, whatever the holder does
i=0
while [ ! -e "$TMP/held" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
[ -e "$TMP/held" ] || fail "the second tracer did not seize pid $VICTIM_PID"
[ "$(awk '/^TracerPid:/ {print $2}' "/proc/$VICTIM_PID/status")" = "$holder" ] ||
  fail "pid $VICTIM_PID is not traced by the holder $holder: $(grep TracerPid "/proc/$VICTIM_PID/status"); $(ps -o pid,ppid,args -p "$holder" 2>&1 | tail -1)"
refused 1 "--stream on a traced pid" --stream "$VICTIM_PID" 5
grep -qF "pid $VICTIM_PID: attach refused: pid $VICTIM_PID is already traced by pid $holder" "$TMP/err" ||
  fail "traced pid: $(cat "$TMP/err")"
pass "a pid another tracer holds -> exit 1: $(head -1 "$TMP/err")"
exec 9>&-
wait "$holder"
assert_runs "$VICTIM_PID"
