#!/bin/bash
# The command-line conventions of strace and perf (issue 27): -h is --help,
# options in any position, a launched command's exit status (compared with
# strace's on the same commands), one "asmspy: " prefix for errors, control
# and bidi characters escaped, waits that cannot succeed refused at once,
# and an attach verdict that is measured, not assumed. Bounded by counts and
# exit statuses, never by wall-clock asserts.
. "$(dirname "$0")/../e2e/lib.sh"

. "$(dirname "$0")/run_lib.sh" # run WANT ARGS..., has FILE ERE WHAT
one_line() { [ "$(grep -c . "$TMP/e")" = 1 ] || fail "$1: want one line on stderr, got: $(cat "$TMP/e")"; }

start_victim victim_loop
P=$VICTIM_PID

# 1. -h works like --help, globally, per mode, per command
for args in "-h" "--trace -h" "-h trace" "--info -h" "--list -h" "--launch -h" "--launch trace -h" \
            "--follow --help"; do
  # shellcheck disable=SC2086
  run 0 $args
  has "$TMP/o" "^usage: asmspy --" "asmspy $args"
done
pass "-h is --help (global, per mode, per command)"

# 2. options in any position, like strace/perf
run 0 --follow --log "$P" 3
has "$TMP/o" "\) = " "--follow before --log"
run 0 --log --follow "$P" 3
run 0 --json --info "$P"
has "$TMP/o" '"type":"procinfo"' "--json before --info"
run 0 --record "$TMP/r.asmtrace" --log "$P" 2
[ -s "$TMP/r.asmtrace" ] || fail "--record <f> before the mode wrote nothing"
run 0 --launch --follow log -- /bin/true
run 0 --follow --launch log -- /bin/true
# malformed: still exit 2 with one line
for args in "--follow" "--nosuch 1" "log $P" "--follow --log"; do
  # shellcheck disable=SC2086
  run 2 $args
  one_line "asmspy $args"
  has "$TMP/e" "^asmspy: " "asmspy $args"
done
pass "options before the mode and between its arguments; malformed -> exit 2, one line"

# 3. a launched command's exit status, as strace's on the same command
if command -v strace >/dev/null; then
  n=0
  for cmd in "cat /nonexistent" "sh -c 'exit 3'" "sh -c 'kill -INT \$\$'" "sh -c 'kill -TERM \$\$'" \
             "/bin/true"; do
    set +e
    eval "strace -o /dev/null $cmd" >/dev/null 2>&1 </dev/null
    want=$?
    for mode in log "stream -1" "stream 5"; do
      # shellcheck disable=SC2086
      eval "\"\$ASMSPY\" --launch $mode -- $cmd" >/dev/null 2>"$TMP/e" </dev/null
      got=$?
      [ "$got" = "$want" ] || { set -e; fail "--launch $mode -- $cmd: exit $got, strace's $want: $(cat "$TMP/e")"; }
      n=$((n + 1))
    done
    set -e
  done
  pass "--launch exit status = strace's on $n runs (cat /nonexistent 1, exit 3, SIGINT 130, SIGTERM 143, 0)"
else
  echo "note: strace not installed: the exit-status comparison is not exercised"
fi
# asmspy's own errors keep their codes under --launch
run 2 --launch trace nosuch_fn -- /bin/sh -c 'exit 3'
run 1 --launch stream -- /nonexistent/cmd

# 4. one "asmspy: " prefix for errors that end the run; a launch names the command
run 2 --trace "$P" nosuch_fn 1
one_line "--trace nosuch_fn"
has "$TMP/e" "^asmspy: no function named 'nosuch_fn' in pid $P" "--trace nosuch_fn"
run 2 --launch trace nosuch_fn -- /bin/true
one_line "--launch trace nosuch_fn"
has "$TMP/e" "^asmspy: no function named 'nosuch_fn' in '/bin/true'" "--launch trace nosuch_fn"
! grep -q "pid" "$TMP/e" || fail "--launch trace nosuch_fn names a pid: $(cat "$TMP/e")"
pass "errors say 'asmspy: ', a launch refusal names the command"

# 5. waits that cannot succeed: refused at once
run 1 --trace "$P" main 1
one_line "--trace main"
has "$TMP/e" "^asmspy: main will not be entered: pid $P is already running it.*--launch trace main" "--trace main"
[ ! -s "$TMP/o" ] || fail "--trace main waited or printed: $(cat "$TMP/o")"
run 1 --trace "$P" helper 1 --tid=99999
one_line "--tid=99999"
has "$TMP/e" "^asmspy: --tid=99999: no thread 99999 in process $P" "--tid=99999"
ASMSPY_ENTRY_WAIT_MS=200 run 1 --trace "$P" abort 1
has "$TMP/o" "^abort not seen entering in pid $P \(waited 200 ms\)$" "a wait that runs out"
has "$TMP/e" "^asmspy: nothing captured: the region was not entered" "a wait that runs out"
pass "--trace main and --tid=<none> refused at once; a wait that runs out exits 1 and says so"

# 6. a sampler that fails: only the real error, no empty "(idle?)" table
set +e
"$ASMSPY" --sample "$P" 200 --sampler=event:cycles >"$TMP/o" 2>"$TMP/e" </dev/null
rc=$?
set -e
if [ "$rc" = 1 ]; then
  ! grep -q "no samples" "$TMP/o" || fail "--sample with a failed sampler guesses: $(cat "$TMP/o")"
  has "$TMP/e" "^asmspy: " "--sample's failure"
  pass "--sample --sampler=event:cycles without a PMU: the error only"
else
  echo "note: event:cycles sampled here (rc $rc): the no-PMU case is not exercised"
fi

# 7. control bytes and bidi controls escaped on the human channels
run 2 --trace "$P" $'bad\e[31mname\a' 1
! grep -q $'\e' "$TMP/e" || fail "a raw ESC reached stderr"
! grep -q $'\a' "$TMP/e" || fail "a raw BEL reached stderr"
has "$TMP/e" 'bad\\x1b\[31mname\\x07' "the escaped symbol"
run 2 $'--\e]0;x\a'
! grep -q $'\e' "$TMP/e" || fail "a usage error echoed a raw ESC"
has "$TMP/e" '\\x1b' "the escaped usage error"
RLO=$'\xe2\x80\xae'
run 2 --trace "$P" "x${RLO}y" 1
! grep -q "$RLO" "$TMP/e" || fail "a raw U+202E reached stderr"
has "$TMP/e" 'x\\u202ey' "U+202E as \\u202e"
if command -v cc >/dev/null; then
  # a symbol whose name holds U+202E (RLO) and U+2066 (LRI)
  cat >"$TMP/bidi.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
void evil(void) __asm__("evil\xe2\x80\xaegnp.exe\xe2\x81\xa6");
volatile long sink;
__attribute__((noinline)) void evil(void) {
  for (int i = 0; i < 50; i++) sink += i;
}
int main(void) {
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (;;) { evil(); usleep(1000); }
}
EOF
  if cc -O0 -o "$TMP/bidi" "$TMP/bidi.c" 2>"$TMP/cc.err"; then
    "$TMP/bidi" >"$TMP/bidi.out" &
    VICTIM_PIDS="$VICTIM_PIDS $!"
    i=0; while [ ! -s "$TMP/bidi.out" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
    B=$(head -1 "$TMP/bidi.out")
    run 0 --syms "$B" evil
    ! grep -q "$RLO" "$TMP/o" || fail "--syms printed a raw U+202E"
    has "$TMP/o" 'evil\\u202egnp\.exe\\u2066' "--syms: bidi controls escaped"
    run 0 --stream "$B" 400
    ! grep -q "$RLO" "$TMP/o" "$TMP/e" || fail "--stream printed a raw U+202E"
    has "$TMP/o" 'evil\\u202egnp\.exe\\u2066\+0x' "--stream names the symbol escaped"
    pass "control bytes (ESC, BEL) and bidi controls (U+202E, U+2066) escaped"
  else
    echo "note: cc could not build the bidi victim: $(head -1 "$TMP/cc.err")"
  fi
else
  echo "note: no C compiler: the bidi-named symbol is not exercised"
fi

# 8. an attach verdict measured: a process already traced by another tracer
if command -v strace >/dev/null; then
  strace -p "$P" -o /dev/null 2>/dev/null &
  S=$!
  VICTIM_PIDS="$VICTIM_PIDS $S"
  i=0
  while [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$P/status")" != "$S" ] && [ $i -lt 500 ]; do
    sleep 0.01; i=$((i + 1))
  done
  [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$P/status")" = "$S" ] || fail "strace -p did not attach"
  run 0 --info "$P"
  has "$TMP/o" "^  attach   NO — already traced by pid $S \(strace\)" "--info of a traced pid"
  run 0 --list
  has "$TMP/o" "^! +$P .*traced by $S \(strace\)" "--list of a traced pid"
  run 1 --stream "$P" 3
  has "$TMP/e" "^asmspy: .*already traced by pid $S \(strace\)" "the attach refusal"
  ! grep -qiE "yama|uid" "$TMP/e" || fail "the refusal blames an open gate: $(cat "$TMP/e")"
  kill "$S"; wait "$S" 2>/dev/null || true
  pass "a traced pid: --info, --list and the refusal name the tracer, no open gate blamed"
fi
# every verdict YES in --list is one the kernel's access check agrees with
# (the probe asmspy itself makes: a one-byte process_vm_readv)
run 0 --json --list
python3 - "$TMP/o" <<'PY' || fail "--list says attach yes where the kernel refuses"
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(1)
bad = []
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") != "process" or o.get("attach", "").lower() != "yes":
        continue
    p = o
    if True:
        local, remote = iovec(ctypes.addressof(buf), 1), iovec(0, 1)
        n = libc.process_vm_readv(p["pid"], ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        e = ctypes.get_errno()
        if n < 0 and e in (1, 13):  # EPERM, EACCES
            bad.append(p["pid"])
assert not bad, bad
PY
pass "--list: no 'attach yes' the kernel's access check refuses"

# ---- a launched command gets the signal dispositions it would have had ----
# (the tracer ignores SIGTTOU for itself in its own process group; an ignored
# disposition survives exec, so the command must get SIG_DFL back)
want=$(sh -c 'trap - TTOU; grep SigIgn /proc/self/status')
got=$("$ASMSPY" --launch log 1 -- sh -c 'trap - TTOU; grep SigIgn /proc/self/status' 2>/dev/null </dev/null | grep '^SigIgn')
[ "$got" = "$want" ] || fail "--launch: the command's ignored signals are '$got', untraced '$want'"
pass "--launch: the command's ignored signals are as untraced ($want)"
