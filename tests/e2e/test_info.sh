#!/bin/bash
# --info: the no-attach process snapshot. Identity, runtime badge, threads,
# the attach verdict with its measured reason, a valid one-event recording
# with --json, exit 1 for a missing pid, and it never attaches.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing (used to read the JSON)"
# jtrue JSON PYEXPR: the Python expression over the parsed object `e` is true.
jtrue() { python3 -c 'import json, sys; e = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2"; }
start_victim victim_threads
pid=$VICTIM_PID
exe=$(readlink -f "$VICTIM_DIR/victim_threads")

"$ASMSPY" --info "$pid" >"$TMP/info" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "--info exited $?"; }
head -1 "$TMP/info" | grep -qE "^pid $pid  victim_threads  \[native\]  [RS]$" \
  || fail "first line: $(head -1 "$TMP/info")"
grep -qE "^  exe +$exe$" "$TMP/info" || fail "exe line: $(grep '^  exe' "$TMP/info")"
grep -qE "^  user .* threads 4$" "$TMP/info" || fail "thread count: $(grep '^  user' "$TMP/info")"
grep -qE "^  cmd +.*victim_threads" "$TMP/info" || fail "cmd line missing"
grep -qE "^  rss +[0-9]+ KB   fds [0-9]+   cpu [0-9]+ jiffies @ [0-9]+ Hz$" "$TMP/info" \
  || fail "rss/fds/cpu line: $(grep '^  rss' "$TMP/info")"
grep -qE "^  elf +ELF64 .*PIE · dynamic .*not stripped" "$TMP/info" || fail "elf traits: $(grep '^  elf' "$TMP/info")"
grep -qE "^  names +[1-9][0-9]* symbols · [1-9][0-9]* modules · 0 JIT methods" "$TMP/info" \
  || fail "names line: $(grep '^  names' "$TMP/info")"
# four thread rows, each with a tid of this process and a syscall column
nthr=$(sed -n '/^  threads$/,$p' "$TMP/info" | grep -cE "^    [0-9]+ +victim_threads +[RS] ")
[ "$nthr" = 4 ] || fail "expected 4 thread rows, got $nthr"
grep -qE "^    $pid " "$TMP/info" || fail "main thread $pid not listed"
pass "--info identity: pid, exe, [native], threads 4, elf traits, names"

if [ "$(id -u)" = 0 ]; then
  grep -qE "^  attach   YES — " "$TMP/info" || fail "root: attach not YES: $(grep '^  attach' "$TMP/info")"
  # log runs on the ptrace backend, stream on singlestep: ok when they probed usable here
  if "$ASMSPY" --backends | awk '$2 == "ptrace" || $2 == "singlestep"' | grep -vq " usable "; then
    grep -qE "^  modes    log (ok|no)  trace (ok|no)  stream (ok|no)" "$TMP/info" || fail "modes line: $(grep '^  modes' "$TMP/info")"
  else
    grep -qE "^  modes    log ok  trace (ok|no)  stream ok" "$TMP/info" || fail "root: log/stream not ok: $(grep '^  modes' "$TMP/info")"
  fi
  # the root shell running this test is the same uid: YES too
  "$ASMSPY" --info $$ >"$TMP/self" || fail "--info \$\$ failed"
  grep -qE "^pid $$ " "$TMP/self" || fail "--info \$\$: $(head -1 "$TMP/self")"
  pass "as root: attach YES, log and stream ok"
fi

# --json: a valid one-event recording with the procinfo members
"$ASMSPY" --info "$pid" --json >"$TMP/info.asmtrace" || fail "--info --json failed"
"$ASMTRACE_CHECK" "$TMP/info.asmtrace" >"$TMP/check" || fail "--info --json invalid: $(cat "$TMP/check")"
grep -q "events=1 (procinfo=1)" "$TMP/check" || fail "not exactly one procinfo event: $(cat "$TMP/check")"
ev=$(sed -n 2p "$TMP/info.asmtrace")
members="pid ppid comm runtime state argv exe cwd uid user thread_count rss_kb fds cpu_jiffies hz
  attach attach_reason attach_hint tracer_pid modes symbols modules jit_methods elf threads"
jtrue "$ev" "[m for m in '''$members'''.split() if m not in e] == []" \
  || fail "procinfo lacks one of: $members"
jtrue "$ev" "e['pid'] == $pid and e['runtime'] == 'native' and e['thread_count'] == 4 and
  len(e['threads']) == 4 and e['exe'] == '$exe' and e['elf']['class'] == 64 and
  [m['mode'] for m in e['modes']] == ['log','trace','stream','graph','tree','procs','sample','dataflow','calls','watch']" \
  || fail "procinfo values wrong: $ev"
jtrue "$(head -1 "$TMP/info.asmtrace")" "e['mode'] == 'info'" || fail "header mode is not info"
pass "--info --json: valid recording, one procinfo event with every member"

# --record without --json: the text still prints, the file is a recording
"$ASMSPY" --info "$pid" --record="$TMP/rec.asmtrace" >"$TMP/rec.txt" || fail "--info --record failed"
head -1 "$TMP/rec.txt" | grep -q "^pid $pid " || fail "--record suppressed the text"
"$ASMTRACE_CHECK" "$TMP/rec.asmtrace" >/dev/null || fail "--record file invalid"
pass "--info --record=<f>: text printed and a valid recording written"

# a pid that does not exist: exit 1
pid_max=$(cat /proc/sys/kernel/pid_max)
ghost=$((pid_max - 1))
while [ -e "/proc/$ghost" ]; do ghost=$((ghost - 1)); done
expect_exit 1 "$ASMSPY" --info "$ghost"
grep -q "no such process" "$TMP/err" || fail "nonexistent pid: $(cat "$TMP/err")"
expect_exit 2 "$ASMSPY" --info
expect_exit 2 "$ASMSPY" --info "$pid" 5
expect_exit 2 "$ASMSPY" --info "$pid" --frobnicate
pass "--info: missing pid -> 1, bad arguments -> 2"

# never attaches: watch TracerPid while --info runs over and over
( for _ in 1 2 3 4; do "$ASMSPY" --info "$pid" >/dev/null; done ) &
runner=$!
seen=0
while kill -0 "$runner" 2>/dev/null; do
  t=$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")
  [ "$t" = 0 ] || seen=$t
done
wait "$runner" || fail "--info loop failed"
[ "$seen" = 0 ] || fail "the victim was traced (TracerPid $seen) while --info ran"
assert_runs "$pid"
pass "--info never attached (TracerPid stayed 0)"

# as an unprivileged user, on root's process: NO/MAYBE with a measured reason
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ASMSPY" --info "$pid" >"$TMP/nobody" 2>"$TMP/err" \
    || { cat "$TMP/err" >&2; fail "unprivileged --info exited non-zero"; }
  line=$(grep '^  attach' "$TMP/nobody")
  echo "$line" | grep -qE "^  attach   (NO|MAYBE) — .+" || fail "unprivileged verdict: $line"
  echo "$line" | grep -q "target uid 0 (root), asmspy uid 65534" || fail "reason does not name the uids: $line"
  grep -qE "^           -> " "$TMP/nobody" || fail "no hint line"
  grep -qE "^  modes    log no" "$TMP/nobody" || fail "log should not work: $(grep '^  modes' "$TMP/nobody")"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ASMSPY" --info "$pid" --json >"$TMP/nobody.asmtrace"
  "$ASMTRACE_CHECK" "$TMP/nobody.asmtrace" >/dev/null || fail "unprivileged --json invalid"
  jtrue "$(sed -n 2p "$TMP/nobody.asmtrace")" "e['attach'] != 'YES' and e['attach_gate'] == 'uid' and e['exe'] is None" \
    || fail "unprivileged procinfo: $(sed -n 2p "$TMP/nobody.asmtrace")"
  pass "as nobody: $line"
fi
